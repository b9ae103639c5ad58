"""The embedded preset's per-sentence axes in every language, from its trained heads
(:mod:`detox_core.offline.heads`) and its model of meaning.

For a toxic input x and an output y of language ``lang``:

- **STA** = ``(P(y) + gain) / 2`` with P = P(neutral) of the STA heads and ``gain = clip((P(y) -
  P(x)) / (1 - P(x)), 0, 1)``, the share of the input's toxicity the output removed: an output
  that is still rude scores low however much it deleted, one clearly less toxic than its input
  gets its share. An output that changes nothing but case and punctuation is the toxic input
  itself (every input of the task is toxic): STA 0.
- **SIM** = P(same meaning | x, y) of the pair head; with references, joined like the official
  2025 SIM-JOINED: ``0.4 P(x, y) + 0.6 max_r P(r, y)`` (its published weights). A copy gets 1,
  an empty output 0.
- **FL** = relative, like the official FL: ``2 Phi(min(0, F(y) - F(x)) / (2 s))`` with F =
  P(fluent) of the fluency heads and s the spread of F between two rewrites people wrote of
  one input (measured at training: two equally fluent texts): an output at least as fluent as
  its input gets 1, a fragment a deletion left behind less.
- **Wrong language**: an output in another script than its input, or that ``lingua`` places
  in another language (Latin and Cyrillic languages it knows), keeps
  :data:`WRONG_LANGUAGE_FACTOR` of its SIM and FL (the model of meaning is cross-lingual: a
  translation keeps its cosine).
- **chrF** against the references, NaN without them (a column of its own, not a part of J).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import ndtr

from detox_core.models import meaning
from detox_core.offline.heads import PAIR, Heads, pair_features, sta_text
from detox_core.languages.detect import IDENTIFIED, identify, wrong_language

#: FL's unit of a fall: this many times the spread of F between two people's rewrites
FL_WIDTH = 2.0
#: SIM with references: the official 2025 SIM-JOINED's weights of the input and the references
SIM_JOINED = (0.4, 0.6)
WRONG_LANGUAGE_FACTOR = 0.5
#: outputs whose soft recall of the input's words is below this are checked by lingua
LINGUA_BELOW_RECALL = 0.6
PARAMS = {"sta": {"relative": "(P(y) + clip((P(y) - P(x)) / (1 - P(x)), 0, 1)) / 2",
                  "heads": "mean of vector and hashed character n-gram logistic regressions"},
          "sim": {"head": "logistic regression over the cosine and the length ratio",
                  "with_references": "0.4 P(x, y) + 0.6 max over r of P(r, y)"},
          "fl": {"relative": "2 Phi(min(0, F(y) - F(x)) / (width * s))", "width": FL_WIDTH,
                 "heads": "mean of vector+surface and hashed token-bigram logistic regressions"},
          "wrong_language": {"factor": WRONG_LANGUAGE_FACTOR, "lingua_below_recall": LINGUA_BELOW_RECALL}}

Memo = Callable[[str, Sequence[str], Callable[[list[str]], list]], list]


def relative_sta(p_out: np.ndarray, p_in: np.ndarray) -> np.ndarray:
    """``(P(y) + gain) / 2``, gain the share of the input's toxicity the output removed."""
    p_out, p_in = np.asarray(p_out, np.float64), np.asarray(p_in, np.float64)
    gain = np.clip((p_out - p_in) / np.maximum(1e-6, 1.0 - p_in), 0.0, 1.0)
    return (p_out + gain) / 2.0


def relative_fluency(f_in: np.ndarray, f_out: np.ndarray, noise: float) -> np.ndarray:
    """``2 Phi(min(0, F(y) - F(x)) / (FL_WIDTH * noise))``: 1 when the output is at least as fluent."""
    return 2.0 * ndtr(np.minimum(0.0, np.asarray(f_out) - np.asarray(f_in)) / (FL_WIDTH * max(noise, 1e-6)))


