"""Statistics over per-sentence scores: bootstrap intervals, paired significance, ranks.

Paired bootstrap resampling over sentences (Koehn, 2004): every resample draws the same
sentence indices for all systems, so differences between systems are compared on the
same inputs. Systems are then ranked with rank ranges (WMT style): a system's best
possible rank is one plus the number of systems significantly better than it, its worst
one the number of systems minus those significantly worse.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from detox_core.errors import DetoxInputError


def resample_indices(n: int, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """``n_boot`` x ``n`` sentence indices drawn with replacement (shared by all systems)."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def stratified_indices(strata: np.ndarray, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """``n_boot`` x ``n`` indices drawn with replacement *within* each stratum (a language):
    position i always holds a sentence of its own stratum, so every resample keeps each
    language's size. With one stratum it is :func:`resample_indices`."""
    strata = np.asarray(strata)
    labels = list(dict.fromkeys(strata.tolist()))
    if len(labels) <= 1:
        return resample_indices(len(strata), n_boot, seed)
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, len(strata)), dtype=np.int64)
    for label in labels:
        where = np.flatnonzero(strata == label)
        out[:, where] = where[rng.integers(0, where.size, size=(n_boot, where.size))]
    return out


def macro_weights(strata: np.ndarray) -> np.ndarray:
    """Per-sentence weights whose weighted sum is the mean over strata of each stratum's
    mean (the TextDetox ranking: the mean over languages of J)."""
    strata = np.asarray(strata)
    labels, inverse, counts = np.unique(strata, return_inverse=True, return_counts=True)
    return 1.0 / (counts[inverse] * len(labels))


def _mean(values: np.ndarray, weights: np.ndarray | None, axis: int | None = None) -> np.ndarray | float:
    return values.mean(axis=axis) if weights is None else (values * weights).sum(axis=axis)


