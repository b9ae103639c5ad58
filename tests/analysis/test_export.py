"""Paper-ready tables: LaTeX (booktabs) and Markdown that print user text literally."""

from __future__ import annotations

import math
import re
import shutil
import subprocess

import pandas as pd
import pytest

from detox_core.analysis.export import (latex_escape, latex_label, signature_caption, to_csv, to_latex, to_markdown,
                                        with_interval)

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
    assert r"\begin{tabular}{rlr}" in tex and r"Rank & System & J \\" in tex
    assert r"A\&B\_50\% \$x\$ \#1 \{c\} \textasciitilde{}d \textasciicircum{}e \textbackslash{}f" in tex
    assert r"1 & " in tex and r"0.612 [0.598, 0.627] \\" in tex and r"2-3 & " in tex and r"— \\" in tex
    assert r"\caption{Test set: test. Signature: a\_b=1\%.}" in tex
    # Every row has as many cells as the header: an escaped & never splits a cell.
    body = lines[lines.index(r"\midrule") + 1:lines.index(r"\bottomrule")]
    assert all(row.replace(r"\&", "").count("&") == 2 for row in body)


def test_markdown_prints_names_literally_and_keeps_its_columns():
    md = to_markdown(table(), {"rank": "Rank", "system": "System", "j": "J"}, "caption_with *stars*")
    rows = md.splitlines()
    assert rows[0] == "| Rank | System | J |" and rows[1] == "| ---: | --- | ---: |"
    assert r"\<b\>bold\</b\> \| \*x\*" in md  # no markup, no extra column
    assert all(r.replace("\\|", "").count("|") == 4 for r in rows[:4])
    assert rows[-1] == r"caption\_with \*stars\*"


def test_the_caption_names_the_test_set_and_the_signature():
    text = signature_caption("RUSSE-2022, test split: ranked by J", {"preset": "embedded", "version": "2"},
                             languages="ru")
    assert text == "RUSSE-2022, test split: ranked by J. Languages: ru. Signature: preset=embedded|version=2."
    assert latex_escape("a_b") == r"a\_b"


def test_the_caption_prints_a_stored_signature_as_one_readable_line_not_a_dict():
    from detox_core.metrics.base import Signature

    sig = Signature(preset="textdetox2024", preset_version="1", library="0.9",
                    models={"sta": {"id": "textdetox/xlmr-large-toxicity-classifier", "revision": "0123456789abcdef"},
                            "sim": {"id": "sentence-transformers/LaBSE", "revision": ""}},
                    chrf="chrF2@sacrebleu-2.6.0").as_dict()
    text = signature_caption("TextDetox 2024, test split", sig)
    assert text == ("TextDetox 2024, test split. Signature: preset:textdetox2024|version:1|"
                    "sim:sentence-transformers/LaBSE|sta:textdetox/xlmr-large-toxicity-classifier@01234567|"
                    "chrf:chrF2@sacrebleu-2.6.0|lib:0.9.")
    nested = signature_caption("x", {"models": {"sta": {"id": "m"}}, "n": 2})
    for caption in (text, nested, to_latex(leaderboard(), LEADERBOARD_COLUMNS, text),
                    to_markdown(leaderboard(), LEADERBOARD_COLUMNS, text)):
        assert "{'" not in caption and "\\{'" not in caption and "': " not in caption, caption
    assert nested == "x. Signature: models.sta.id=m|n=2."


# A leaderboard as the page hands it to the downloads: the mean with its interval as text,
# the per-language scores and the judged outputs as the numbers the board computed.
LEADERBOARD_COLUMNS = {"rank": "Rank", "system": "System", "mean_cell": "J (mean)", "de": "de", "ru": "ru",
                       "judged": "Judged outputs"}


def leaderboard() -> pd.DataFrame:
    return pd.DataFrame({"rank": ["1", "2-3"], "system": ["team_a", NASTY],
                         "mean_cell": [with_interval(0.6123, 0.5981, 0.6274), with_interval(0.5, 0.4, 0.6)],
                         "de": [0.3338365207148793, float("nan")], "ru": [0.7125999, 0.5],
                         "judged": [50.0, float("nan")]})


def leaderboard_caption() -> str:
    return signature_caption("TextDetox 2024, test split: embedded · calibrated, ranked by the mean J",
                             {"preset": "embedded", "fit_digest": "a_b#1", "scale": "50%"}, languages="de, ru")


def test_every_export_rounds_per_language_cells_as_shown_and_the_csv_holds_numbers():
    digits = {"judged": 0}
    tex = to_latex(leaderboard(), LEADERBOARD_COLUMNS, "c", digits=digits)
    md = to_markdown(leaderboard(), LEADERBOARD_COLUMNS, "c", digits)
    for text in (tex, md):
        assert "0.334" in text and "0.713" in text and "0.500" in text, text
        assert "0.33383" not in text and "0.7125" not in text
        assert " 50 " in text and "50.0" not in text  # a count prints as one
    assert r"team\_a & 0.612 [0.598, 0.627] & 0.334 & 0.713 & 50 \\" in tex
    assert r"| 1 | team\_a | 0.612 \[0.598, 0.627\] | 0.334 | 0.713 | 50 |" in md.splitlines()
    assert r"— & 0.500 & — \\" in tex  # missing values stay a dash
    import io

    csv = to_csv(leaderboard(), LEADERBOARD_COLUMNS, digits)
    assert csv.splitlines()[0] == "Rank,System,J (mean),J (mean)_low,J (mean)_high,de,ru,Judged outputs"
    back = pd.read_csv(io.StringIO(csv))
    # Numbers as numbers: the interval in columns of its own, every number rounded as the page shows it.
    assert back["J (mean)"].tolist() == [0.612, 0.5] and back["J (mean)_low"].tolist() == [0.598, 0.4]
    assert back["J (mean)_high"].tolist() == [0.627, 0.6]
    assert back["de"].iloc[0] == 0.334 and math.isnan(back["de"].iloc[1]) and back["ru"].tolist() == [0.713, 0.5]
    assert csv.splitlines()[1].endswith(",0.334,0.713,50") and "[" not in csv and "0.33383" not in csv
    assert all(pd.api.types.is_float_dtype(back[c]) for c in ("J (mean)", "J (mean)_low", "de", "ru"))


