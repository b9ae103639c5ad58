"""The embedded preset's per-sentence axes in every language, from its trained heads
(:mod:`detox_core.metrics.embedded.heads`) and its model of meaning.

For a toxic input x and an output y of language ``lang``:

- **STA** = ``(P(y) + max(gain, sqrt(removed P(y)))) / 2`` with P = P(neutral) of the STA heads,
  ``gain = clip(P(y) - P(x), 0, 1)`` and ``removed`` the share of the input's toxic words (those
  the character head reads as toxic, weighted by how toxic) the output no longer holds
  (:func:`relative_sta`): an output that is still rude scores low however much it deleted, one
  that dropped the input's insults gets its share even where the classifier already thought the
  input neutral. An output that changes nothing but case and punctuation is the toxic input
  itself (every input of the task is toxic): STA 0.
- **SIM** = P(same meaning | x, y) of the pair heads (the cosine, the length ratio, the input's
  non-toxic words kept, and the two vectors' ``|x - y|`` and ``x * y``; :meth:`Heads.p_same`); with references, joined
  like the official 2025 SIM-JOINED: ``0.4 P(x, y) + 0.6 max_r P(r, y)`` (its published
  weights). A copy gets 1, an empty output 0.
- **FL** = relative, like the official FL: ``2 Phi(min(0, F(y) - F(x)) / (2 s))`` with F =
  P(fluent) of the fluency heads and s the language's spread of F between two equally fluent
  texts (measured at training on two rewrites of one input, scaled per language by how widely
  F ranges over the language's own sentences): an output at least as fluent as its input gets
  1, a fragment a deletion left behind less.
- **Wrong language**: an output in another script than its input, or that ``lingua`` places
  in another language (Latin and Cyrillic languages it knows), keeps ``1 - P(another
  language)`` of its SIM and FL (:func:`~detox_core.languages.detect.wrong_language_share`; at
  least :data:`WRONG_LANGUAGE_FLOOR`): the model of meaning is cross-lingual, so a translation
  keeps its cosine, and a text the identifier is unsure of loses less than a sure one.
- **chrF** against the references, NaN without them (a column of its own, not a part of J).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import ndtr

from detox_core.models import meaning
from detox_core.metrics.embedded.heads import PAIR, TOXIC_WORD, Heads, pair_features, sta_text
from detox_core.languages.detect import IDENTIFIED, identify, wrong_language_share

#: FL's unit of a fall: this many times the spread of F between two people's rewrites
FL_WIDTH = 2.0
#: SIM with references: the official 2025 SIM-JOINED's weights of the input and the references
SIM_JOINED = (0.4, 0.6)
#: an output surely in another language keeps this share of its SIM and FL (one the language
#: identifier is unsure of keeps more)
WRONG_LANGUAGE_FLOOR = 0.05
#: outputs whose soft recall of the input's words is below this are checked by lingua
LINGUA_BELOW_RECALL = 0.6
PARAMS = {"sta": {"relative": "(P(y) + max(clip(P(y) - P(x), 0, 1), sqrt(removed * P(y)))) / 2",
                  "toxic_word": TOXIC_WORD,
                  "heads": "mean of vector and hashed character n-gram logistic regressions"},
          "sim": {"head": "mean of a logistic regression over the cosine, the length ratio, the input's "
                          "non-toxic words kept, |x - y| and x * y, and one over the cosine and the length ratio",
                  "with_references": "0.4 P(x, y) + 0.6 max over r of P(r, y)"},
          "fl": {"relative": "2 Phi(min(0, F(y) - F(x)) / (width * s))", "width": FL_WIDTH,
                 "heads": "mean of vector+surface and hashed token-bigram logistic regressions"},
          "wrong_language": {"keeps": "max(floor, 1 - P(another language))", "floor": WRONG_LANGUAGE_FLOOR,
                             "lingua_below_recall": LINGUA_BELOW_RECALL}}

Memo = Callable[[str, Sequence[str], Callable[[list[str]], list]], list]


def relative_sta(p_out: np.ndarray, p_in: np.ndarray, toxic_left: np.ndarray | None = None) -> np.ndarray:
    """``(P(y) + max(gain, sqrt(removed * P(y)))) / 2``: ``gain = clip(P(y) - P(x), 0, 1)``, what the
    classifier says the output removed, and ``removed`` the share of the input's toxic words
    (``1 - toxic_left``) the output no longer holds (where the input has none, the gain alone
    counts). No division by ``1 - P(x)``: an input the classifier misses (P(x) near 1) does not make small changes of P
    flip the score, and an output that dropped the input's insults is not halved because the
    classifier already thought the input neutral. Never above ``(P(y) + 1) / 2``, and an output
    the classifier thinks toxic (P(y) near 0) stays near 0 whatever it deleted."""
    p_out, p_in = np.asarray(p_out, np.float64), np.asarray(p_in, np.float64)
    gain = np.clip(p_out - p_in, 0.0, 1.0)
    left = np.full_like(p_out, np.nan) if toxic_left is None else np.asarray(toxic_left, np.float64)
    removed = np.clip(1.0 - np.nan_to_num(left), 0.0, 1.0)
    share = np.where(np.isnan(left), gain, np.maximum(gain, np.sqrt(removed * p_out)))
    return (p_out + share) / 2.0


def relative_fluency(f_in: np.ndarray, f_out: np.ndarray, noise: float) -> np.ndarray:
    """``2 Phi(min(0, F(y) - F(x)) / (FL_WIDTH * noise))``: 1 when the output is at least as fluent."""
    return 2.0 * ndtr(np.minimum(0.0, np.asarray(f_out) - np.asarray(f_in)) / (FL_WIDTH * max(noise, 1e-6)))


def _vectors(a: Sequence[str], b: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit vectors of ``a`` and ``b`` (the SIM head reads them) and each pair's cosine."""
    if not len(a):
        return np.zeros((0, meaning.DIM)), np.zeros((0, meaning.DIM)), np.zeros(0)
    va, vb = meaning.embed(a), meaning.embed(b)
    return va, vb, np.einsum("ij,ij->i", va.astype(np.float64), vb.astype(np.float64))


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
    empty = np.array([not o.strip() for o in outputs], dtype=bool)
    same = np.array([o.strip() == i.strip() for i, o in zip(inputs, outputs)], dtype=bool)

    vx, vy, cos = _vectors(inputs, outputs)
    feats = pair_features(inputs, outputs, [lang] * n, cos, heads.word_toxicity)
    sta = relative_sta(sta_raw, sta_in, feats[:, PAIR.index("toxic_left")])
    unchanged = np.array([sta_text(i) == sta_text(o) for i, o in zip(inputs, outputs)], dtype=bool)
    sta = np.where(unchanged, 0.0, sta)
    p_same = heads.p_same(feats, vx, vy)
    # With references, as SIM-JOINED: the output against the input and against its closest reference.
    with_ref = [(k, r) for k in range(n) for r in (references[k] if k < len(references) else []) if r and r.strip()]
    if with_ref:
        ks, rs = [k for k, _ in with_ref], [r for _, r in with_ref]
        outs = [outputs[k] for k in ks]
        vr, vo, cos_ref = _vectors(rs, outs)
        p_ref = heads.p_same(pair_features(rs, outs, [lang] * len(ks), cos_ref, heads.word_toxicity), vr, vo)
        best = np.full(n, np.nan)
        for k, p in zip(ks, p_ref):
            best[k] = p if np.isnan(best[k]) else max(best[k], p)
        w_in, w_ref = SIM_JOINED
        p_same = np.where(np.isnan(best), p_same, w_in * p_same + w_ref * np.nan_to_num(best))
    sim = np.where(same, 1.0, np.where(empty, 0.0, p_same))
    recall = feats[:, PAIR.index("recall")]

    fl_in = np.array(many("fl", inputs, p_fluent), dtype=np.float64)
    fl_out = np.array(many("fl", outputs, p_fluent), dtype=np.float64)
    fl = np.where(same, 1.0, np.where(empty, 0.0, relative_fluency(fl_in, fl_out, heads.noise(lang))))

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
    wrong = wrong_language_share(lang, inputs, outputs, ident_in, ident_out) * ~same if n else np.zeros(0)
    keep = np.maximum(WRONG_LANGUAGE_FLOOR, 1.0 - wrong)
    sim, fl = sim * keep, fl * keep
    chrf = sentence_chrf(outputs, references)
    return {"sta": sta, "sta_raw": sta_raw, "sta_in": sta_in, "sim": sim, "cos": cos, "recall": recall,
            "fl": fl, "fl_in": fl_in, "fl_out": fl_out, "wrong_language": wrong, "chrf": chrf}
