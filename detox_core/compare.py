"""Comparing systems on the same inputs: per-sentence differences and win/tie/loss."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

AXES = ("sta", "sim", "fl", "j", "chrf")


def side_by_side(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per input: the input, each system's output and scores (``<axis>:<system>``).

    Raises:
        ValueError: the systems do not answer the same inputs.
    """
    names = list(frames)
    if len(names) < 2:
        raise ValueError("compare needs at least two systems")
    first = frames[names[0]]
    for name in names[1:]:
        other = frames[name]
        if len(other) != len(first) or list(other["input"]) != list(first["input"]):
            raise ValueError(f"{name} does not answer the same inputs as {names[0]}")
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
