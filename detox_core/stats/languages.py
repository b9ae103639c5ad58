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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from detox_core.stats.bootstrap import Ranking, bootstrap_ci, macro_weights, rank_systems, stratified_indices
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
    # Sentences every system has a score for; a language is unscored when none is left
    # (chrF without references). A single missing score (an LLM judge's unanswered
    # question) leaves out that sentence, not its language.
    keep = np.ones(len(langs), dtype=bool)
    for name in names:
        keep &= scores[name][column].notna().to_numpy()
    unscored = sorted(set(langs.tolist()) - set(langs[keep].tolist()))
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


# ------------------------------------------------------------------ boards of submissions, partial ones apart


def coverage(covered: Sequence[str], languages: Sequence[str]) -> str:
    """How many of ``languages`` a submission answers, in words: ``"all 9"`` or
    ``"5 of 9 (no am, zh, ...)"``."""
    missing = [lang for lang in languages if lang not in covered]
    if not missing:
        return f"all {len(languages)}"
    return f"{len(languages) - len(missing)} of {len(languages)} (no {', '.join(missing)})"


@dataclass
class LanguageBoard:
    """Submissions of one preset on one split, ranked by the mean over languages.

    Attributes:
        axis: the score column ranked.
        languages: the languages asked for (the picked ones), in order.
        table: one row per submission, complete ones first (ranked), partial ones after
            (their mean over the languages they answer, unranked): ``system``,
            ``complete``, ``coverage`` (in words), ``mean_over`` (the languages its mean
            covers: "all <n>" or their codes), ``n``, ``mean``, ``low``, ``high``, ``rank_low``, ``rank_high``,
            ``group`` (NaN for partial ones), then one column per language (NaN where
            not answered or not scored).
        by_language: language -> its own ranking (every submission answering it):
            ``system``, ``mean``, ``low``, ``high``, ``rank_low``, ``rank_high``, ``group``, ``n``.
        unscored: languages with no score on ``axis`` (no references): n/a, left out of
            every mean, never zero.
        uncovered: languages the submissions answer that the preset does not cover (no
            rows): n/a, left out of every mean, never zero; the means are then over a
            subset of the languages, said in ``mean_over``.
        p_values: the complete submissions' pairwise p-values for the mean (None
            without two complete submissions).
    """

    axis: str
    languages: tuple[str, ...]
    table: pd.DataFrame
    by_language: dict[str, pd.DataFrame]
    unscored: list[str]
    p_values: pd.DataFrame | None = None
    uncovered: list[str] = field(default_factory=list)


def stratified_mean(frame: pd.DataFrame, column: str, n_boot: int = 1000, alpha: float = 0.05,
                    seed: int = 0) -> tuple[float, float, float]:
    """Mean over languages (``lang``) of ``column`` with its stratified bootstrap interval; one
    language: the plain mean and its interval."""
    frame = frame[frame[column].notna()]  # a sentence without a score is left out, not counted as zero
    strata = frame["lang"].to_numpy()
    if not len(strata):
        return float("nan"), float("nan"), float("nan")
    return bootstrap_ci(frame[column].to_numpy(dtype=float), n_boot, alpha, seed,
                        indices=stratified_indices(strata, n_boot, seed), weights=macro_weights(strata))


def mean_scope(mine: Sequence[str], languages: Sequence[str]) -> str:
    """The languages a mean is over, in words: ``"all 9"``, or ``"1 of 15: ru"`` for a mean
    over a subset (a preset that covers fewer languages than a submission answers): such a
    mean is not the edition's average and is never ranked against full means."""
    mine = [lang for lang in languages if lang in mine]
    if len(mine) == len(languages):
        return f"all {len(languages)}"
    return f"{len(mine)} of {len(languages)}: {', '.join(mine)}" if mine else "none"


