"""The editions of the shared task, as a registry of data (see :mod:`.base`).

Importing this package registers every edition below; pages, the CLI and the
fetching list :func:`editions`. A new edition is a new module with one
:func:`register_edition` call, imported here.
"""

from detox_core.editions import russe2022  # noqa: F401  (registers RUSSE-2022)
from detox_core.editions import textdetox  # noqa: F401  (registers TextDetox 2024 and 2025)
from detox_core.editions.base import DataFile, Edition, FetchReport, FetchResult
from detox_core.editions.registry import (
    EDITIONS,
    all_languages,
    default_edition,
    editions,
    get_edition,
    load_dataset,
    load_dataset_lexicon,
    register_edition,
    system_aliases,
    training_edition,
    unregister_edition,
)

__all__ = [
    "EDITIONS", "DataFile", "all_languages", "Edition", "FetchReport", "FetchResult", "default_edition", "editions", "get_edition",
    "load_dataset", "load_dataset_lexicon", "register_edition", "system_aliases", "training_edition",
    "unregister_edition",
]
