"""Paper-ready tables: a ranking or a comparison as LaTeX (booktabs) and Markdown.

A table is written from a frame whose cells are already what the paper shows (numbers
with their 95% intervals as ``0.612 [0.598, 0.627]``, ranks such as ``1-2``), so the page,
the CSV and the paper say the same; the caption carries what makes the numbers
reproducible (edition, split, languages, the preset's signature in one line, as
:func:`detox_core.metrics.base.signature_text` writes it). Number cells (per-language
scores) are rounded to the precision the page shows. The CSV is for spreadsheets and
scripts: a score with its interval is three number columns (``J``, ``J_low``, ``J_high``),
rounded like every other number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from detox_core.data.spreadsheet import csv_text, spreadsheet_safe
from detox_core.metrics.base import signature_text

#: Decimals of a score cell, as the pages show them (``format="%.3f"``).
DIGITS = 3

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}\allowbreak{}", "\n": " ", "\r": " "}


def latex_escape(text: object) -> str:
    """``text`` as LaTeX source that prints it literally (system names are user text); a line
    may break after a ``|`` (a signature's fields are joined by it)."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def latex_label(name: object) -> str:
    """``name`` as a ``\\label`` key that any LaTeX setup accepts: ASCII letters, digits and
    ``:.-`` only (no escapes, which a label would keep literally), e.g. ``tab:leaderboard-test``."""
    return re.sub(r"[^A-Za-z0-9:.-]+", "-", str(name)).strip("-") or "tab:detox"


def markdown_escape(text: object) -> str:
    """``text`` as a Markdown table cell that prints it literally: no markup, no column break."""
    out = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    for c in "*_`[]<>#~":
        out = out.replace(c, "\\" + c)
    return out


def with_interval(mean: float, low: float | None = None, high: float | None = None, digits: int = 3) -> str:
    """``0.612 [0.598, 0.627]``; ``—`` for a missing value, no brackets without an interval."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "—"
    text = f"{mean:.{digits}f}"
    if low is not None and high is not None and not (math.isnan(low) or math.isnan(high)):
        text += f" [{low:.{digits}f}, {high:.{digits}f}]"
    return text


def _missing(v: object) -> bool:
    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, (float, np.floating)) and math.isnan(v))


def _cell(v: object, digits: int) -> str:
    if _missing(v):
        return "—"
    if isinstance(v, (float, np.floating)):
        return f"{v:.{digits}f}"
    return str(v)


def _cells(frame: pd.DataFrame, columns: Mapping[str, str], digits: int | Mapping[str, int] = DIGITS
           ) -> list[list[str]]:
    """The cells as printed: numbers rounded to ``digits`` decimals (one for every column, or
    per column with :data:`DIGITS` for the others; 0 for counts), ``—`` for a missing value."""
    places = [digits if isinstance(digits, int) else digits.get(c, DIGITS) for c in columns]
    return [[_cell(v, d) for v, d in zip(row, places)] for row in frame[list(columns)].itertuples(index=False)]


#: A cell written by :func:`with_interval`: ``0.612`` or ``0.612 [0.598, 0.627]``.
_INTERVAL_CELL = re.compile(r"(-?\d+\.\d+)(?: \[(-?\d+\.\d+), (-?\d+\.\d+)\])?")


def _interval_numbers(column: pd.Series) -> list[tuple[float, float, float]] | None:
    """The (mean, low, high) of each cell of a column of :func:`with_interval` cells (NaN for
    ``—`` or no interval); None when the column holds anything else."""
    out = []
    for v in column:
        if _missing(v) or v == "—":
            out.append((math.nan,) * 3)
        elif isinstance(v, str) and (m := _INTERVAL_CELL.fullmatch(v)):
            out.append(tuple(float(x) if x is not None else math.nan for x in m.groups()))
        else:
            return None
    return out if any(not math.isnan(m) for m, _, _ in out) else None


def to_csv(frame: pd.DataFrame, columns: Mapping[str, str], digits: int | Mapping[str, int] = DIGITS) -> str:
    """The table as CSV with the headers of ``columns``, numbers as numbers: a score cell with
    its interval (``0.612 [0.598, 0.627]``) becomes three columns (``J``, ``J_low``,
    ``J_high``), every number is rounded to ``digits`` decimals as in :func:`to_latex` (a
    count to a whole number), a missing value is an empty cell, and text cells that a
    spreadsheet would run as formulas are neutralised (:func:`spreadsheet_safe`)."""
    out: dict[str, pd.Series] = {}
    for col, header in columns.items():
        places = digits if isinstance(digits, int) else digits.get(col, DIGITS)
        values = frame[col].reset_index(drop=True)
        numbers = None if pd.api.types.is_numeric_dtype(values) else _interval_numbers(values)
        if numbers is not None:
            mean, low, high = (pd.Series(x, dtype=float).round(places) for x in zip(*numbers))
            out[header] = mean
            if low.notna().any():
                out[f"{header}_low"], out[f"{header}_high"] = low, high
        elif pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            rounded = values.astype(float).round(places)
            out[header] = rounded.astype("Int64") if places == 0 else rounded
        else:
            out[header] = values
    return spreadsheet_safe(pd.DataFrame(out)).to_csv(index=False)


_NUMBER_CELL = re.compile(r"^\s*(?:[-+\u2212]?\d|n/a$|—$|$)")


def default_align(frame: pd.DataFrame, columns: Mapping[str, str]) -> list[str]:
    """``r`` for a column of numbers (or of cells such as ``0.545 [0.533, 0.557]``), ``l``
    for one of text (a system's name), so that names read from the left in a paper's table."""
    out = []
    for col in columns:
        values = frame[col] if col in frame else pd.Series(dtype=object)
        numeric = pd.api.types.is_numeric_dtype(values) or all(
            _NUMBER_CELL.match(str(v)) for v in values if v is not None and v == v)
        out.append("r" if numeric and len(values.dropna()) else "l")
    return out


def to_latex(frame: pd.DataFrame, columns: Mapping[str, str], caption: str, label: str = "tab:detox",
             align: Sequence[str] | None = None, digits: int | Mapping[str, int] = DIGITS) -> str:
    """A ``table`` with a booktabs ``tabular`` (``\\toprule``, ``\\midrule``, ``\\bottomrule``),
    written by pandas' Styler from the cells as :func:`_cells` prints them, every one escaped by
    :func:`latex_escape` (a ``|`` may break the line, which Styler's own escaping does not allow).

    Args:
        frame: the rows, cells as they should print.
        columns: column -> header, in order.
        caption: said above the table (escaped).
        label: the ``\\label`` key, made safe by :func:`latex_label`.
        align: one of ``l``/``r``/``c`` per column (default: :func:`default_align`).
        digits: decimals of number cells (see :func:`_cells`).
    """
    align = list(align or default_align(frame, columns))
    rows = [[latex_escape(c) for c in row] for row in _cells(frame, columns, digits)]
    cells = pd.DataFrame(rows, columns=pd.Index([latex_escape(h) for h in columns.values()], dtype=object),
                         dtype=object)
    styler = cells.style.hide(axis="index").set_table_styles([{"selector": "small", "props": ":;"}])
    return styler.to_latex(hrules=True, column_format="".join(align), position="t", position_float="centering",
                           caption=latex_escape(caption), label=latex_label(label), environment="table")


def to_markdown(frame: pd.DataFrame, columns: Mapping[str, str], caption: str,
                digits: int | Mapping[str, int] = DIGITS) -> str:
    """A GitHub-flavoured Markdown table with the caption under it; number cells rounded to
    ``digits`` decimals (see :func:`_cells`)."""
    head = "| " + " | ".join(markdown_escape(h) for h in columns.values()) + " |"
    rule = "|" + "|".join(" --- " if a == "l" else " ---: " for a in default_align(frame, columns)) + "|"
    rows = ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in _cells(frame, columns, digits)]
    return "\n".join([head, rule, *rows, "", markdown_escape(caption)]) + "\n"


def _signature_line(signature: Mapping) -> str:
    """A signature in one readable line: a score frame's (preset, models, calibration ...) as
    :func:`~detox_core.metrics.base.signature_text` writes it (``preset:embedded|version:1|
    sta:<model id>@<revision>|...|lib:0.1.0``); any other mapping as ``key=value`` fields, a
    nested mapping's as ``key.sub=value``: never a Python ``dict`` as the page holds it."""
    if "preset" in signature and ("models" in signature or "preset_version" in signature):
        return signature_text(signature)

    def fields(mapping: Mapping, prefix: str = "") -> list[str]:
        out = []
        for k, v in mapping.items():
            if isinstance(v, Mapping):
                out += fields(v, f"{prefix}{k}.")
            elif isinstance(v, (list, tuple)):
                out.append(f"{prefix}{k}=" + ",".join(map(str, v)))
            elif v not in (None, ""):
                out.append(f"{prefix}{k}={v}")
        return out
    return "|".join(fields(signature))


def signature_caption(what: str, signature: Mapping | None = None, **context: object) -> str:
    """``what`` followed by the context (edition, split, languages ...) and the preset's
    signature (its models and their revisions, calibration, version), in one line."""
    parts = [what.rstrip(".") + "."]
    parts += [f"{k.replace('_', ' ').capitalize()}: {v}." for k, v in context.items() if v not in (None, "", ())]
    if signature:
        parts.append(f"Signature: {_signature_line(signature)}.")
    return " ".join(parts)


def csv_export(frame: pd.DataFrame, **options) -> bytes:
    """``frame`` as the UTF-8 bytes of a CSV file a person downloads (:func:`csv_text`)."""
    return csv_text(frame, **options).encode("utf-8")

