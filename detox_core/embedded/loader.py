"""The trained embedded models, loaded once per process, and their background preload."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from detox_core.embedded.recipe import EmbeddedModels, find_artifacts, load_navec, morph_analyzer

_LOADED: dict[Path, EmbeddedModels] = {}
_LOCK = threading.Lock()


def load_models(folder: Path | None = None) -> EmbeddedModels:
    """The trained embedded models, loaded once per process."""
    folder = folder or find_artifacts()
    with _LOCK:
        if folder not in _LOADED:
            _LOADED[folder] = EmbeddedModels.load(folder)
        return _LOADED[folder]


_PRELOAD: list[threading.Thread] = []


def preload() -> None:
    """Everything the embedded preset's first score would load: the Russian models, word
    vectors and morphology, every other language's models, the language identifier and
    the Chinese and Japanese segmenters."""
    from detox_core.embedded import multilingual
    from detox_core.embedded.language_id import detector
    from detox_core.segment import SEGMENTERS

    models = load_models()
    load_navec()
    morph_analyzer()
    if multilingual.load_languages(models.folder) is not None:
        detector()
        SEGMENTERS["zh"]("你好")
        SEGMENTERS["ja"]("こんにちは")


def preload_in_background(delay: float = 1.5) -> None:
    """Load the embedded models, word vectors and morphology in a background thread,
    once per process, so that a page's first score does not wait for them (the Live
    scoring page starts it while the user is still typing). The thread waits ``delay``
    seconds first: the page draws meanwhile, and a score asked for at once loads the
    models itself (with its spinner) instead of waiting behind the thread. Errors are
    left for the first real score to report."""
    with _LOCK:
        if _PRELOAD:
            return

        def work() -> None:
            time.sleep(delay)
            try:
                preload()
            except Exception:  # noqa: BLE001 - reported by the first score, with its message
                pass

        thread = threading.Thread(target=work, name="embedded-preload", daemon=True)
        _PRELOAD.append(thread)
    thread.start()
