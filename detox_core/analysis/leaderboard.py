"""System-level tables: the published leaderboard and locally scored submissions.

Local submissions are ranked only against submissions scored with the same preset
and calibration on the same test set: numbers of different presets never share a
ranking.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core import data, editions
from detox_core.vocab import HUMAN_SYSTEM_COLUMNS, label, language_name
from detox_core.stats.languages import LanguageBoard, coverage, language_board
from detox_core.stats.agreement import spearman
from detox_core.stats.bootstrap import Ranking, bootstrap_ci, rank_systems, resample_indices
from detox_core.annotation.results import INTERVAL_COLUMNS, MIN_JUDGED_PER_SYSTEM, system_means
from detox_core.data.leaderboards import PublishedTable
from detox_core.metrics.base import SCORE_COLUMNS
from detox_core.metrics.chrf import CORPUS_CHRF, CorpusChrf
from detox_core.metrics.registry import has_calibration, preset_label
from detox_core.submissions.store import display_names, Store


def _split_suffix() -> re.Pattern[str]:
    """``_<split>.txt`` or ``.tsv`` of any registered edition's split (``_test``, ``_dev``,
    ``_sample`` ...): how shipped output files are named (:meth:`Edition.output_files`)."""
    splits = sorted({s.lower() for e in editions.editions() for s in e.splits} | {"test", "dev"}, key=len, reverse=True)
    return re.compile(r"(_(" + "|".join(map(re.escape, splits)) + r"))?\.(txt|tsv)$")


def system_key(name: str) -> str:
    """A comparable key from a submission or team name: ``"orzhan_test.txt"`` -> ``"orzhan"``,
    ``"gleb.shnshn_sample.tsv"`` -> ``"gleb_shnshn"`` (a split's suffix goes only before the
    file's extension: ``"team_sample"`` stays ``"team_sample"``)."""
    stem = _split_suffix().sub("", name.strip().lower())
    stem = editions.system_aliases().get(stem, stem)
    return re.sub(r"[^\w]+", "_", stem).strip("_")


def published_key(team: str, method: str) -> str:
    """Baselines are named by method in the paper, participants by team."""
    return system_key(method if team.strip().lower() == "baseline" else team)


def human_scores(root: Path | None = None, annotations: pd.DataFrame | None = None,
                 edition: editions.Edition | None = None,
                 min_judged: int = MIN_JUDGED_PER_SYSTEM) -> pd.DataFrame:
    """Human STA/SIM/FL/J per system: the annotation project chosen for the Leaderboard
    (``annotations``, see :func:`detox_core.annotation.results.project_human_scores`),
    else the edition's human judgements, else its published leaderboard (default: the
    default edition, under the data folder or ``root``).

    A project's system with fewer than ``min_judged`` judged outputs is not a human score:
    it is listed in ``attrs["below_minimum"]`` (system, judged outputs, source) and the
    system keeps the next source's scores, if any.

    Returns columns ``key``, ``sta_human``, ``sim_human``, ``fl_human``, ``j_human``,
    ``n`` (judged outputs; NaN for a published table), the 95% interval of each
    (``<column>_low``, ``<column>_high``; NaN for a published table) and ``source``.
    """
    edition = edition or editions.default_edition()
    rows, below = [], []
    if annotations is not None:
        for r in annotations.to_dict("records"):
            key = system_key(str(r["participant_name"]))
            if key in {x["key"] for x in rows}:  # later projects come first
                continue
            if r["n"] < min_judged:
                below.append({"system": str(r["participant_name"]), "n": int(r["n"]), "source": r["source"]})
                continue
            rows.append({"key": key, **{c: r.get(c, float("nan")) for c in (*HUMAN_SYSTEM_COLUMNS, "n",
                                                                              *INTERVAL_COLUMNS)},
                         "source": r["source"]})
    path = edition.human_path(root)
    seen = {r["key"] for r in rows}
    if path is not None:
        human = data.load_human_judgements(path)
        means = system_means(human, intervals=True)
        for r in means.to_dict("records"):
            if system_key(str(r["participant_name"])) in seen:
                continue
            rows.append({"key": system_key(str(r["participant_name"])),
                         **{c: r[c] for c in (*HUMAN_SYSTEM_COLUMNS, "n", *INTERVAL_COLUMNS)}, "source": path.name})
    path = edition.leaderboard_path(root)
    seen = {r["key"] for r in rows}
    if path is not None:
        published = data.load_leaderboard(path)
        for _, r in published.iterrows():
            key = published_key(r["team"], r["method"])
            if key not in seen:  # a column the table does not report is missing, not an error
                rows.append({"key": key, **{c: r.get(c, float("nan")) for c in HUMAN_SYSTEM_COLUMNS},
                             "source": "published leaderboard"})
    out = pd.DataFrame(rows, columns=["key", *HUMAN_SYSTEM_COLUMNS, "n", *INTERVAL_COLUMNS, "source"])
    out[["n", *INTERVAL_COLUMNS]] = out[["n", *INTERVAL_COLUMNS]].astype(float)
    out.attrs["below_minimum"] = below
    out.attrs["min_judged"] = min_judged
    return out


@dataclass
class PresetBoard:
    """One ranking: submissions of one preset and calibration on one test set."""

    preset: str
    calibrated: bool
    table: pd.DataFrame  # one row per submission
    ranking: Ranking


def is_official(edition: editions.Edition, preset: str, calibrated: bool = True) -> bool:
    """Whether numbers of ``preset`` are the edition's official ones: its own official
    preset, with the calibration that preset applies by default."""
    return preset == edition.official_preset and (calibrated or not has_calibration(preset))


def average_label(edition: editions.Edition, name: str, preset: str, calibrated: bool = True,
                  axis: str = "j") -> str:
    """The header of one of the edition's averages over languages (``avg_p`` ...) in a
    ranking by ``preset``: "Official avg_p (9)" only for the edition's official preset and
    J; otherwise the formula and the preset ("avg_p (9 languages), Embedded (offline CPU)
    preset"), an axis other than J named first."""
    members = edition.averages[name]
    if axis == "j" and is_official(edition, preset, calibrated):
        return f"Official {name} ({len(members)})"
    what = f"{name} ({len(members)} languages)" if axis == "j" else f"{label(axis)} {name} ({len(members)} languages)"
    return f"{what}, {preset_label(preset, calibrated)} preset"


def average_help(edition: editions.Edition, name: str, preset: str, calibrated: bool = True,
                 axis: str = "j") -> str:
    """What the column of :func:`average_label` holds, and whether it is the official average."""
    members = ", ".join(f"{language_name(c)} ({c})" for c in edition.averages[name])
    text = f"The mean {label(axis)} over {members}, each language counting once (— when one of them is not scored)."
    if axis == "j" and is_official(edition, preset, calibrated):
        return text + f" {edition.short}'s official {name}."
    official = edition.official_preset
    return text + (f" Not {edition.short}'s official {name}, which is this mean of J by "
                   f"the {preset_label(official)} preset." if official else "")


def official_chrf(dataset: str) -> tuple[str, CorpusChrf] | None:
    """The edition's official system-level chrF (its column name ``chrf_official`` is shown
    as the returned label), or None when the edition has none."""
    edition = editions.EDITIONS.get(dataset)
    if edition is None or not edition.official_chrf:
        return None
    how = CORPUS_CHRF[edition.official_chrf]
    return how.label(edition.short), how


def local_boards(store: Store, dataset: str, split: str, axis: str = "j", n_boot: int = 1000,
                 references: Sequence[Sequence[str]] | None = None) -> list[PresetBoard]:
    """Rankings of the stored submissions, one per (preset, calibration). With the split's
    ``references`` (in input order) and an edition whose official script reports a
    system-level chrF, each row also has it (``chrf_official``)."""
    listed = store.list(dataset=dataset, split=split)
    official = official_chrf(dataset) if references is not None else None
    boards = []
    for (preset, calibrated), group in listed.groupby(["preset", "calibrated"], sort=True):
        shown = display_names(group)
        per_sentence = {shown[row.id]: store.scores(row.id) for row in group.itertuples(index=False)}
        keys = dict(zip(shown.values(), group["name"]))
        lengths = {len(f) for f in per_sentence.values()}
        if len(lengths) != 1:
            continue  # cannot happen for one split; kept as a guard
        ranking = rank_systems({name: f[axis].to_numpy() for name, f in per_sentence.items()}, n_boot=n_boot)
        indices = resample_indices(lengths.pop(), n_boot)  # the same resamples for every column and system
        rows = []
        for name, frame in per_sentence.items():
            row = {"system": name, "key": system_key(keys[name]), "n": len(frame)}
            for col in SCORE_COLUMNS:
                mean, lo, hi = bootstrap_ci(frame[col].to_numpy(), n_boot=n_boot, indices=indices)
                row.update({col: mean, f"{col}_low": lo, f"{col}_high": hi})
            if official and len(references) == len(frame):
                row["chrf_official"] = official[1].compute(frame["output"].tolist(), references)
            rows.append(row)
        table = pd.DataFrame(rows).merge(ranking.table[["system", "rank_low", "rank_high", "group"]], on="system")
        table = table.sort_values(axis, ascending=False).reset_index(drop=True)
        boards.append(PresetBoard(str(preset), bool(calibrated), table, ranking))
    return boards


def rank_label(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def human_vs_auto(board: PresetBoard, humans: pd.DataFrame) -> pd.DataFrame:
    """Systems of a board that have human scores: automatic and human J side by side, with
    the human J's judged outputs (``judged``) and 95% interval (NaN for a published table)."""
    extra = [c for c in ("n", "j_human_low", "j_human_high") if c in humans]
    merged = board.table.drop(columns=[c for c in extra if c in board.table]).merge(
        humans[["key", "j_human", *extra, "source"]], on="key", how="inner").rename(columns={"n": "judged"})
    for column in ("judged", "j_human_low", "j_human_high"):
        if column not in merged:
            merged[column] = float("nan")
    return merged[["system", "j", "j_human", "judged", "j_human_low", "j_human_high", "source"]]


def correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman correlation (NaN with fewer than 3 systems)."""
    if len(x) < 3:
        return float("nan")
    return spearman(x, y)


# ------------------------------------------------------------------ multilingual editions


@dataclass
class LanguagePresetBoard:
    """Submissions of one preset and calibration on one split of a multilingual edition."""

    preset: str
    calibrated: bool
    board: LanguageBoard


def language_boards(store: Store, dataset: str, split: str, languages: Sequence[str], axis: str = "j",
                    n_boot: int = 1000, averages: dict[str, tuple[str, ...]] | None = None
                    ) -> list[LanguagePresetBoard]:
    """Rankings by the mean over ``languages`` of the stored submissions, one per
    (preset, calibration), with the edition's official ``averages``: see
    :func:`detox_core.stats.languages.language_board`."""
    listed = store.list(dataset=dataset, split=split)
    boards = []
    for (preset, calibrated), group in listed.groupby(["preset", "calibrated"], sort=True):
        shown = display_names(group)
        scores = {shown[row.id]: store.scores(row.id) for row in group.itertuples(index=False)}
        answered = {shown[row.id]: row.answered for row in group.itertuples(index=False)}
        board = language_board(scores, languages, axis, n_boot, averages=averages, answered=answered)
        board.table.insert(1, "key", [system_key(n) for n in board.table["system"]])
        boards.append(LanguagePresetBoard(str(preset), bool(calibrated), board))
    return boards


def published_view(table: PublishedTable, axis: str, languages: Sequence[str]) -> pd.DataFrame:
    """A published table cut to ``languages``: one row per team with its ``axis`` score per
    language, ``mean`` over the picked languages it has a score for, ``coverage`` (in
    words; a team without every language is partial) and the file's own averages and
    ranks, sorted by that mean (teams without any picked language are dropped)."""
    langs = [lang for lang in languages if lang in table.languages]
    long = table.scores[table.scores["lang"].isin(langs)].dropna(subset=[axis]) if axis in table.scores else None
    wide = (long.pivot_table(index="team", columns="lang", values=axis, aggfunc="first", sort=False)
            if long is not None and len(long) else pd.DataFrame(index=pd.Index([], name="team")))
    wide = wide.reindex(columns=langs)
    out = table.official.merge(wide, left_on="team", right_index=True, how="left")
    present = out[langs].notna() if langs else pd.DataFrame(index=out.index)
    out["mean"] = out[langs].mean(axis=1) if langs else np.nan
    out["complete"] = present.all(axis=1) if langs else False
    out["coverage"] = [coverage([lang for lang in langs if has[lang]], langs) for _, has in present.iterrows()]
    out = out[present.any(axis=1)] if langs else out.iloc[0:0]
    order = ["team", "complete", "coverage", "mean", *langs, *[c for c in table.official if c != "team"]]
    return out[order].sort_values(["complete", "mean"], ascending=[False, False]).reset_index(drop=True)


def heat_rows(published: pd.DataFrame | None, local: pd.DataFrame | None, languages: Sequence[str],
              limit: int | None = None) -> pd.DataFrame:
    """Teams (published) and submissions (local, named ``local: <name>``) x languages:
    those with every language first, each by its mean over languages (best first), then
    partial ones; at most ``limit`` rows of each table."""
    parts = []
    for frame, name, prefix in ((published, "team", ""), (local, "system", "local: ")):
        if frame is None or frame.empty:
            continue
        rows = frame.sort_values(["complete", "mean"], ascending=[False, False], na_position="last")
        rows = rows.head(limit) if limit else rows
        part = rows.set_index(rows[name].map(lambda s: f"{prefix}{s}"))
        parts.append(part.reindex(columns=[*languages, "complete", "mean"]))
    if not parts:
        return pd.DataFrame(columns=list(languages))
    out = pd.concat(parts).sort_values(["complete", "mean"], ascending=[False, False], na_position="last")
    return out[list(languages)].astype(float)
