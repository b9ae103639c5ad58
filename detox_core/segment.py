"""Word segmentation of scripts written without spaces: Chinese (jieba) and Japanese
(fugashi with the UniDic-lite dictionary).

Both segmenters load lazily, once per process (jieba ~1.5 s the first time, then ~0.5 s
from its cache; fugashi ~10 ms). A segmentation covers the text exactly: joining the
pieces gives it back, spaces included, so character offsets can be computed from it.
When a segmenter is not installed, the text is cut character by character (the
behaviour of :data:`detox_core.text.UNSPACED_TOKEN_RE`), which still finds lexicon
words but may also find them inside longer words.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache

_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _jieba():
    try:
        import jieba  # noqa: PLC0415 - 60 MB of dictionary: loaded only when Chinese text is segmented
    except ImportError:
        return None
    jieba.setLogLevel(logging.WARNING)
    with _LOCK:
        jieba.initialize()
    return jieba


@lru_cache(maxsize=1)
def _fugashi():
    try:
        import fugashi  # noqa: PLC0415
        return fugashi.Tagger()
    except (ImportError, RuntimeError):
        return None


def _chars(text: str) -> list[str]:
    return list(text)


def segment_zh(text: str) -> list[str]:
    """Chinese ``text`` cut into words (jieba's accurate mode, no HMM guesses for unknown
    words, so that the result does not depend on training statistics)."""
    jb = _jieba()
    if jb is None:
        return _chars(text)
    with _LOCK:  # jieba's tokenizer keeps state while it cuts
        return list(jb.cut(text, HMM=False))


def segment_ja(text: str) -> list[str]:
    """Japanese ``text`` cut into words by MeCab (fugashi) with UniDic-lite; the spaces
    MeCab skips are given back as pieces of their own."""
    tagger = _fugashi()
    if tagger is None:
        return _chars(text)
    out: list[str] = []
    pos = 0
    with _LOCK:
        nodes = [(n.white_space, n.surface) for n in tagger(text)]
    for space, surface in nodes:
        if space:
            out.append(space)
            pos += len(space)
        if text.startswith(surface, pos):
            out.append(surface)
            pos += len(surface)
        else:  # MeCab normalised something: fall back to the characters left
            break
    if pos < len(text):
        out.extend(_chars(text[pos:]))
    return out


SEGMENTERS = {"zh": segment_zh, "ja": segment_ja}


def available() -> dict[str, bool]:
    """Which segmenters are installed (the others cut character by character)."""
    return {"zh": _jieba() is not None, "ja": _fugashi() is not None}