def bootstrap_ci(values: np.ndarray, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0,
                 indices: np.ndarray | None = None, weights: np.ndarray | None = None) -> tuple[float, float, float]:
    """Mean and percentile bootstrap interval ``(mean, low, high)``; NaNs are ignored.

    With ``weights`` (and the matching stratified ``indices``, see :func:`macro_weights`)
    the statistic is the weighted mean; the values must then have no NaN.
    """
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    if weights is not None and not keep.all():
        raise DetoxInputError("a weighted (per-language) mean needs a score for every sentence")
    values = values[keep]
    if values.size == 0:
        return float("nan"), float("nan"), float("nan")
    idx = resample_indices(values.size, n_boot, seed) if indices is None or not keep.all() else indices
    means = _mean(values[idx], weights, axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(_mean(values, weights)), float(lo), float(hi)


def paired_bootstrap_p(a: np.ndarray, b: np.ndarray, n_boot: int = 1000, seed: int = 0,
                       indices: np.ndarray | None = None, weights: np.ndarray | None = None) -> float:
    """Two-sided p-value of "mean(a) == mean(b)" by paired bootstrap over sentences.

    The share of resamples in which the sign of the difference flips relative to the
    observed one, counted as (flips + 1) / (resamples + 1) (as sacrebleu's paired test
    counts, so that a finite number of resamples never claims p = 0), doubled and capped
    at 1. Under the null hypothesis it rejects at 5% about 5% of the time
    (tests/stats/test_bootstrap.py).
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("paired bootstrap needs scores of the same sentences")
    diff = a - b
    keep = ~np.isnan(diff)  # a sentence either system has no score for (an unanswered LLM judge) is left out
    if weights is not None and not keep.all():
        raise DetoxInputError("a weighted (per-language) comparison needs a score for every sentence")
    diff = diff[keep]
    if diff.size == 0:
        return float("nan")
    observed = _mean(diff, weights)
    if observed == 0:
        return 1.0
    idx = resample_indices(diff.size, n_boot, seed) if indices is None or not keep.all() else indices
    resampled = _mean(diff[idx], weights, axis=1)
    flips = int(np.sum(resampled <= 0) if observed > 0 else np.sum(resampled >= 0))
    return float(min(1.0, 2 * (flips + 1) / (resampled.size + 1)))


@dataclass
class Ranking:
    """Systems ordered by mean, with intervals, rank ranges and tie groups."""

    table: pd.DataFrame  # system, mean, low, high, rank_low, rank_high, group
    p_values: pd.DataFrame  # system x system


def rank_systems(scores: Mapping[str, np.ndarray], n_boot: int = 1000, alpha: float = 0.05, seed: int = 0,
                 strata: np.ndarray | None = None) -> Ranking:
    """Rank systems scored on the same sentences (per-sentence arrays of equal length).

    ``group`` numbers clusters of statistically tied systems: walking down the ranking,
    a system opens a new group when it is significantly worse than the first system of
    the current group. With ``strata`` (each sentence's language) systems are ranked by
    the mean over languages, resampling sentences within each language.
    """
    names = list(scores)
    n = len(next(iter(scores.values()))) if names else 0
    if any(len(v) != n for v in scores.values()):
        raise ValueError("every system must be scored on the same sentences")
    if strata is not None and len(strata) != n:
        raise ValueError("one stratum per sentence")
    weights = macro_weights(strata) if strata is not None and n else None
    if not n:
        idx = np.zeros((0, 0), dtype=int)
    else:
        idx = stratified_indices(strata, n_boot, seed) if strata is not None else resample_indices(n, n_boot, seed)
    stats = {s: bootstrap_ci(scores[s], n_boot, alpha, seed, idx, weights) for s in names}
    order = sorted(names, key=lambda s: -stats[s][0])
    p = pd.DataFrame(1.0, index=order, columns=order)
    for i, s in enumerate(order):
        for t in order[i + 1:]:
            p.loc[s, t] = p.loc[t, s] = paired_bootstrap_p(scores[s], scores[t], n_boot, seed, idx, weights)
    better = {s: sum(1 for t in order if t != s and stats[t][0] > stats[s][0] and p.loc[s, t] < alpha) for s in order}
    worse = {s: sum(1 for t in order if t != s and stats[t][0] < stats[s][0] and p.loc[s, t] < alpha) for s in order}
    groups, group, head = {}, 0, None
    for s in order:
        if head is None or p.loc[head, s] < alpha:
            group += 1
            head = s
        groups[s] = group
    table = pd.DataFrame({
        "system": order,
        "mean": [stats[s][0] for s in order],
        "low": [stats[s][1] for s in order],
        "high": [stats[s][2] for s in order],
        "rank_low": [1 + better[s] for s in order],
        "rank_high": [len(order) - worse[s] for s in order],
        "group": [groups[s] for s in order],
    })
    return Ranking(table, p)


# ------------------------------------------------------------------ agreement with humans


@dataclass
class Agreement:
    """Agreement of an automatic score with a human label, each with a 95% interval."""

    n: int
    spearman: tuple[float, float, float]
    pearson: tuple[float, float, float]
    roc_auc: tuple[float, float, float]


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman correlation: Pearson of average ranks (NaN when one side is constant)."""
    from scipy.stats import rankdata

    return _pearson(rankdata(x), rankdata(y))


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _auc(score: np.ndarray, label: np.ndarray) -> float:
    """ROC-AUC of ``score`` against ``label >= 0.5``: the Mann-Whitney statistic of the
    scores' average ranks (ties count half), as ``sklearn.metrics.roc_auc_score`` gives it."""
    from scipy.stats import rankdata

    binary = label >= 0.5
    n_pos = int(binary.sum())
    n_neg = binary.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((rankdata(score)[binary].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _rowwise_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a * b).sum(axis=1) / den, np.nan)


def _rowwise_auc(score_ranks: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """Mann-Whitney AUC per row from average ranks of the scores (ties count half)."""
    n_pos = positive.sum(axis=1)
    n_neg = positive.shape[1] - n_pos
    rank_sum = (score_ranks * positive).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((n_pos > 0) & (n_neg > 0), (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg), np.nan)


def _interval(point: float, boots: np.ndarray, alpha: float) -> tuple[float, float, float]:
    boots = boots[~np.isnan(boots)]
    if boots.size == 0 or point != point:
        return point, float("nan"), float("nan")
    lo, hi = np.quantile(boots, [alpha / 2, 1 - alpha / 2])
    return point, float(lo), float(hi)


def resample_ranks(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Average ranks (ties share their mean rank, as ``scipy.stats.rankdata``) of
    ``values[idx]``, row by row, without sorting each resample.

    A resample holds only values of ``values``: with their ranks among the distinct values
    known once, a row's ranks follow from how many times it draws each distinct value
    (a counting sort), in O(rows x (n + distinct)) instead of O(rows x n log n).
    """
    distinct, codes = np.unique(values, return_inverse=True)
    k, rows = distinct.size, idx.shape[0]
    picked = codes.reshape(-1)[idx]
    counts = np.bincount((picked + (np.arange(rows) * k)[:, None]).ravel(), minlength=rows * k).reshape(rows, k)
    below = np.cumsum(counts, axis=1) - counts
    return np.take_along_axis(below + (counts + 1) / 2.0, picked, axis=1)


_HUMAN_RANKS: dict[tuple, np.ndarray] = {}


def _human_ranks(y: np.ndarray, idx: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """:func:`resample_ranks` of the human labels, shared by the metrics judged against the
    same labels (the resamples depend only on the size, ``n_boot`` and ``seed``); the last
    two are kept (an n_boot x n array each: 21 MB for 2,625 pairs), read-only."""
    key = (y.size, n_boot, seed, hashlib.sha1(y.tobytes()).hexdigest())
    ranks = _HUMAN_RANKS.get(key)
    if ranks is None:
        ranks = resample_ranks(y, idx)
        ranks.flags.writeable = False
        if len(_HUMAN_RANKS) >= 2:
            _HUMAN_RANKS.pop(next(iter(_HUMAN_RANKS)))
        _HUMAN_RANKS[key] = ranks
    return ranks


def agreement(metric: np.ndarray, human: np.ndarray, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0) -> Agreement:
    """Sentence-level Spearman, Pearson and ROC-AUC (human label >= 0.5 is positive) of a
    metric against human labels, with percentile bootstrap intervals over sentences."""
    x, y = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    idx = resample_indices(x.size, n_boot, seed)
    # Vectorised over resamples: Spearman is Pearson of average ranks, ROC-AUC the
    # Mann-Whitney statistic of the score ranks (both exact, ties included).
    xs, ys = x[idx], y[idx]
    rx, ry = resample_ranks(x, idx), _human_ranks(y, idx, n_boot, seed)
    return Agreement(
        int(x.size),
        _interval(spearman(x, y), _rowwise_pearson(rx, ry), alpha),
        _interval(_pearson(x, y), _rowwise_pearson(xs, ys), alpha),
        _interval(_auc(x, y), _rowwise_auc(rx, ys >= 0.5), alpha),
    )


def system_agreement(metric: np.ndarray, human: np.ndarray, systems: np.ndarray, n_boot: int = 1000,
                     alpha: float = 0.05, seed: int = 0) -> dict[str, tuple[float, float, float] | int]:
    """System-level agreement: Spearman and Pearson of per-system means, and the ranking
    accuracy (share of system pairs both order the same way); intervals by resampling
    sentences within each system."""
    from scipy.stats import rankdata

    x, y, s = np.asarray(metric, float), np.asarray(human, float), np.asarray(systems)
    names = sorted(set(s))
    groups = [np.flatnonzero(s == name) for name in names]
    rng = np.random.default_rng(seed)
    # (n_boot + 1) x n_systems matrices of means; row 0 is the observed data.
    xm = np.empty((n_boot + 1, len(names)))
    ym = np.empty_like(xm)
    for k, g in enumerate(groups):
        idx = np.vstack([np.arange(len(g)), rng.integers(0, len(g), size=(n_boot, len(g)))])
        xm[:, k] = np.nanmean(x[g][idx], axis=1)
        ym[:, k] = np.nanmean(y[g][idx], axis=1)
    spearman = _rowwise_pearson(rankdata(xm, axis=1), rankdata(ym, axis=1))
    pearson = _rowwise_pearson(xm, ym)
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    if pairs:
        agree = np.mean([np.sign(xm[:, i] - xm[:, j]) == np.sign(ym[:, i] - ym[:, j]) for i, j in pairs], axis=0)
    else:
        agree = np.full(n_boot + 1, np.nan)
    out: dict[str, tuple[float, float, float] | int] = {"n_systems": len(names)}
    for name, values in (("spearman", spearman), ("pearson", pearson), ("ranking_accuracy", agree)):
        out[name] = _interval(float(values[0]), values[1:], alpha)
    return out
