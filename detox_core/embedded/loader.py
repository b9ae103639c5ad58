"""The trained embedded models, loaded once per process, and the steps that warm them
(run by :mod:`detox_core.metrics.warmup`, the one background warm-up)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from detox_core.embedded import meaning, multilingual
from detox_core.embedded.language_id import detector
from detox_core.embedded.recipe import EmbeddedModels, find_artifacts, load_navec, morph_analyzer
from detox_core.segment import SEGMENTERS

_LOADED: dict[Path, EmbeddedModels] = {}
_LOCK = threading.Lock()


def load_models(folder: Path | None = None) -> EmbeddedModels:
    """The trained embedded models, loaded once per process."""
    folder = folder or find_artifacts()
    with _LOCK:
        if folder not in _LOADED:
            _LOADED[folder] = EmbeddedModels.load(folder)
        return _LOADED[folder]


def preload_steps() -> list[tuple[str, Callable[[], object]]]:
    """The steps of :func:`preload`, each named for people (the server's warm-up shows
    them one by one): the Russian models, word vectors, morphology, the other languages'
    models, their model of meaning (multilingual-e5-small), the language identifier and the
    Chinese and Japanese segmenters. The last three do nothing when the trained models hold
    no other language."""

    found: dict[str, object] = {}

    def russian() -> None:
        found["models"] = load_models()

    def languages() -> None:
        models = found.get("models") or load_models()
        found["languages"] = multilingual.load_languages(models.folder)

    def identifier() -> None:
        if found.get("languages") is not None:
            detector()  # lingua's build holds the GIL for about a second

    def segmenters() -> None:
        if found.get("languages") is not None:
            SEGMENTERS["zh"]("你好")  # jieba's dictionary: about 0.4 s, also holding the GIL
            SEGMENTERS["ja"]("こんにちは")

    def meaning_model() -> None:
        languages_models = found.get("languages")
        if languages_models and any(m.semantic is not None for m in languages_models.values()):
            # the model file's check (SHA-256 of 72 MB, ~0.2 s) and the engine's first call
            if meaning.available():
                meaning.embed(["."])

    return [("Russian models", russian), ("word vectors", load_navec), ("morphology", morph_analyzer),
            ("other languages", languages), ("model of meaning", meaning_model), ("language identifier", identifier),
            ("Chinese and Japanese segmenters", segmenters)]


def preload() -> None:
    """Everything the embedded preset's first score would load: the Russian models, word
    vectors and morphology, every other language's models, the language identifier and
    the Chinese and Japanese segmenters."""
    for _, step in preload_steps():
        step()
