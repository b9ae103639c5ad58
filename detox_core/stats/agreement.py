"""Agreement of automatic scores with people: correlations and ROC-AUC per sentence, and
per system, each with a bootstrap interval.

Sentence level (:func:`agreement`): Spearman, Pearson and ROC-AUC, resampling sentences.
System level (:func:`system_agreement`, :func:`system_spearman_draws`): the systems' mean
scores against their mean human labels. Two designs of resampling, one function:

* every system judged on its own sentences (a human evaluation's sample): a resample
  draws sentences within each system;
* every system scored on the same inputs (``items``: a test set): a resample draws
  inputs, the same ones for every system (paired, as Koehn 2004).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from detox_core.stats.bootstrap import percentile_interval, resample_indices


@dataclass
class Agreement:
    """Agreement of an automatic score with a human label, each with a 95% interval."""

    n: int
    spearman: tuple[float, float, float]
    pearson: tuple[float, float, float]
    roc_auc: tuple[float, float, float]


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman correlation: Pearson of average ranks (NaN when one side is constant)."""
    return pearson(rankdata(x), rankdata(y))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation (NaN when one side is constant)."""
    if np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def roc_auc(score: np.ndarray, label: np.ndarray, positive_from: float = 0.5) -> float:
    """ROC-AUC of ``score`` against the labels ``label >= positive_from`` (the positives):
    the Mann-Whitney statistic of the scores' average ranks (ties count half), as
    ``sklearn.metrics.roc_auc_score`` gives it. Pairs with a NaN score or label are left
    out; NaN when one class is empty.

    ``positive_from`` says what a positive is: 0.5 for labels averaged over annotators
    (a majority says yes), 1 where only a full yes counts.
    """
    score, label = np.asarray(score, float), np.asarray(label, float)
    ok = np.isfinite(score) & np.isfinite(label)
    score, positive = score[ok], label[ok] >= positive_from
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((rankdata(score)[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


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
        percentile_interval(spearman(x, y), _rowwise_pearson(rx, ry), alpha),
        percentile_interval(pearson(x, y), _rowwise_pearson(xs, ys), alpha),
        percentile_interval(roc_auc(x, y), _rowwise_auc(rx, ys >= 0.5), alpha),
    )


def system_means(metric: np.ndarray, human: np.ndarray, systems: np.ndarray, items: np.ndarray | None = None,
                 n_boot: int = 1000, seed: int = 0) -> tuple[list, np.ndarray, np.ndarray]:
    """The systems' mean metric and mean human label, observed and resampled.

    Args:
        metric, human: one value per row (a system's sentence); NaN ones are left out of
            the means. A human label known only per system is that value on each of its rows.
        systems: each row's system.
        items: each row's input, when every system scored the same inputs: a resample draws
            inputs, the same for every system. Without it, sentences are drawn within each
            system.

    Returns:
        The system names (sorted), and two ``(n_boot + 1) x systems`` matrices of means
        (metric, human); row 0 is the observed data.
    """
    x, y, s = np.asarray(metric, float), np.asarray(human, float), np.asarray(systems)
    names = sorted(set(s.tolist()))
    rng = np.random.default_rng(seed)
    xm = np.empty((n_boot + 1, len(names)))
    ym = np.empty_like(xm)
    if items is None:
        for k, name in enumerate(names):
            g = np.flatnonzero(s == name)
            idx = np.vstack([np.arange(len(g)), rng.integers(0, len(g), size=(n_boot, len(g)))])
            xm[:, k] = np.nanmean(x[g][idx], axis=1)
            ym[:, k] = np.nanmean(y[g][idx], axis=1)
        return names, xm, ym
    keys, codes = np.unique(np.asarray(items), return_inverse=True)
    column = {name: k for k, name in enumerate(names)}
    xg = np.full((len(names), keys.size), np.nan)  # systems x inputs
    yg = np.full_like(xg, np.nan)
    rows = np.array([column[v] for v in s.tolist()], dtype=int)
    xg[rows, codes], yg[rows, codes] = x, y
    idx = np.vstack([np.arange(keys.size), rng.integers(0, keys.size, size=(n_boot, keys.size))])
    with np.errstate(invalid="ignore"):
        for r, row in enumerate(idx):
            xm[r] = np.nanmean(xg[:, row], axis=1)
            ym[r] = np.nanmean(yg[:, row], axis=1)
    return names, xm, ym


def _ranks(means: np.ndarray) -> np.ndarray:
    """Average ranks row by row; means equal to 12 decimals tie (a mean of equal labels
    is that label up to rounding)."""
    return rankdata(np.round(means, 12), axis=1)


def system_spearman_draws(metric: np.ndarray, human: np.ndarray, systems: np.ndarray,
                          items: np.ndarray | None = None, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """System-level Spearman of :func:`system_means`: the observed value, then one per
    resample (``n_boot + 1`` values), for callers that pool resamples before the interval."""
    _, xm, ym = system_means(metric, human, systems, items, n_boot, seed)
    return _rowwise_pearson(_ranks(xm), _ranks(ym))


def system_agreement(metric: np.ndarray, human: np.ndarray, systems: np.ndarray, n_boot: int = 1000,
                     alpha: float = 0.05, seed: int = 0,
                     items: np.ndarray | None = None) -> dict[str, tuple[float, float, float] | int]:
    """System-level agreement: Spearman and Pearson of per-system means, and the ranking
    accuracy (share of system pairs both order the same way), each with a percentile
    interval over the resamples of :func:`system_means`."""
    names, xm, ym = system_means(metric, human, systems, items, n_boot, seed)
    rho = _rowwise_pearson(_ranks(xm), _ranks(ym))
    r = _rowwise_pearson(xm, ym)
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    if pairs:
        agree = np.mean([np.sign(xm[:, i] - xm[:, j]) == np.sign(ym[:, i] - ym[:, j]) for i, j in pairs], axis=0)
    else:
        agree = np.full(n_boot + 1, np.nan)
    out: dict[str, tuple[float, float, float] | int] = {"n_systems": len(names)}
    for name, values in (("spearman", rho), ("pearson", r), ("ranking_accuracy", agree)):
        out[name] = percentile_interval(float(values[0]), values[1:], alpha)
    return out


def paired_system_spearman(by_system: Mapping[str, np.ndarray], human: Mapping[str, float], n_boot: int = 1000,
                           seed: int = 0) -> np.ndarray:
    """:func:`system_spearman_draws` of systems scored on the same inputs (``by_system``:
    each system's per-input scores, in one order) against one human figure per system."""
    names = list(by_system)
    n = len(by_system[names[0]]) if names else 0
    metric = np.concatenate([np.asarray(by_system[s], float) for s in names]) if names else np.zeros(0)
    return system_spearman_draws(metric, np.repeat([float(human[s]) for s in names], n), np.repeat(names, n),
                                 np.tile(np.arange(n), len(names)), n_boot, seed)
