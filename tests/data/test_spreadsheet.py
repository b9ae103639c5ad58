"""One rule for formula cells in every CSV the app writes (the pages' downloads and the shell's
files): safe to open in a spreadsheet, and read back by the app as the text written."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from detox_core import config
from detox_core.data import load_human_judgements
from detox_core.data.spreadsheet import csv_text, spreadsheet_cell, unescape_cell

#: Texts people type: formulas, a dash or a plus that starts a sentence, texts that already look escaped.
TYPED = ["=HYPERLINK(\"http://example.com\",\"x\")", "- you are wrong", "+1 to that", "@admin stop", "\tindented",
         "'- a quote before a dash", "''=two quotes", "'plain quote", "it's fine", "-", "'", ""]


@pytest.mark.parametrize("typed", TYPED)
def test_a_cell_is_safe_in_a_spreadsheet_and_comes_back_as_typed(typed):
    written = spreadsheet_cell(typed)
    assert not written.startswith(("=", "+", "-", "@", "\t", "\r"))
    assert unescape_cell(written) == typed


def test_a_judgement_table_written_by_the_app_reads_back_whole():
    """A humaneval table of outputs a participant typed, as the pages and ``export-annotations``
    write it, loads with every text as typed (before: ``'- you are wrong`` came back with its quote,
    and matched no submission's output)."""
    texts = [t for t in TYPED if t.strip()]
    frame = pd.DataFrame({"toxic_sentence": [f"input {i}" for i in range(len(texts))], "neutral_sentence": texts,
                          "participant_name": ["=SUM(1)"] + ["sys"] * (len(texts) - 1), "comment": texts,
                          "non-toxicity": 1.0, "content": 1.0, "fluency": 1.0, "J": 1.0})
    written = csv_text(frame)
    cells = [c for row in csv.reader(io.StringIO(written)) for c in row]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@"))]
    back = load_human_judgements(written.encode("utf-8"), name="judgements.csv")
    assert back["neutral_sentence"].tolist() == texts and back["comment"].tolist() == texts
    assert back["participant_name"].iloc[0] == "=SUM(1)"


def test_the_shipped_judgement_tables_read_as_they_are():
    """The unescape changes no text of the published judgement tables the app reads."""
    path = config.data_dir() / "russe2022" / "human_eval_test.csv"
    if not path.is_file():
        pytest.skip("no RUSSE-2022 human evaluation here (make data)")
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    loaded = load_human_judgements(path)
    for col, raw_col in (("toxic_sentence", "original"), ("neutral_sentence", "method_output"),
                         ("participant_name", "participant_name"),
                         ("neutral_sentence_reference", "neutral_sentence_reference")):
        assert loaded[col].tolist() == raw[raw_col].tolist()
