"""Paper-ready tables: a ranking or a comparison as LaTeX (booktabs) and Markdown.

A table is written from a frame whose cells are already what the paper shows (numbers
with their 95% intervals as ``0.612 [0.598, 0.627]``, ranks such as ``1-2``), so the page,
the CSV and the paper say the same; the caption carries what makes the numbers
reproducible (edition, split, languages, the preset's signature). Number cells (per-language
scores) are rounded to the precision the page shows in LaTeX and Markdown; the CSV keeps
them at full precision for whoever recomputes from it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

#: Decimals of a score cell, as the pages show them (``format="%.3f"``).
DIGITS = 3

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "\n": " ", "\r": " "}


def latex_escape(text: object) -> str:
    """``text`` as LaTeX source that prints it literally (system names are user text)."""
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


def to_csv(frame: pd.DataFrame, columns: Mapping[str, str]) -> str:
    """The table as CSV with the headers of ``columns``: numbers at full precision, text cells
    that a spreadsheet would run as formulas neutralised (:func:`spreadsheet_safe`)."""
    return spreadsheet_safe(frame[list(columns)].rename(columns=dict(columns))).to_csv(index=False)


def to_latex(frame: pd.DataFrame, columns: Mapping[str, str], caption: str, label: str = "tab:detox",
             align: Sequence[str] | None = None, digits: int | Mapping[str, int] = DIGITS) -> str:
    """A ``table`` with a booktabs ``tabular`` (``\\toprule``, ``\\midrule``, ``\\bottomrule``).

    Args:
        frame: the rows, cells as they should print.
        columns: column -> header, in order.
        caption: said under the table (escaped).
        label: the ``\\label`` key, made safe by :func:`latex_label`.
        align: one of ``l``/``r``/``c`` per column (default: the first left, the others right).
        digits: decimals of number cells (see :func:`_cells`).
    """
    align = list(align or ["l"] + ["r"] * (len(columns) - 1))
    lines = [r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{''.join(align)}}}", r"\toprule",
             " & ".join(latex_escape(h) for h in columns.values()) + r" \\", r"\midrule"]
    lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in _cells(frame, columns, digits)]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{latex_escape(caption)}}}",
              rf"\label{{{latex_label(label)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_markdown(frame: pd.DataFrame, columns: Mapping[str, str], caption: str,
                digits: int | Mapping[str, int] = DIGITS) -> str:
    """A GitHub-flavoured Markdown table with the caption under it; number cells rounded to
    ``digits`` decimals (see :func:`_cells`)."""
    head = "| " + " | ".join(markdown_escape(h) for h in columns.values()) + " |"
    rule = "|" + "|".join([" --- "] + [" ---: "] * (len(columns) - 1)) + "|"
    rows = ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in _cells(frame, columns, digits)]
    return "\n".join([head, rule, *rows, "", markdown_escape(caption)]) + "\n"


def signature_caption(what: str, signature: Mapping | None = None, **context: object) -> str:
    """``what`` followed by the context (edition, split, languages ...) and the preset's
    signature (its models and their revisions, calibration, version), in one line."""
    parts = [what.rstrip(".") + "."]
    parts += [f"{k.replace('_', ' ').capitalize()}: {v}." for k, v in context.items() if v not in (None, "", ())]
    if signature:
        parts.append("Signature: " + "; ".join(f"{k}={v}" for k, v in signature.items()) + ".")
    return " ".join(parts)


#: What a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell that a spreadsheet would run as a formula (it starts with
    ``=``, ``+``, ``-``, ``@``, a tab or a carriage return: a name or an output a participant or an
    annotator typed) led by ``'``, as OWASP advises, so that opening an export runs nothing.
    Numbers (negative ones included) are left as they are."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(lambda v: f"'{v}" if isinstance(v, str) and v.startswith(FORMULA_STARTS) else v)
    return out


def csv_export(frame: pd.DataFrame, **options) -> bytes:
    """``frame`` as the UTF-8 bytes of a CSV file a person downloads (:func:`spreadsheet_safe`)."""
    return spreadsheet_safe(frame).to_csv(index=False, **options).encode("utf-8")

