"""Scores language by language, and the multilingual ranking of the TextDetox editions.

TextDetox ranks a system by the mean over languages of its J (each language's mean J
counts once, whatever its number of sentences). Intervals and significance resample
sentences within each language (a stratified paired bootstrap), so every resample keeps
each language's size; per-language rankings resample within that language only.

A language whose sentences have no score on an axis (chrF and the 2024 FL need
references) is left out of that axis's mean and named in :attr:`LanguageRanking.unscored`,
never counted as zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from detox_core.analysis.stats import Ranking, rank_systems
from detox_core.errors import DetoxInputError
from detox_core.vocab import SCORE_COLUMNS


def per_language(frame: pd.DataFrame, columns: tuple[str, ...] = SCORE_COLUMNS) -> pd.DataFrame:
    """One row per language (in order of appearance): ``lang``, ``n`` and the mean of each
    score column over the language's scored sentences (NaN when none is scored). The
    mean over languages is :func:`language_mean`."""
    if "lang" not in frame:
        raise DetoxInputError("per-language scores need a 'lang' column")
    present = [c for c in columns if c in frame]
    grouped = frame.groupby("lang", sort=False)
    out = grouped[present].mean()
    out.insert(0, "n", grouped.size())
    return out.reset_index()


def language_mean(frame: pd.DataFrame, column: str = "j") -> tuple[float, list[str]]:
    """The mean over languages of ``column`` (each language's mean counting once) and the
    languages left out because none of their sentences has a score on it."""
    means = per_language(frame, (column,))
    unscored = means.loc[means[column].isna(), "lang"].tolist()
    scored = means[column].dropna()
    return (float(scored.mean()) if len(scored) else float("nan")), unscored


@dataclass
class LanguageRanking:
    """Systems ranked by the mean over languages, and within each language.

    Attributes:
        overall: the ranking by the mean over the scored languages (stratified bootstrap).
        by_language: language -> the ranking within that language.
        table: one row per system: ``system``, ``mean`` and its interval, rank range and
            group (from ``overall``), then one column per language (that language's mean).
        unscored: languages left out because a system has no score there.
    """

    overall: Ranking
    by_language: dict[str, Ranking]
    table: pd.DataFrame
    unscored: list[str] = field(default_factory=list)


def rank_by_language_mean(scores: Mapping[str, pd.DataFrame], column: str = "j", n_boot: int = 1000,
                          alpha: float = 0.05, seed: int = 0) -> LanguageRanking:
    """Rank systems scored on the same multilingual inputs by the mean over languages.

    Args:
        scores: system -> per-sentence frame with ``lang`` and ``column``, rows in the same
            order for every system (the split's inputs).

    Raises:
        DetoxInputError: frames of different inputs (lengths or languages differ).
    """
    names = list(scores)
    if not names:
        raise DetoxInputError("nothing to rank")
    first = scores[names[0]]
    langs = first["lang"].to_numpy()
    for name in names[1:]:
        other = scores[name]
        if len(other) != len(first) or not np.array_equal(other["lang"].to_numpy(), langs):
            raise DetoxInputError(f"{name} does not answer the same inputs as {names[0]}")
    unscored = sorted({lang for name in names for lang in
                       scores[name].loc[scores[name][column].isna(), "lang"].unique()})
    keep = ~np.isin(langs, unscored)
    if not keep.any():
        raise DetoxInputError(f"no language has {column} scores for every system")
    values = {name: scores[name][column].to_numpy(dtype=float)[keep] for name in names}
    overall = rank_systems(values, n_boot, alpha, seed, strata=langs[keep])
    by_language = {}
    for lang in dict.fromkeys(langs[keep].tolist()):
        mask = langs[keep] == lang
        by_language[lang] = rank_systems({n: v[mask] for n, v in values.items()}, n_boot, alpha, seed)
    table = overall.table.copy()
    for lang, ranking in by_language.items():
        table[lang] = table["system"].map(ranking.table.set_index("system")["mean"])
    return LanguageRanking(overall, by_language, table, unscored)
