"""The preset registry: what the app's picker, its model settings, the CLI and the
leaderboard list.

A recipe module defines a :class:`~detox_core.metrics.base.Preset` subclass and
decorates it with :func:`register_preset`; :mod:`detox_core.metrics` imports every
recipe module, so ``import detox_core.metrics`` fills the registry. Presets are listed
in registration order, the offline default first.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from detox_core.errors import UnknownNameError
from detox_core.metrics.base import Preset, StepProgress
from detox_core.models import ModelPool, default_pool

#: name -> preset class, in registration order.
PRESETS: dict[str, type[Preset]] = {}

#: The preset pages and the CLI start on: it needs no download.
DEFAULT_PRESET = "embedded"

P = TypeVar("P", bound=type[Preset])


def register_preset(cls: P) -> P:
    """Class decorator: add a preset under its ``name`` (replacing one of the same name)."""
    PRESETS[cls.name] = cls
    return cls


def unregister_preset(name: str) -> None:
    """Remove a preset (tests register toy ones)."""
    PRESETS.pop(name, None)


def registered() -> dict[str, type[Preset]]:
    """Every registered preset, name -> class, the default first."""
    ordered = sorted(PRESETS.items(), key=lambda kv: kv[0] != DEFAULT_PRESET)
    return dict(ordered)


def preset_names() -> list[str]:
    """The registered presets' names, the default first."""
    return list(registered())


def preset_class(name: str) -> type[Preset]:
    """The registered preset class ``name``.

    Raises:
        UnknownNameError: no such preset; the message lists the known ones.
    """
    if name not in PRESETS:
        raise UnknownNameError(f"unknown preset {name!r}; known: {', '.join(preset_names())}")
    return PRESETS[name]


def preset_label(name: str, calibrated: bool = True) -> str:
    """How pages name a preset (its registered label; the name of an unknown one), with
    " · raw" when a preset that has a calibration runs without it."""
    cls = PRESETS.get(name)
    return cls.display(calibrated) if cls else name


def has_calibration(name: str) -> bool:
    """Whether preset ``name`` has a calibration that can be switched off."""
    cls = PRESETS.get(name)
    return bool(cls and cls.has_calibration())


def model_roles() -> list[tuple[type[Preset], str, str]]:
    """(preset, role, model kind) of every model a registered preset loads from the hub."""
    return [(cls, role, kind) for cls in registered().values() for role, kind in cls.model_kinds.items()]


def get_preset(name: str, pool: ModelPool | None = None, models: dict[str, str] | None = None, **options: Any) -> Preset:
    """Instantiate a registered preset.

    Args:
        name: a registered preset's name.
        pool: the model pool (default: the process-wide one).
        models: role (``sta``/``sim``/``fl``) -> model id or local folder, overriding
            the preset's defaults. A folder is used by this preset object only; the
            pool's shared mapping is left alone.

    Raises:
        UnknownNameError: unknown preset or model role, with the known names.
    """
    cls = preset_class(name)
    defaults = cls.default_models()
    unknown = set(models or {}) - set(defaults)
    if unknown:
        raise UnknownNameError(f"preset {name!r} has no model role {', '.join(sorted(unknown))}; "
                               f"its roles: {', '.join(defaults) or 'none'}")
    ids: dict[str, str] = {}
    sources: dict[str, str] = {}
    for role, value in (models or {}).items():
        if Path(value).is_dir():
            # A folder stands in for the preset's model: same id in the signature,
            # loaded from the folder through the same from_pretrained code.
            sources[role] = value
        else:
            ids[role] = value
    return cls(pool=pool, models=ids, sources=sources, **options)


def score_frame(
    inputs: Sequence[str],
    outputs: Sequence[str],
    references: Sequence[Sequence[str]] | None = None,
    preset: str = DEFAULT_PRESET,
    *,
    calibrated: bool = True,
    pool: ModelPool | None = None,
    models: dict[str, str] | None = None,
    progress: StepProgress | None = None,
    langs: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The score frame of outputs under a preset (:meth:`Preset.score`): the layers' call,
    one language per pair given (``langs``, told to presets that read it: the embedded
    preset picks its models by it; without it, it scores Cyrillic inputs as Russian and
    refuses others). The library's one public ``score`` is :func:`detox_core.score`, which
    detects the languages and returns every sentence's scores with the systems' means and
    intervals."""
    scorer = get_preset(preset, pool=pool, models=models)
    return scorer.score(inputs, outputs, references, calibrated=calibrated, progress=progress, langs=langs)


#: What each model role does, in the words of people who choose a preset.
ROLE_WORDS = {"sta": "toxicity classifier", "sim": "meaning model", "fl": "fluency model"}


def missing_models(name: str, pool: ModelPool | None = None,
                   models: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """``(what, model id)`` of every model preset ``name`` needs that cannot be had on
    this machine: no local folder, not in the hub cache, and the hub cannot be reached.

    Found in seconds (folders are listed and the hub is asked once; no weights are
    read), so a page can say a preset cannot run before a visitor waits for it to fail.
    ``what`` is the role in words ("toxicity classifier", "toxicity classifier's
    tokenizer"). Empty when every model can be had (a download may still take time).
    """

    cls = preset_class(name)
    pool = pool or default_pool()
    overrides = models or {}
    missing: list[tuple[str, str]] = []
    for role, model_id in cls.default_models().items():
        value = overrides.get(role, model_id)
        source = value if Path(value).is_dir() else None
        wanted = model_id if source else value
        what = ROLE_WORDS.get(role, f"{role.upper()} model")
        if pool.locate(wanted, source) is None:
            missing.append((what, wanted))
        companion = cls.companions.get(role)
        if companion and pool.locate(companion) is None:
            missing.append((f"{what}'s tokenizer files", companion))
    return missing
