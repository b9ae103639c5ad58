"""Statistics over per-sentence scores: bootstrap intervals, paired significance, ranks.

Paired bootstrap resampling over sentences (Koehn, 2004): every resample draws the same
sentence indices for all systems, so differences between systems are compared on the
same inputs. Systems are then ranked with rank ranges (WMT style): a system's best
possible rank is one plus the number of systems significantly better than it, its worst
one the number of systems minus those significantly worse.
"""

from __future__ import annotations

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


def percentile_interval(point: float, boots: np.ndarray, alpha: float = 0.05) -> tuple[float, float, float]:
    """``(point, low, high)``: the percentile interval of the bootstrap values ``boots``
    (NaN ones left out); low and high are NaN when there is no value or no point."""
    boots = np.asarray(boots, float)
    boots = boots[~np.isnan(boots)]
    if boots.size == 0 or point != point:
        return point, float("nan"), float("nan")
    lo, hi = np.quantile(boots, [alpha / 2, 1 - alpha / 2])
    return point, float(lo), float(hi)
