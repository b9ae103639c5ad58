"""Paper-ready tables: a ranking or a comparison as LaTeX (booktabs) and Markdown.

A table is written from a frame whose cells are already what the paper shows (numbers
with their 95% intervals as ``0.612 [0.598, 0.627]``, ranks such as ``1-2``), so the page,
the CSV and the paper say the same; the caption carries what makes the numbers
reproducible (edition, split, languages, the preset's signature).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: object) -> str:
    """``text`` as LaTeX source that prints it literally (system names are user text)."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


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


def _cells(frame: pd.DataFrame, columns: Mapping[str, str]) -> list[list[str]]:
    return [["—" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in row]
            for row in frame[list(columns)].itertuples(index=False)]


def to_latex(frame: pd.DataFrame, columns: Mapping[str, str], caption: str, label: str = "tab:detox",
             align: Sequence[str] | None = None) -> str:
    """A ``table`` with a booktabs ``tabular`` (``\\toprule``, ``\\midrule``, ``\\bottomrule``).

    Args:
        frame: the rows, cells as they should print.
        columns: column -> header, in order.
        caption: said under the table (escaped).
        align: one of ``l``/``r``/``c`` per column (default: the first left, the others right).
    """
    align = list(align or ["l"] + ["r"] * (len(columns) - 1))
    lines = [r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{''.join(align)}}}", r"\toprule",
             " & ".join(latex_escape(h) for h in columns.values()) + r" \\", r"\midrule"]
    lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in _cells(frame, columns)]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{latex_escape(caption)}}}",
              rf"\label{{{latex_escape(label)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_markdown(frame: pd.DataFrame, columns: Mapping[str, str], caption: str) -> str:
    """A GitHub-flavoured Markdown table with the caption under it."""
    head = "| " + " | ".join(markdown_escape(h) for h in columns.values()) + " |"
    rule = "|" + "|".join([" --- "] + [" ---: "] * (len(columns) - 1)) + "|"
    rows = ["| " + " | ".join(markdown_escape(c) for c in row) + " |" for row in _cells(frame, columns)]
    return "\n".join([head, rule, *rows, "", markdown_escape(caption)]) + "\n"


def signature_caption(what: str, signature: Mapping | None = None, **context: object) -> str:
    """``what`` followed by the context (edition, split, languages ...) and the preset's
    signature (its models and their revisions, calibration, version), in one line."""
    parts = [what.rstrip(".") + "."]
    parts += [f"{k.replace('_', ' ').capitalize()}: {v}." for k, v in context.items() if v not in (None, "", ())]
    if signature:
        parts.append("Signature: " + "; ".join(f"{k}={v}" for k, v in signature.items()) + ".")
    return " ".join(parts)