def test_the_latex_label_is_a_plain_key_made_from_the_table_name():
    tex = to_latex(leaderboard(), LEADERBOARD_COLUMNS, "c", label="tab:leaderboard_textdetox2024_test_embedded")
    labels = re.findall(r"\\label\{([^}]*)\}", tex)
    assert labels == ["tab:leaderboard-textdetox2024-test-embedded"]
    assert latex_label("tab:leaderboard_ü #1") == "tab:leaderboard-1"
    assert re.fullmatch(r"[A-Za-z0-9:.-]+", latex_label("tab:x_{y}\\z"))


def _pipe_cells(row: str) -> list[str]:
    assert row.startswith("|") and row.endswith("|"), row
    return re.split(r"(?<!\\)\|", row[1:-1])


def test_the_markdown_is_a_table_with_every_row_as_wide_as_its_header():
    md = to_markdown(leaderboard(), LEADERBOARD_COLUMNS, leaderboard_caption(), {"judged": 0})
    lines = md.splitlines()
    table, caption = lines[:lines.index("")], lines[lines.index("") + 1:]
    width = len(LEADERBOARD_COLUMNS)
    assert [c.strip() for c in _pipe_cells(table[0])] == list(LEADERBOARD_COLUMNS.values())
    rule = _pipe_cells(table[1])
    assert len(rule) == width and all(re.fullmatch(r"\s*:?-{3,}:?\s*", c) for c in rule)
    assert len(table) == 2 + len(leaderboard()) and all(len(_pipe_cells(r)) == width for r in table)
    assert caption and not any(line.startswith("|") for line in caption)
    # Rendered as GitHub and most editors render Markdown (CommonMark with GFM tables), it is one table:
    # a header and a row per system, every escaped character shown as itself.
    from markdown_it import MarkdownIt  # installed with Streamlit (through rich)

    html = MarkdownIt("commonmark").enable("table").render(md)
    assert html.count("<table>") == 1 and len(re.findall(r"<th[ >]", html)) == width
    assert html.count("<tr>") == 1 + len(leaderboard())
    assert len(re.findall(r"<td[ >]", html)) == width * len(leaderboard())
    assert "team_a" in html and "0.334" in html and "A&amp;B_50% $x$ #1 {c} ~d ^e \\f" in html


def _tex_missing() -> str | None:
    if not shutil.which("pdflatex"):
        return "pdflatex is not installed (Debian: texlive-latex-base)"
    found = subprocess.run(["kpsewhich", "booktabs.sty"], capture_output=True, text=True) \
        if shutil.which("kpsewhich") else None
    if found is None or found.returncode != 0 or not found.stdout.strip():
        return "booktabs.sty is not installed (Debian: texlive-latex-recommended)"
    return None


def test_the_latex_export_compiles_in_a_paper(tmp_path):
    if reason := _tex_missing():
        pytest.skip(reason)
    (tmp_path / "leaderboard.tex").write_text(
        to_latex(leaderboard(), LEADERBOARD_COLUMNS, leaderboard_caption(),
                 label="tab:leaderboard_textdetox2024_test_embedded", digits={"judged": 0}), encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{leaderboard}\n"
        "Table~\\ref{tab:leaderboard-textdetox2024-test-embedded}.\n\\end{document}\n", encoding="utf-8")
    for _ in range(2):  # the second run resolves the \ref to the \label
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "paper.pdf").stat().st_size > 0
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert "undefined" not in log.lower() and "Missing character" not in log, log[-3000:]


def test_csv_exports_neutralise_cells_a_spreadsheet_would_run():
    """A participant's system name or output, an annotator's name: a cell starting with = + - @, a
    tab or a carriage return goes out led by a quote; numbers, negative ones too, stay numbers."""
    import io

    from detox_core.analysis.export import csv_export, spreadsheet_safe, to_csv

    frame = pd.DataFrame({"system": ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "plain"],
                          "delta": [-0.5, 0.1, -1.0, 2.0, 0.0, 1.0]})
    safe = spreadsheet_safe(frame)
    assert safe["system"].tolist() == ["'=HYPERLINK(\"http://x\")", "'+1+1", "'-2+3", "'@SUM(A1)", "'\tx", "plain"]
    assert safe["delta"].tolist() == frame["delta"].tolist()
    back = pd.read_csv(io.BytesIO(csv_export(frame)))
    assert not back["system"].str.match(r"^[=+\-@]").any() and back["delta"].tolist() == frame["delta"].tolist()
    board = pd.read_csv(io.StringIO(to_csv(frame, {"system": "System", "delta": "Δ"})))
    assert board["System"].iloc[0].startswith("'=")
