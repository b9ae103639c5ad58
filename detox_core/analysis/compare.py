"""Comparing systems on the same inputs: per-sentence differences, win/tie/loss, and
paired bootstrap significance with intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from detox_core.stats.bootstrap import bootstrap_ci, macro_weights, resample_indices, stratified_indices
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
    if "lang" in first and (first["lang"] != "").any():  # a multilingual corpus: each sentence's language
        table["lang"] = first["lang"].to_numpy()
    for name in names:
        f = frames[name]
        table[f"output:{name}"] = f["output"].to_numpy()
        for axis in AXES:  # a column the frame lacks (a reference metric not stored then): no score
            table[f"{axis}:{name}"] = f[axis].to_numpy() if axis in f else np.full(len(f), np.nan)
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


def system_means(table: pd.DataFrame, systems: Sequence[str], n_boot: int = 1000, seed: int = 0,
                 by_language: bool = False) -> pd.DataFrame:
    """Per system and axis: the mean with its 95% bootstrap interval over sentences
    (columns ``system``, ``axis``, ``mean``, ``low``, ``high``).

    ``by_language`` (a table with ``lang``): the mean over languages, resampling within each
    language; languages where the system has no score on an axis are left out of it
    (column ``unscored``), never counted as zero.
    """
    n = len(table)
    idx = resample_indices(n, n_boot, seed) if n else None
    rows = []
    for name in systems:
        for axis in AXES:
            values = table[f"{axis}:{name}"].to_numpy(float)
            if by_language:
                keep, unscored = _scored_languages(table, [values])
                mean, low, high = _language_ci(values[keep], table["lang"].to_numpy()[keep], n_boot, seed)
                rows.append({"system": name, "axis": axis, "mean": mean, "low": low, "high": high,
                             "unscored": ", ".join(unscored)})
                continue
            mean, low, high = bootstrap_ci(values, n_boot=n_boot, seed=seed, indices=idx)
            rows.append({"system": name, "axis": axis, "mean": mean, "low": low, "high": high})
    return pd.DataFrame(rows)


def _scored_languages(table: pd.DataFrame, columns: Sequence[np.ndarray]) -> tuple[np.ndarray, list[str]]:
    """Sentences every column has a score for, and the languages where none has (chrF
    without references). A single sentence without a score (an LLM judge's missing answer)
    is left out of its language's mean, not the whole language."""
    langs = table["lang"].to_numpy()
    missing = np.zeros(len(table), dtype=bool)
    for values in columns:
        missing |= np.isnan(values)
    scored = set(langs[~missing].tolist())
    unscored = [lang for lang in dict.fromkeys(langs.tolist()) if lang not in scored]
    return ~missing, unscored


def _language_ci(values: np.ndarray, langs: np.ndarray, n_boot: int, seed: int) -> tuple[float, float, float]:
    if not values.size:
        return float("nan"), float("nan"), float("nan")
    return bootstrap_ci(values, n_boot, seed=seed, indices=stratified_indices(langs, n_boot, seed),
                        weights=macro_weights(langs))


def per_language_means(table: pd.DataFrame, systems: Sequence[str], axis: str = "j") -> pd.DataFrame:
    """One row per system: its mean of ``axis`` in each language (columns in the table's
    order of languages; NaN where no sentence of the language is scored)."""
    langs = list(dict.fromkeys(table["lang"]))
    rows = [{"system": name, **table.groupby("lang", sort=False)[f"{axis}:{name}"].mean().reindex(langs).to_dict()}
            for name in systems]
    return pd.DataFrame(rows, columns=["system", *langs])


def paired_differences(table: pd.DataFrame, systems: Sequence[str], n_boot: int = 1000, seed: int = 0,
                       alpha: float = 0.05, by_language: bool = False) -> pd.DataFrame:
    """Paired bootstrap over sentences for every pair of ``systems`` on every axis.

    The same resamples of sentences serve every pair and axis (as on the leaderboard).
    Sentences where either system has no score on an axis (chrF without references)
    are left out of that axis.

    Returns:
        One row per pair and axis: ``a``, ``b``, ``axis``, ``n`` (sentences), ``delta``
        (mean of A - B), ``low`` / ``high`` (its percentile interval), ``p`` (two-sided,
        the share of resamples whose mean difference has the other sign, doubled) and
        ``significant`` (p < ``alpha``).

    ``by_language`` (a table with ``lang``): A - B is the difference of the means over
    languages, resampling sentences within each language; a language where either system
    has no score on the axis is left out of it and named in ``unscored``.
    """
    rows = []
    full = resample_indices(len(table), n_boot, seed) if len(table) else None
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            for axis in AXES:
                diff = (table[f"{axis}:{a}"] - table[f"{axis}:{b}"]).to_numpy(float)
                weights = None
                if by_language:
                    keep, unscored = _scored_languages(table, [diff])
                    langs = table["lang"].to_numpy()[keep]
                else:
                    keep, unscored = ~np.isnan(diff), []
                diff = diff[keep]
                row = {"a": a, "b": b, "axis": axis, "n": int(diff.size)}
                if by_language:
                    row["unscored"] = ", ".join(unscored)
                if not diff.size:
                    rows.append({**row, "delta": np.nan, "low": np.nan, "high": np.nan, "p": np.nan,
                                 "significant": False})
                    continue
                if by_language:
                    idx, weights = stratified_indices(langs, n_boot, seed), macro_weights(langs)
                else:
                    idx = full if keep.all() else resample_indices(diff.size, n_boot, seed)
                means = diff[idx].mean(axis=1) if weights is None else (diff[idx] * weights).sum(axis=1)
                observed = float(diff.mean() if weights is None else (diff * weights).sum())
                if observed == 0:
                    p = 1.0
                else:
                    p = float(min(1.0, 2 * np.mean(means <= 0 if observed > 0 else means >= 0)))
                low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
                rows.append({**row, "delta": observed, "low": float(low), "high": float(high), "p": p,
                             "significant": p < alpha})
    return pd.DataFrame(rows, columns=["a", "b", "axis", "n", "delta", "low", "high", "p", "significant",
                                       *(["unscored"] if by_language else [])])
