"""The edition registry: what the pages' dataset picker, the CLI and the fetching list.

An edition module registers its entry with :func:`register_edition`; the package
imports every edition module, so ``import detox_core.editions`` fills the registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from detox_core.editions.base import Edition
from detox_core.errors import UnknownNameError
from detox_core.vocab import in_language_order

#: name -> edition, in the order they were registered (the first is the default).
EDITIONS: dict[str, Edition] = {}


def register_edition(edition: Edition) -> Edition:
    """Add (or replace) an edition; returns it, so a module can keep a name for it."""
    EDITIONS[edition.name] = edition
    return edition


def unregister_edition(name: str) -> None:
    """Remove an edition (tests register toy ones)."""
    EDITIONS.pop(name, None)


def get_edition(name: str) -> Edition:
    """The registered edition ``name``.

    Raises:
        UnknownNameError: no such edition; the message lists the known ones.
    """
    try:
        return EDITIONS[name]
    except KeyError:
        raise UnknownNameError(f"unknown edition {name!r}; known: {', '.join(EDITIONS) or 'none'}") from None


def editions() -> list[Edition]:
    """Every registered edition, in registration order."""
    return list(EDITIONS.values())


def all_languages() -> tuple[str, ...]:
    """Every language of the registered editions, once each, in :data:`detox_core.vocab.LANGUAGES`'s order:
    the one list of the task's languages (lexicons, the embedded preset's models)."""
    return tuple(in_language_order([lang for e in EDITIONS.values() for lang in e.languages]))


def default_edition() -> Edition:
    """The edition the app opens on: the first registered."""
    if not EDITIONS:
        raise UnknownNameError("no edition is registered")
    return next(iter(EDITIONS.values()))


def training_edition() -> Edition:
    """The edition whose corpus trains the offline embedded preset."""
    for edition in EDITIONS.values():
        if edition.trains_embedded:
            return edition
    raise UnknownNameError("no registered edition trains the embedded preset")


def system_aliases() -> dict[str, str]:
    """Output-file stem -> system name, over every edition (files name systems their own way)."""
    out: dict[str, str] = {}
    for edition in EDITIONS.values():
        out.update(edition.system_aliases)
    return out


def load_dataset(dataset: str, splits: Sequence[str] | None = None, root: Path | None = None) -> pd.DataFrame:
    """The chosen splits of a registered edition's corpus, concatenated.

    Raises:
        DataMissingError: a requested split has not been fetched.
        UnknownNameError: no such edition.
    """
    return get_edition(dataset).load(splits, root)


def load_dataset_lexicon(dataset: str, root: Path | None = None) -> frozenset[str]:
    """The edition's toxic lexicon, or an empty set when it is not fetched."""
    return get_edition(dataset).load_lexicon(root)
