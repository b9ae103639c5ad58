"""Comparing systems on the same inputs: per-sentence differences, win/tie/loss, and
paired bootstrap significance with intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from detox_core.analysis.stats import bootstrap_ci, resample_indices
from detox_core.errors import DetoxInputError
from detox_core.vocab import SCORE_COLUMNS

AXES = SCORE_COLUMNS


def side_by_side(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per input: the input, each system's output and scores (``<axis>:<system>``).

    Raises:
        ValueError: the systems do not answer the same inputs.
    """
    names = list(frames)
    if len(names) < 2:
        raise DetoxInputError("compare needs at least two systems")
    first = frames[names[0]]
    for name in names[1:]:
        other = frames[name]
        if len(other) != len(first) or list(other["input"]) != list(first["input"]):
            raise DetoxInputError(f"{name} does not answer the same inputs as {names[0]}")
    table = pd.DataFrame({"line": first["idx"] + 1, "input": first["input"]})
    for name in names:
        f = frames[name]
        table[f"output:{name}"] = f["output"].to_numpy()
        for axis in AXES:
            table[f"{axis}:{name}"] = f[axis].to_numpy()
    return table


def largest_differences(table: pd.DataFrame, a: str, b: str, axis: str = "j") -> pd.DataFrame:
    """Rows ordered by the absolute difference of ``axis`` between systems ``a`` and ``b``."""
    out = table.copy()
    out["delta"] = out[f"{axis}:{a}"] - out[f"{axis}:{b}"]
    return out.reindex(out["delta"].abs().sort_values(ascending=False, kind="stable").index)


def win_tie_loss(table: pd.DataFrame, a: str, b: str, tie: float = 0.05) -> pd.DataFrame:
    """Per axis, sentences where ``a`` scores higher than ``b`` by more than ``tie``,
    within ``tie`` of it, or lower; identical outputs count as ties."""
    same = table[f"output:{a}"] == table[f"output:{b}"]
    rows = []
    for axis in AXES:
        d = (table[f"{axis}:{a}"] - table[f"{axis}:{b}"]).to_numpy()
        valid = ~np.isnan(d)
        win = int(np.sum(valid & ~same & (d > tie)))
        loss = int(np.sum(valid & ~same & (d < -tie)))
        rows.append({"axis": axis, "win": win, "tie": int(np.sum(valid)) - win - loss, "loss": loss})
    return pd.DataFrame(rows)


def system_means(table: pd.DataFrame, systems: Sequence[str], n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per system and axis: the mean with its 95% bootstrap interval over sentences
    (columns ``system``, ``axis``, ``mean``, ``low``, ``high``)."""
    n = len(table)
    idx = resample_indices(n, n_boot, seed) if n else None
    rows = []
    for name in systems:
        for axis in AXES:
            mean, low, high = bootstrap_ci(table[f"{axis}:{name}"].to_numpy(float), n_boot=n_boot, seed=seed,
                                           indices=idx)
            rows.append({"system": name, "axis": axis, "mean": mean, "low": low, "high": high})
    return pd.DataFrame(rows)


def paired_differences(table: pd.DataFrame, systems: Sequence[str], n_boot: int = 1000, seed: int = 0,
                       alpha: float = 0.05) -> pd.DataFrame:
    """Paired bootstrap over sentences for every pair of ``systems`` on every axis.

    The same resamples of sentences serve every pair and axis (as on the leaderboard).
    Sentences where either system has no score on an axis (chrF without references)
    are left out of that axis.

    Returns:
        One row per pair and axis: ``a``, ``b``, ``axis``, ``n`` (sentences), ``delta``
        (mean of A - B), ``low`` / ``high`` (its percentile interval), ``p`` (two-sided,
        the share of resamples whose mean difference has the other sign, doubled) and
        ``significant`` (p < ``alpha``).
    """
    rows = []
    full = resample_indices(len(table), n_boot, seed) if len(table) else None
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            for axis in AXES:
                diff = (table[f"{axis}:{a}"] - table[f"{axis}:{b}"]).to_numpy(float)
                keep = ~np.isnan(diff)
                diff = diff[keep]
                row = {"a": a, "b": b, "axis": axis, "n": int(diff.size)}
                if not diff.size:
                    rows.append({**row, "delta": np.nan, "low": np.nan, "high": np.nan, "p": np.nan,
                                 "significant": False})
                    continue
                idx = full if keep.all() else resample_indices(diff.size, n_boot, seed)
                means = diff[idx].mean(axis=1)
                observed = float(diff.mean())
                if observed == 0:
                    p = 1.0
                else:
                    p = float(min(1.0, 2 * np.mean(means <= 0 if observed > 0 else means >= 0)))
                low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
                rows.append({**row, "delta": observed, "low": float(low), "high": float(high), "p": p,
                             "significant": p < alpha})
    return pd.DataFrame(rows, columns=["a", "b", "axis", "n", "delta", "low", "high", "p", "significant"])
