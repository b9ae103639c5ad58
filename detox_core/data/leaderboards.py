"""Published leaderboards of the multilingual editions.

Data contracts (the TextDetox tables, one CSV each):
    per language: ``team``, one column per language code (J of that language), the
        edition's averages (``avg``; 2025: ``avg_p`` over the nine "parallel" languages,
        ``avg_np`` over the six new ones) and ranks (``rank``, ``rank_p``, ``rank_np``).
    per axis: ``team``, ``lang`` and the axis columns ``sta``, ``sim``, ``fl`` / ``chrf``,
        ``j`` (at least one).
An empty cell is a value the source does not give: NaN, never zero. Scores lie in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from detox_core.data.io import Source, Table, optional_numbers, parse_table, read_text, require_columns
from detox_core.errors import DetoxInputError
from detox_core.vocab import LANGUAGES

AXIS_COLUMNS = ("sta", "sim", "fl", "chrf", "j")


def _numbers(table: Table, column: str, lo: float = 0.0, hi: float | None = 1.0) -> list[float]:
    expected = f"expected a number in [{lo:g}, {hi:g}]" if hi is not None else f"expected a number >= {lo:g}"
    return optional_numbers(table, column, lambda x: None if x >= lo and (hi is None or x <= hi) else expected)


def load_language_leaderboard(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """A per-language leaderboard: ``team``, a column per language, averages, ranks, ``line``.

    ``frame.attrs["languages"]`` lists the language columns in the file's order and
    ``frame.attrs["averages"]`` the average columns.

    Raises:
        DetoxInputError: no ``team`` or no language column, a score outside [0, 1], a
            rank that is not a whole number.
    """
    text, label = read_text(source, name)
    table = parse_table(text, label)
    require_columns(table, ["team"])
    langs = [c for c in table.header if c in LANGUAGES]
    if not langs:
        raise DetoxInputError(f"expected a column per language (codes such as {', '.join(list(LANGUAGES)[:4])}); "
                              f"the header has {', '.join(table.header)}", label, 1)
    averages = [c for c in table.header if c == "avg" or c.startswith("avg_")]
    ranks = [c for c in table.header if c == "rank" or c.startswith("rank_")]
    frame = pd.DataFrame({"team": [t.strip() for t in table.column("team")]})
    for column in (*langs, *averages):
        frame[column] = _numbers(table, column)
    for column in ranks:
        values = _numbers(table, column, lo=0.0, hi=None)
        bad = [ln for v, ln in zip(values, table.lines) if v == v and v != int(v)]
        if bad:
            raise DetoxInputError("expected a whole rank", label, bad[0], column)
        frame[column] = values
    frame["line"] = table.lines
    frame.attrs.update(languages=langs, averages=averages)
    return frame


def load_axes_leaderboard(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """A per-axis leaderboard in long form: ``team``, ``lang`` and the axis columns present.

    Raises:
        DetoxInputError: a missing column, an unknown language code, a score outside [0, 1].
    """
    text, label = read_text(source, name)
    table = parse_table(text, label)
    require_columns(table, ["team", "lang"])
    axes = [c for c in AXIS_COLUMNS if c in table.header]
    if not axes:
        raise DetoxInputError(f"expected at least one of {', '.join(AXIS_COLUMNS)}; the header has "
                              f"{', '.join(table.header)}", label, 1)
    langs = [v.strip() for v in table.column("lang")]
    for value, line in zip(langs, table.lines):
        if value not in LANGUAGES:
            raise DetoxInputError(f"unknown language code {value!r}", label, line, "lang")
    frame = pd.DataFrame({"team": [t.strip() for t in table.column("team")], "lang": langs})
    for column in axes:
        frame[column] = _numbers(table, column)
    frame["line"] = table.lines
    return frame


def teams_by_language(frame: pd.DataFrame) -> pd.DataFrame:
    """A per-language leaderboard as a teams x languages matrix (for a heat map), in the
    file's order of teams and languages."""
    return frame.set_index("team")[frame.attrs.get("languages") or [c for c in frame if c in LANGUAGES]]


@dataclass
class PublishedTable:
    """A published table in one shape, whichever its file's: scores per team and language.

    Attributes:
        title: how the edition names it.
        scores: long form, one row per team and language: ``team``, ``lang`` and the axis
            columns of :attr:`axes` (a per-language table gives ``j`` only).
        official: one row per team (in the file's order): ``team`` and the file's own
            averages and ranks (``avg``, ``avg_p``, ``rank``...); only ``team`` for a per-axis table.
        axes: the axis columns present.
        languages: the language codes, in the file's order.
    """

    title: str
    scores: pd.DataFrame
    official: pd.DataFrame
    axes: tuple[str, ...]
    languages: tuple[str, ...]


def _header(text: str) -> list[str]:
    first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    return [c.strip().strip('"').lower() for c in first.split("\t" if "\t" in first else ",")]


def load_published(source: Source, title: str, *, name: str | None = None) -> PublishedTable:
    """A per-language or a per-axis table (told apart by a ``lang`` column) as a
    :class:`PublishedTable`; a gap stays a gap (no row for that team and language).

    Raises:
        DetoxInputError: as :func:`load_language_leaderboard` / :func:`load_axes_leaderboard`.
    """
    text, label = read_text(source, name)
    if "lang" in _header(text):
        frame = load_axes_leaderboard(text.encode("utf-8"), name=label)
        axes = tuple(c for c in AXIS_COLUMNS if c in frame)
        teams = list(dict.fromkeys(frame["team"]))
        scores = frame[["team", "lang", *axes]].dropna(subset=list(axes), how="all").reset_index(drop=True)
        return PublishedTable(title, scores, pd.DataFrame({"team": teams}), axes,
                              tuple(dict.fromkeys(frame["lang"])))
    frame = load_language_leaderboard(text.encode("utf-8"), name=label)
    langs = frame.attrs["languages"]
    scores = frame.melt(id_vars=["team"], value_vars=langs, var_name="lang", value_name="j").dropna(subset=["j"])
    official = frame[["team", *frame.attrs["averages"], *[c for c in frame if c == "rank" or c.startswith("rank_")]]]
    return PublishedTable(title, scores.reset_index(drop=True), official.reset_index(drop=True), ("j",), tuple(langs))
