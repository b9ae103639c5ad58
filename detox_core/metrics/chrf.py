"""chrF of outputs against references (Popović, 2015), computed as sacrebleu does.

Sentence-level chrF2 (character 1-6-grams, beta 2, whitespace ignored, sacrebleu's
effective-order averaging) on a 0-1 scale. With several references the best-matching
one counts, as in sacrebleu's ``sentence_chrf``. Character n-gram counts are cached
per text (in a byte-bounded cache), so test inputs and references are counted once for
every submission; the numbers equal ``sacrebleu.sentence_chrf`` (tested).

Beside it, :data:`CORPUS_CHRF` holds system-level chrF variants as official evaluation
scripts compute them (nltk's corpus chrF of the RUSSE-2022 script), which an edition
names so that pages show them next to the mean sentence chrF.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import sacrebleu
from sacrebleu.metrics import CHRF
from sacrebleu.metrics.helpers import extract_all_char_ngrams

from detox_core.lru import ByteLRU, cache_budget

_CHRF = CHRF()  # chrF2: character 6-grams, beta 2, no word n-grams (sacrebleu defaults)
_LOCK = threading.Lock()


def chrf_signature() -> str:
    """The chrF computed here, in one token that every signature (its text, its JSON, a
    preset's model field) spells the same way: ``chrF2(nc=6,nw=0,space=no,eff=yes)@sacrebleu-2.6.0``."""
    return (f"chrF{_CHRF.beta}(nc={_CHRF.char_order},nw={_CHRF.word_order},space=no,eff=yes)"
            f"@sacrebleu-{sacrebleu.__version__}")


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


def nltk_corpus_chrf(outputs: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """The ChrF1 of the RUSSE-2022 evaluation script (``s-nlp/russe_detox_2022``,
    ``evaluation/ru_detoxification_evaluation.py``), in [0, 1]: nltk's
    ``corpus_chrf(references, predictions)`` with its defaults (character 1-6-grams,
    beta 3, whitespace removed), each sentence's references passed as one list, which nltk
    joins with spaces into one string (an empty reference column is an empty string), and
    the outputs stripped. A macro average of sentence F-scores per n-gram order, so not
    the mean of sacrebleu's sentence chrF. NaN without any reference.

    This is the number the published 2022 leaderboard's ChrF column holds.
    """
    # Imported here: nltk only for its chrF variant.
    from nltk.translate.chrf_score import corpus_chrf

    if not outputs or not any(any(r for r in refs) for refs in references):
        return float("nan")
    return float(corpus_chrf([list(refs) for refs in references], [o.strip() for o in outputs]))


def nltk_corpus_chrf_signature() -> str:
    # Imported here: nltk only for its chrF variant.
    import nltk

    return f"nltk {nltk.__version__} corpus_chrf|n:1-6|beta:3|refs:joined|space:removed"


@dataclass(frozen=True)
class CorpusChrf:
    """A system-level chrF as an edition's official script computes it (an edition names it
    by its key in :data:`CORPUS_CHRF`), shown beside the mean of the sentence chrF.

    Attributes:
        how: how it is computed, in a few words (pages name it "chrF (<edition> script, <how>)").
        help: what differs from sacrebleu's sentence chrF.
        compute: (outputs, references per output) -> the system's score in [0, 1].
        signature: library, version and options.
    """

    how: str
    help: str
    compute: Callable[[Sequence[str], Sequence[Sequence[str]]], float]
    signature: Callable[[], str]

    def label(self, edition: str) -> str:
        return f"chrF ({edition} script, {self.how})"


#: key -> a system-level chrF of an official evaluation script
CORPUS_CHRF: dict[str, CorpusChrf] = {
    "nltk-corpus": CorpusChrf(
        "nltk corpus",
        "nltk's corpus chrF as the official script calls it: character 1-6-grams, beta 3 (recall weighs more), "
        "whitespace removed, a sentence's references joined into one string, a macro average over sentences and "
        "n-gram orders; from 0 to 1. Not the mean of the sentence chrF (sacrebleu, beta 2, best reference): with "
        "several references per input the joined string lowers it.",
        nltk_corpus_chrf, nltk_corpus_chrf_signature),
}
