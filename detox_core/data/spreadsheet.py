"""Text cells of the CSV files the app writes, safe to open in a spreadsheet and read back whole.

A cell a spreadsheet would run as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return: an output, a name or a comment someone typed) is written led by ``'``, as
OWASP advises, in every CSV the pages offer and the shell writes: one rule. A cell that already
looks escaped (``'`` before a formula start) gets one more, so the readers of the files the app
reads back (judgement tables, ``score --out`` folders) take exactly one away
(:func:`unescape_cell`) and an export read back is the text exported.

The corpus TSV files (the editions' own format, which their official scripts read) are written
as they are.
"""

from __future__ import annotations

import re

import pandas as pd

#: What a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: A cell the escape below leaves: one or more ``'`` before a formula start.
_ESCAPED = re.compile(r"'+[=+\-@\t\r]")


def spreadsheet_cell(value: object) -> object:
    """One cell of :func:`spreadsheet_safe`: a text that starts as a formula, or as one this
    escape already led by ``'`` (so that :func:`unescape_cell` can take exactly one back), gets a
    leading ``'``; anything else is returned as it is."""
    if isinstance(value, str) and (value.startswith(FORMULA_STARTS) or _ESCAPED.match(value)):
        return f"'{value}"
    return value


def unescape_cell(value: str) -> str:
    """The text :func:`spreadsheet_cell` escaped: one leading ``'`` fewer before a formula start
    (``'- you`` is ``- you``, ``''=x`` is ``'=x``); any other text as it is. The readers of the
    files this app writes and reads back (judgement tables, ``score --out`` folders) apply it,
    so an export read back is the text exported."""
    return value[1:] if _ESCAPED.match(value) else value


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell that a spreadsheet would run as a formula (it starts with
    ``=``, ``+``, ``-``, ``@``, a tab or a carriage return: a name or an output a participant or an
    annotator typed) led by ``'``, as OWASP advises, so that opening an export runs nothing.
    Numbers (negative ones included) are left as they are. One rule for the pages' downloads and
    the shell's files, lossless where the app reads a file back (:func:`unescape_cell`)."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(spreadsheet_cell)
    return out


def csv_text(frame: pd.DataFrame, **options) -> str:
    """``frame`` as the text of a CSV file (:func:`spreadsheet_safe`; ``options`` go to
    ``DataFrame.to_csv``): what the shell's commands write."""
    return spreadsheet_safe(frame).to_csv(index=False, **options)