def language_board(scores: Mapping[str, pd.DataFrame], languages: Sequence[str], column: str = "j",
                   n_boot: int = 1000, alpha: float = 0.05, seed: int = 0,
                   averages: Mapping[str, Sequence[str]] | None = None,
                   answered: Mapping[str, Sequence[str] | None] | None = None) -> LanguageBoard:
    """Rank submissions of the same split by the mean over ``languages`` of ``column``.

    A submission answering every language is *complete* and ranked (stratified paired
    bootstrap, :func:`rank_by_language_mean`); one that does not answer some of them is
    *partial*: listed after the ranked ones with its mean over the languages it answers,
    said in ``coverage`` and ``mean_over`` (the official ranking needs every language).
    Each language is also ranked on its own, partial submissions included.

    ``averages``: the edition's official averages (name -> its languages, whichever are
    picked): a column each, the mean over those languages, NaN unless the submission has a
    score in every one of them.

    ``answered``: name -> every language its file answers (stored with it), also those the
    preset does not cover and so has no rows for; without it (or None), the languages with
    rows. What a submission answers decides complete or partial; what the preset scored
    decides the mean's scope (``mean_over``), so a complete file scored by a preset that
    covers one language is complete, with a mean over "1 of 15: ru".
    """
    languages = tuple(languages)
    cut = {name: f[f["lang"].isin(languages)].reset_index(drop=True) for name, f in scores.items()}
    with_rows = {name: [lang for lang in languages if (f["lang"] == lang).any()] for name, f in cut.items()}
    covered = {name: [lang for lang in languages
                      if lang in with_rows[name] or lang in ((answered or {}).get(name) or ())]
               for name in cut}
    present = [lang for lang in languages if any(lang in c for c in covered.values())]
    # Answered, but no submission has rows in it: the preset does not cover it (n/a, never zero).
    uncovered = [lang for lang in present if not any(lang in rows for rows in with_rows.values())]
    unscored = [lang for lang in present if lang not in uncovered  # rows without a score (chrF without references)
                and any(lang in with_rows[name] and f.loc[f["lang"] == lang, column].isna().all()
                        for name, f in cut.items())]
    scored = [lang for lang in present if lang not in unscored and lang not in uncovered]
    by_language: dict[str, pd.DataFrame] = {}
    for lang in scored:
        rows = {name: f[f["lang"] == lang] for name, f in cut.items() if lang in covered[name]}
        first = next(iter(rows.values()))["input"].tolist()
        rows = {name: r for name, r in rows.items() if r["input"].tolist() == first}  # same inputs only
        ranking = rank_systems({name: r[column].to_numpy(dtype=float) for name, r in rows.items()}, n_boot, alpha, seed)
        by_language[lang] = ranking.table.assign(n=len(first))
    complete = [name for name in cut if len(covered[name]) == len(present) and present]
    overall, p_values = None, None
    if complete and scored:
        kept = {name: cut[name][cut[name]["lang"].isin(scored)].reset_index(drop=True) for name in complete}
        try:
            ranked = rank_by_language_mean(kept, column, n_boot, alpha, seed)
            overall, p_values = ranked.overall.table.set_index("system"), ranked.overall.p_values
        except DetoxInputError:  # complete submissions of different inputs: not ranked together
            overall = None
    rows = []
    for name, f in cut.items():
        mine = [lang for lang in covered[name] if lang in scored]
        row = {"system": name, "complete": name in complete, "coverage": coverage(covered[name], present or languages),
               "mean_over": mean_scope(mine, present or languages), "n": len(f)}
        if overall is not None and name in overall.index:
            row.update(overall.loc[name, ["mean", "low", "high", "rank_low", "rank_high", "group"]].to_dict())
        else:
            mean, low, high = stratified_mean(f[f["lang"].isin(mine)], column, n_boot, alpha, seed)
            row.update(mean=mean, low=low, high=high, rank_low=np.nan, rank_high=np.nan, group=np.nan)
        for lang in languages:
            values = f.loc[f["lang"] == lang, column]
            row[lang] = float(values.mean()) if lang in scored and len(values) else np.nan
        full = scores[name].groupby("lang")[column]
        means, complete_langs = full.mean(), full.apply(lambda v: bool(v.notna().any()))
        for average, members in (averages or {}).items():
            ok = all(complete_langs.get(lang, False) for lang in members)
            row[average] = float(means.reindex(list(members)).mean()) if ok else np.nan
        rows.append(row)
    table = pd.DataFrame(rows, columns=["system", "complete", "coverage", "mean_over", "n", "mean", "low", "high",
                                        "rank_low", "rank_high", "group", *languages, *(averages or {})])
    table = table.sort_values(["complete", "mean"], ascending=[False, False], na_position="last").reset_index(drop=True)
    return LanguageBoard(column, languages, table, by_language, unscored, p_values, uncovered)
