"""chrF of outputs against references (Popović, 2015), computed as sacrebleu does.

Sentence-level chrF2 (character 1-6-grams, beta 2, whitespace ignored, sacrebleu's
effective-order averaging) on a 0-1 scale. With several references the best-matching
one counts, as in sacrebleu's ``sentence_chrf``. Character n-gram counts are cached
per text (in a byte-bounded cache), so test inputs and references are counted once for
every submission; the numbers equal ``sacrebleu.sentence_chrf`` (tested).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics import CHRF
from sacrebleu.metrics.helpers import extract_all_char_ngrams

from detox_core.lru import ByteLRU, cache_budget

_CHRF = CHRF()  # chrF2: character 6-grams, beta 2, no word n-grams (sacrebleu defaults)
_LOCK = threading.Lock()


def chrf_signature() -> str:
    """sacrebleu-style signature of the chrF computed here."""
    import sacrebleu

    return (f"chrF{_CHRF.beta}|nc:{_CHRF.char_order}|nw:{_CHRF.word_order}|space:no|eff:yes|"
            f"version:{sacrebleu.__version__}")


def _ngrams_size(text: str, value: tuple[tuple[Counter, int], ...]) -> int:
    # ~130 bytes per distinct n-gram (its string and the Counter's slot), measured.
    return 2 * len(text) + 400 + 130 * sum(len(c) for c, _ in value)


_NGRAMS: ByteLRU[tuple[tuple[Counter, int], ...]] = ByteLRU(cache_budget("chrf"), sizeof=_ngrams_size)


def _ngrams(text: str) -> tuple[tuple[Counter, int], ...]:
    """Per order: the character n-gram counts of ``text`` and their total."""
    return _NGRAMS.get_or_compute(text, lambda: tuple(
        (c, sum(c.values())) for c in extract_all_char_ngrams(text, _CHRF.char_order, _CHRF.whitespace)))


def _match_statistics(hyp: tuple[Counter, int], ref: tuple[Counter, int]) -> list[int]:
    """[hyp count, ref count, matches] of one order, as sacrebleu's CHRF counts them,
    iterating only over the n-grams both sides share."""
    (h, h_total), (r, r_total) = hyp, ref
    matches = 0
    for ng in h.keys() & r.keys():
        a, b = h[ng], r[ng]
        matches += a if a < b else b
    return [h_total if r else 0, r_total, matches]


def pair_chrf(hypothesis: str, references: Sequence[str]) -> float:
    """chrF of one hypothesis against its references, in [0, 1]; NaN without any."""
    refs = [r for r in references if r]
    if not refs:
        return float("nan")
    hyp = _ngrams(hypothesis)
    best = -1.0
    for ref in refs:
        stats: list[int] = []
        for h, r in zip(hyp, _ngrams(ref)):
            stats.extend(_match_statistics(h, r))
        best = max(best, _CHRF._compute_f_score(stats))
    return best / 100.0


def sentence_chrf(outputs: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """chrF of each output against its references, in [0, 1]; NaN where none exist."""
    return np.array([pair_chrf(hyp, refs) for hyp, refs in zip(outputs, references)], dtype=np.float64)