def axes(heads: Heads, lang: str, inputs: Sequence[str], outputs: Sequence[str],
         references: Sequence[Sequence[str]], sentence_chrf, memo: Memo | None = None) -> dict[str, np.ndarray]:
    """The per-sentence quantities of one language's pairs: ``sta``, ``sta_raw``, ``sta_in``,
    ``sim``, ``cos``, ``recall``, ``fl``, ``fl_in``, ``fl_out``, ``wrong_language``, ``chrf``.

    Args:
        sentence_chrf: :func:`detox_core.metrics.chrf.sentence_chrf` (passed in: the
            metrics package imports this one).
        memo: ``memo(kind, texts, compute) -> list``, a per-text cache (inputs repeat
            across submissions); None computes everything.

    Raises:
        meaning.MeaningUnavailableError: the model of meaning cannot run here.
    """
    inputs, outputs = [str(t) for t in inputs], [str(t) for t in outputs]
    many = memo or (lambda kind, texts, compute: list(compute(list(texts))))
    n = len(outputs)

    def p_neutral(ts: list[str]) -> list[float]:
        return list(heads.p_neutral(ts, meaning.embed(ts)))

    def p_fluent(ts: list[str]) -> list[float]:
        return list(heads.p_fluent(ts, meaning.embed(ts)))

    sta_raw = np.array(many("sta", outputs, p_neutral), dtype=np.float64)
    sta_in = np.array(many("sta", inputs, p_neutral), dtype=np.float64)
    sta = relative_sta(sta_raw, sta_in)
    unchanged = np.array([sta_text(i) == sta_text(o) for i, o in zip(inputs, outputs)], dtype=bool)
    sta = np.where(unchanged, 0.0, sta)
    empty = np.array([not o.strip() for o in outputs], dtype=bool)
    same = np.array([o.strip() == i.strip() for i, o in zip(inputs, outputs)], dtype=bool)

    cos = meaning.cosine(inputs, outputs) if n else np.zeros(0)
    feats = pair_features(inputs, outputs, [lang] * n, cos)
    p_same = heads.p_same(feats)
    # With references, as SIM-JOINED: the output against the input and against its closest reference.
    with_ref = [(k, r) for k in range(n) for r in (references[k] if k < len(references) else []) if r and r.strip()]
    if with_ref:
        ks, rs = [k for k, _ in with_ref], [r for _, r in with_ref]
        outs = [outputs[k] for k in ks]
        p_ref = heads.p_same(pair_features(rs, outs, [lang] * len(ks), meaning.cosine(rs, outs)))
        best = np.full(n, np.nan)
        for k, p in zip(ks, p_ref):
            best[k] = p if np.isnan(best[k]) else max(best[k], p)
        w_in, w_ref = SIM_JOINED
        p_same = np.where(np.isnan(best), p_same, w_in * p_same + w_ref * np.nan_to_num(best))
    sim = np.where(same, 1.0, np.where(empty, 0.0, p_same))
    recall = feats[:, PAIR.index("recall")]

    fl_in = np.array(many("fl", inputs, p_fluent), dtype=np.float64)
    fl_out = np.array(many("fl", outputs, p_fluent), dtype=np.float64)
    fl = np.where(same, 1.0, np.where(empty, 0.0, relative_fluency(fl_in, fl_out, heads.fl_noise)))

    ident_in: list[str | None] = [None] * n
    ident_out: list[str | None] = [None] * n
    if lang in IDENTIFIED:
        # Only an output that keeps little of its input's wording can be in another
        # language: lingua reads those alone (most rewrites keep most words).
        ask = [k for k in range(n) if not same[k] and recall[k] < LINGUA_BELOW_RECALL]
        if ask:
            for k, v in zip(ask, many("lingua", [inputs[k] for k in ask], identify)):
                ident_in[k] = v
            for k, v in zip(ask, many("lingua", [outputs[k] for k in ask], identify)):
                ident_out[k] = v
    wrong = wrong_language(lang, inputs, outputs, ident_in, ident_out) & ~same if n else np.zeros(0, bool)
    sim = np.where(wrong, sim * WRONG_LANGUAGE_FACTOR, sim)
    fl = np.where(wrong, fl * WRONG_LANGUAGE_FACTOR, fl)
    chrf = sentence_chrf(outputs, references)
    return {"sta": sta, "sta_raw": sta_raw, "sta_in": sta_in, "sim": sim, "cos": cos, "recall": recall,
            "fl": fl, "fl_in": fl_in, "fl_out": fl_out, "wrong_language": wrong.astype(float), "chrf": chrf}
