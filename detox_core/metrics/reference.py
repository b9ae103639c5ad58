"""Reference-based metrics: how close a rewrite is to the human references.

One registry, :data:`REFERENCE_METRICS`, read by score frames, the submission store and
the pages: chrF, BLEU, ROUGE-L and BERTScore F1, each computed by the library made for it
and on a 0-1 scale (NaN without references). The RUSSE-2022 study of automatic against
manual evaluation (Dementieva et al., 2022, "RUSSE-2022: Findings of the First Russian
Detoxification Shared Task") found BLEU, ROUGE-L and BERTScore closer to the human
ranking of systems than chrF.

With several references, each metric does what its library does with them:

- ``chrf``: sacrebleu's sentence chrF2 against each reference, the best one counts
  (:mod:`detox_core.metrics.chrf`).
- ``bleu``: sacrebleu's sentence BLEU with effective order, all references at once
  (n-gram counts clipped by the most of any reference, the closest reference length
  for the brevity penalty), default ``13a`` tokenization.
- ``rouge_l``: ``rouge-score``'s ROUGE-L F-measure with ``score_multi``: the best
  reference by F-measure. Its default tokenizer keeps only ``[a-z0-9]`` and scores
  Russian, Arabic or Chinese as empty; :class:`UnicodeTokenizer` keeps words of every
  script (lowercased) and splits Chinese and Japanese, written without spaces, into
  characters.
- ``bertscore``: BERTScore F1 as the ``bert-score`` package computes it
  (:mod:`detox_core.metrics.bertscore`), the best reference (its elementwise maximum);
  computed only when asked (it needs a model download).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import version

import numpy as np
import pandas as pd
import regex
import sacrebleu
from sacrebleu.metrics import BLEU

from detox_core.errors import ModelUnavailableError
from detox_core.lru import ByteLRU, cache_budget
from detox_core.metrics import bertscore
from detox_core.metrics.chrf import chrf_signature, sentence_chrf
from detox_core.models import ModelPool
from detox_core.vocab import REFERENCE_METRIC_COLUMNS

log = logging.getLogger(__name__)

#: compute(outputs, references per output, pool) -> one score per output in [0, 1]
Compute = Callable[[Sequence[str], Sequence[Sequence[str]], ModelPool], np.ndarray]


@dataclass(frozen=True)
class ReferenceMetric:
    """A reference-based metric.

    Attributes:
        key: its score-frame column (a key of :data:`detox_core.vocab.REFERENCE_METRIC_COLUMNS`).
        compute: the scores of outputs against their references, NaN where an output has none.
        signature: what the numbers depend on (library, version, options).
        off_reason: why it is not computed now, or None when it is.
    """

    key: str
    compute: Compute
    signature: Callable[[], str]
    off_reason: Callable[[], str | None] = lambda: None


#: key -> metric, in the order pages show them
REFERENCE_METRICS: dict[str, ReferenceMetric] = {}


def register_reference_metric(metric: ReferenceMetric) -> ReferenceMetric:
    """Add a metric to the registry (its key must be one of the vocabulary's columns)."""
    if metric.key not in REFERENCE_METRIC_COLUMNS:
        raise ValueError(f"{metric.key!r} is not a reference column of detox_core.vocab: {REFERENCE_METRIC_COLUMNS}")
    REFERENCE_METRICS[metric.key] = metric
    return metric


def _per_output(outputs: Sequence[str], references: Sequence[Sequence[str]],
                one: Callable[[str, list[str]], float]) -> np.ndarray:
    out = np.full(len(outputs), np.nan)
    for i, (hyp, refs) in enumerate(zip(outputs, references)):
        refs = [r for r in refs if r]
        if refs:
            out[i] = one(hyp, refs)
    return out


# ------------------------------------------------------------------ BLEU (sacrebleu)


_BLEU = None
#: references -> their tokenised n-gram counts (sacrebleu's reference info): the test
#: references are shared by every submission, so they are counted once.
_BLEU_REFS: ByteLRU[dict] = ByteLRU(cache_budget("chrf") // 4)


def sentence_bleu(outputs: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """sacrebleu's sentence BLEU (effective order; all references together) / 100.

    The same steps as ``BLEU.sentence_score`` (tokenise, n-gram statistics against the
    references' clipped counts, effective-order score), with each reference set's counts
    computed once and kept."""
    global _BLEU
    if _BLEU is None:

        _BLEU = BLEU(effective_order=True)
    bleu = _BLEU

    def one(hyp: str, refs: list[str]) -> float:
        info = _BLEU_REFS.get_or_compute(tuple(refs), lambda: bleu._extract_reference_info(
            [bleu._preprocess_segment(r) for r in refs]))
        stats = bleu._compute_segment_statistics(bleu._preprocess_segment(hyp), info)
        # sacrebleu's 100 can come out as 100.00000000000004: clipped to the 0-1 scale.
        return min(bleu._aggregate_and_compute([stats]).score / 100.0, 1.0)

    return _per_output(outputs, references, one)


def bleu_signature() -> str:
    return f"BLEU|nrefs:all|case:mixed|eff:yes|tok:13a|smooth:exp|version:{sacrebleu.__version__}"


# ------------------------------------------------------------------ ROUGE-L (rouge-score)

# Scripts written without spaces between words: one token per character.
_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}"
_TOKEN = regex.compile(rf"[{_UNSPACED}]|[^\W{_UNSPACED}]+")


class UnicodeTokenizer:
    """A ``rouge-score`` tokenizer for every script: lowercased runs of word characters
    (letters, combining marks, digits; ``\\w`` of the ``regex`` module), and single
    characters of Chinese and Japanese script (written without spaces)."""

    def tokenize(self, text: str) -> list[str]:
        return _TOKEN.findall(text.lower())


def sentence_rouge_l(outputs: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """ROUGE-L F-measure of ``rouge-score`` with :class:`UnicodeTokenizer`, the best reference."""
    # Imported here: only ROUGE-L needs it.
    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(["rougeL"], tokenizer=UnicodeTokenizer())
    return _per_output(outputs, references,
                       lambda hyp, refs: scorer.score_multi(refs, hyp)["rougeL"].fmeasure)


def rouge_signature() -> str:
    return f"rouge-score {version('rouge-score')}|rougeL|F|tok:unicode-words+cjk-chars,lower|refs:best"


# ------------------------------------------------------------------ the registry

register_reference_metric(ReferenceMetric(
    "chrf", lambda outs, refs, pool: sentence_chrf(outs, refs), chrf_signature))
register_reference_metric(ReferenceMetric("bleu", lambda outs, refs, pool: sentence_bleu(outs, refs), bleu_signature))
register_reference_metric(ReferenceMetric(
    "rouge_l", lambda outs, refs, pool: sentence_rouge_l(outs, refs), rouge_signature))
register_reference_metric(ReferenceMetric(
    "bertscore", lambda outs, refs, pool: bertscore.bertscore_f1(pool, outs, refs), bertscore.signature,
    bertscore.off_reason))


def add_reference_columns(frame: pd.DataFrame, outputs: Sequence[str], references: Sequence[Sequence[str]],
                          pool: ModelPool) -> pd.DataFrame:
    """Fill the reference columns a preset left empty (every one but its own chrF) and
    record each metric's signature, or why it is n/a, in the frame's signature
    (``signature["references"]``). A metric switched off, or whose model cannot load,
    stays NaN and says why; nothing is made up."""
    notes: dict[str, str] = {}
    have_refs = any(any(r for r in refs) for refs in references)
    for key, metric in REFERENCE_METRICS.items():
        done = key in frame and frame[key].notna().any()
        reason = metric.off_reason()
        if not have_refs:
            notes[key] = "n/a: no references"
        elif done:
            notes[key] = metric.signature()
        elif reason:
            frame[key] = np.nan
            notes[key] = f"n/a: {reason}"
        else:
            try:
                frame[key] = np.asarray(metric.compute(outputs, references, pool), dtype=np.float64)
                notes[key] = metric.signature()
            except ModelUnavailableError as err:
                log.warning("%s not computed: %s", key, err)
                frame[key] = np.nan
                notes[key] = f"n/a: {err}"
        if key not in frame:
            frame[key] = np.nan
    signature = frame.attrs.get("signature")
    if isinstance(signature, dict):
        signature["references"] = notes
    return frame


def reference_notes(signature: dict | None) -> dict[str, str]:
    """Reference metric -> why it is n/a, from a score frame's (or a stored submission's)
    signature; empty for the metrics that were computed."""
    notes = (signature or {}).get("references") or {}
    return {k: v.removeprefix("n/a: ") for k, v in notes.items() if isinstance(v, str) and v.startswith("n/a")}
