"""Paper-ready tables: LaTeX (booktabs) and Markdown that print user text literally."""

from __future__ import annotations

import math

import pandas as pd

from detox_core.analysis.export import latex_escape, signature_caption, to_latex, to_markdown, with_interval

NASTY = r"A&B_50% $x$ #1 {c} ~d ^e \f"


def table() -> pd.DataFrame:
    return pd.DataFrame({"rank": ["1", "2-3"], "system": [NASTY, "<b>bold</b> | *x*"],
                         "j": [with_interval(0.6123, 0.5981, 0.6274), with_interval(float("nan"))]})


def test_cells_carry_their_intervals_and_missing_values_read_as_a_dash():
    assert with_interval(0.6123, 0.5981, 0.6274) == "0.612 [0.598, 0.627]"
    assert with_interval(0.5, math.nan, math.nan, 2) == "0.50" and with_interval(math.nan) == "—"


def test_latex_is_booktabs_and_escapes_every_special_character():
    tex = to_latex(table(), {"rank": "Rank", "system": "System", "j": "J"}, "Test set: test. Signature: a_b=1%.")
    lines = tex.splitlines()
    assert r"\toprule" in lines and r"\midrule" in lines and r"\bottomrule" in lines
    assert r"\begin{tabular}{lrr}" in tex and r"Rank & System & J \\" in tex
    assert r"A\&B\_50\% \$x\$ \#1 \{c\} \textasciitilde{}d \textasciicircum{}e \textbackslash{}f" in tex
    assert r"1 & " in tex and r"0.612 [0.598, 0.627] \\" in tex and r"2-3 & " in tex and r"— \\" in tex
    assert r"\caption{Test set: test. Signature: a\_b=1\%.}" in tex
    # Every row has as many cells as the header: an escaped & never splits a cell.
    body = lines[lines.index(r"\midrule") + 1:lines.index(r"\bottomrule")]
    assert all(row.replace(r"\&", "").count("&") == 2 for row in body)


def test_markdown_prints_names_literally_and_keeps_its_columns():
    md = to_markdown(table(), {"rank": "Rank", "system": "System", "j": "J"}, "caption_with *stars*")
    rows = md.splitlines()
    assert rows[0] == "| Rank | System | J |" and rows[1] == "| --- | ---: | ---: |"
    assert r"\<b\>bold\</b\> \| \*x\*" in md  # no markup, no extra column
    assert all(r.replace("\\|", "").count("|") == 4 for r in rows[:4])
    assert rows[-1] == r"caption\_with \*stars\*"


def test_the_caption_names_the_test_set_and_the_signature():
    text = signature_caption("RUSSE-2022, test split: ranked by J", {"preset": "embedded", "version": "2"},
                             languages="ru")
    assert text == "RUSSE-2022, test split: ranked by J. Languages: ru. Signature: preset=embedded; version=2."
    assert latex_escape("a_b") == r"a\_b"
