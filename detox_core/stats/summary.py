"""One summary of scored pairs, for every place that shows one: ``detox_core.score``,
``detox score`` (its lines, ``--json`` and ``summary.csv``) and the pages.

A system's summary is each score's mean with its 95% bootstrap interval, over pairs for one
language, over languages for several (each language's mean counts once, as TextDetox ranks;
the interval resamples pairs within each language), the same per language, and an
edition's named averages (2025's ``avg_p`` and ``avg_np``: only when every language of the
group is scored, never a mean over part of it).

An interval needs at least :data:`MIN_PAIRS` pairs in every language it is over: with one
pair, every resample is that pair and the interval would have no width, which says nothing.
Such an interval is NaN, with :data:`TOO_FEW` as its reason (``interval_note``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from detox_core.stats.bootstrap import bootstrap_ci, macro_weights, stratified_indices

#: The fewest pairs a language needs for an interval of its mean (or of a mean over it).
MIN_PAIRS = 2
#: What an interval that cannot be estimated reads.
TOO_FEW = "n/a, too few pairs"
#: The figures summarised, in the order they are shown.
FIGURES = ("j", "sta", "sim", "fl", "chrf")
LABELS = {"j": "J", "sta": "STA", "sim": "SIM", "fl": "FL", "chrf": "chrF"}


@dataclass
class Figure:
    """A mean and its 95% interval; ``low``/``high`` are NaN when it cannot be estimated
    (``note`` says why) or when nothing is scored (``mean`` NaN too)."""

    mean: float
    low: float
    high: float
    note: str = ""

    def text(self, digits: int = 3) -> str:
        """``0.512 [0.478, 0.547]``, ``0.352 (interval n/a, too few pairs)`` or ``n/a``."""
        if np.isnan(self.mean):
            return "n/a"
        if np.isnan(self.low):
            return f"{self.mean:.{digits}f} (interval {self.note or 'n/a'})"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def as_json(self) -> dict:
        def num(x: float) -> float | None:
            return None if np.isnan(x) else float(x)

        out: dict = {"mean": num(self.mean), "low": num(self.low), "high": num(self.high)}
        if self.note:
            out["interval"] = self.note
        return out


@dataclass
class Summary:
    """One system's figures.

    Attributes:
        n: pairs scored.
        languages: the languages, in order of appearance.
        averaged: ``"over pairs"`` or ``"over N languages"``.
        figures: score column -> :class:`Figure` (over every language).
        by_language: language -> (n, score column -> :class:`Figure`).
        averages: an edition's named averages of J (``avg_p`` -> value, NaN unless every
            language of the group is scored).
    """

    n: int
    languages: list[str]
    averaged: str
    figures: dict[str, Figure]
    by_language: dict[str, tuple[int, dict[str, Figure]]] = field(default_factory=dict)
    averages: dict[str, float] = field(default_factory=dict)

    def row(self) -> dict:
        """Flat columns: ``n``, ``languages``, ``averaged``, then per figure its mean,
        ``_low``, ``_high`` and, when the interval is n/a, ``_interval`` with the reason."""
        out: dict = {"n": self.n, "languages": ",".join(self.languages), "averaged": self.averaged}
        for col, fig in self.figures.items():
            out.update({col: fig.mean, f"{col}_low": fig.low, f"{col}_high": fig.high})
            if fig.note:
                out[f"{col}_interval"] = fig.note
        return out


def _strata(frame: pd.DataFrame) -> np.ndarray:
    return frame["lang"].astype(str).to_numpy() if "lang" in frame else np.zeros(len(frame), dtype=object)


def mean_over_languages(frame: pd.DataFrame, column: str) -> float:
    """The mean of ``column`` over ``frame``'s scored pairs, each language's mean counting once
    (the plain mean for one language); NaN when none is scored."""
    part = frame[frame[column].notna()] if column in frame else frame.iloc[:0]
    if not len(part):
        return float("nan")
    weights = macro_weights(_strata(part))
    return float(np.sum(part[column].to_numpy(dtype=float) * weights))


def figure(frame: pd.DataFrame, column: str, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0,
           indices: np.ndarray | None = None) -> Figure:
    """The mean of ``column`` over ``frame``'s pairs (over its languages when it has a ``lang``
    column with several), each unscored pair left out, with its stratified bootstrap
    interval, or NaN and :data:`TOO_FEW` when a language has fewer than :data:`MIN_PAIRS`.
    ``indices``: resamples already drawn for these pairs (when every one is scored)."""
    mean = mean_over_languages(frame, column)
    if np.isnan(mean):
        return Figure(mean, float("nan"), float("nan"))
    part = frame[frame[column].notna()]
    strata = _strata(part)
    if pd.Series(strata).value_counts().min() < MIN_PAIRS:
        return Figure(mean, float("nan"), float("nan"), TOO_FEW)
    if indices is None or len(part) != len(frame):
        indices = stratified_indices(strata, n_boot, seed)
    _, low, high = bootstrap_ci(part[column].to_numpy(dtype=float), n_boot, alpha, seed, indices=indices,
                                weights=macro_weights(strata))
    return Figure(mean, low, high)


def summarize(frame: pd.DataFrame, columns: Sequence[str] = FIGURES, n_boot: int = 1000, seed: int = 0,
              averages: Mapping[str, Sequence[str]] | None = None, by_language: bool = True) -> Summary:
    """The summary of one system's scored pairs (``frame``: one row per pair, ``lang`` when
    known, the score columns). ``n`` and the languages count the pairs with a score; the
    resamples are drawn once for the columns every pair has. ``by_language=False`` leaves
    out the per-language figures (and the named averages, which are made of them)."""
    present = [c for c in columns if c in frame]
    if present:
        frame = frame[frame[present].notna().any(axis=1)]
    langs = list(dict.fromkeys(_strata(frame).tolist())) if "lang" in frame else []
    shared = stratified_indices(_strata(frame), n_boot, seed) if len(frame) else None
    figures = {c: figure(frame, c, n_boot, seed=seed, indices=shared) for c in present}
    per_language: dict[str, tuple[int, dict[str, Figure]]] = {}
    named = {}
    if by_language:
        for lang in langs:
            part = frame[_strata(frame) == lang]
            per_language[lang] = (len(part), {c: figure(part, c, n_boot, seed=seed) for c in present})
        for name, group in (averages or {}).items():
            values = [per_language[g][1]["j"].mean if g in per_language and "j" in per_language[g][1]
                      else float("nan") for g in group]
            named[name] = float(np.mean(values)) if values and not np.isnan(values).any() else float("nan")
    averaged = f"over {len(langs)} languages" if len(langs) > 1 else "over pairs"
    return Summary(len(frame), langs, averaged, figures, per_language, named)
