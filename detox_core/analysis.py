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


def resample_indices(n: int, n_boot: int = 1000, seed: int = 0) -> np.ndarray:
    """``n_boot`` x ``n`` sentence indices drawn with replacement (shared by all systems)."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def bootstrap_ci(values: np.ndarray, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0,
                 indices: np.ndarray | None = None) -> tuple[float, float, float]:
    """Mean and percentile bootstrap interval ``(mean, low, high)``; NaNs are ignored."""
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    values = values[keep]
    if values.size == 0:
        return float("nan"), float("nan"), float("nan")
    idx = resample_indices(values.size, n_boot, seed) if indices is None or not keep.all() else indices
    means = values[idx].mean(axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(values.mean()), float(lo), float(hi)


def paired_bootstrap_p(a: np.ndarray, b: np.ndarray, n_boot: int = 1000, seed: int = 0,
                       indices: np.ndarray | None = None) -> float:
    """Two-sided p-value of "mean(a) == mean(b)" by paired bootstrap over sentences.

    The share of resamples in which the sign of the difference flips relative to the
    observed one, doubled (and capped at 1).
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("paired bootstrap needs scores of the same sentences")
    diff = a - b
    observed = diff.mean()
    if observed == 0:
        return 1.0
    idx = resample_indices(diff.size, n_boot, seed) if indices is None else indices
    resampled = diff[idx].mean(axis=1)
    flips = np.mean(resampled <= 0) if observed > 0 else np.mean(resampled >= 0)
    return float(min(1.0, 2 * flips))


@dataclass
class Ranking:
    """Systems ordered by mean, with intervals, rank ranges and tie groups."""

    table: pd.DataFrame  # system, mean, low, high, rank_low, rank_high, group
    p_values: pd.DataFrame  # system x system


def rank_systems(scores: Mapping[str, np.ndarray], n_boot: int = 1000, alpha: float = 0.05, seed: int = 0) -> Ranking:
    """Rank systems scored on the same sentences (per-sentence arrays of equal length).

    ``group`` numbers clusters of statistically tied systems: walking down the ranking,
    a system opens a new group when it is significantly worse than the first system of
    the current group.
    """
    names = list(scores)
    n = len(next(iter(scores.values()))) if names else 0
    if any(len(v) != n for v in scores.values()):
        raise ValueError("every system must be scored on the same sentences")
    idx = resample_indices(n, n_boot, seed) if n else np.zeros((0, 0), dtype=int)
    stats = {s: bootstrap_ci(scores[s], n_boot, alpha, seed, idx) for s in names}
    order = sorted(names, key=lambda s: -stats[s][0])
    p = pd.DataFrame(1.0, index=order, columns=order)
    for i, s in enumerate(order):
        for t in order[i + 1:]:
            p.loc[s, t] = p.loc[t, s] = paired_bootstrap_p(scores[s], scores[t], n_boot, seed, idx)
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
