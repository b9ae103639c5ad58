"""Import of a crowd-platform TSV export and its aggregation (library and CLI)."""

from __future__ import annotations

import pandas as pd
import pytest

from detox_core import cli
from detox_core.annotation.crowd import aggregate_crowd, load_crowd_tsv
from detox_core.errors import DetoxInputError

TRUTH = {"ты дебил": "true", "хорошая погода": "false", "иди нахрен": "true", "спасибо большое": "false"}
CONTROL = {"сука": "true", "добрый день": "false"}
HEADER = "INPUT:text\tOUTPUT:result\tGOLDEN:result\tASSIGNMENT:worker_id\tASSIGNMENT:started\tASSIGNMENT:submitted\tASSIGNMENT:status"


def flip(v: str) -> str:
    return "false" if v == "true" else "true"


def write_export(path):
    lines = [HEADER]
    workers = [f"w{k}" for k in range(5)] + ["bad"]
    for w in workers:
        wrong = w == "bad"
        start, end = "2026-11-01T10:00:00", "2026-11-01T10:01:00"
        for text, label in TRUTH.items():
            lines.append(f"{text}\t{flip(label) if wrong else label}\t\t{w}\t{start}\t{end}\tACCEPTED")
        for text, label in CONTROL.items():
            lines.append(f"{text}\t{flip(label) if wrong else label}\t{label}\t{w}\t{start}\t{end}\tACCEPTED")
    lines.append(f"\ttrue\t\tw0\t{start}\t{end}\tACCEPTED")  # empty input
    lines.append(f"\tfalse\t\tw1\t{start}\t{end}\tACCEPTED")
    lines.append(f"ты дебил\tfalse\t\tw9\t{start}\t{end}\tREJECTED")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("method", ["mv", "ds"])
def test_import_and_aggregate_to_the_expected_labels(tmp_path, method):
    results = load_crowd_tsv(write_export(tmp_path / "tox.tsv"), "toxicity")
    assert results.skipped_empty == 2 and results.skipped_rejected == 1
    # 6 items per page of 1 minute: 10 s an item.
    assert results.answers["seconds"].iloc[0] == pytest.approx(10.0)
    table = aggregate_crowd(results, method).set_index("INPUT:text")
    assert set(table.index) == set(TRUTH)  # control items are not aggregated
    for text, label in TRUTH.items():
        assert table.loc[text, "label"] == (1.0 if label == "true" else 0.0)
        assert table.loc[text, "votes"] == 5  # the bad worker failed the controls and is out


def test_cli_aggregate(tmp_path, capsys):
    out = tmp_path / "labels.csv"
    code = cli.main(["aggregate", "--crowd", str(write_export(tmp_path / "tox.tsv")), "--task", "toxicity",
                     "--method", "mv", "--out", str(out)])
    assert code == 0 and "4 items, 4 labelled" in capsys.readouterr().out
    table = pd.read_csv(out)
    assert list(table.columns) == ["INPUT:text", "label", "confidence", "votes"]


def test_bad_answer_and_missing_columns(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text(HEADER + "\nтекст\tmaybe\t\tw0\t\t\tACCEPTED\n", encoding="utf-8")
    with pytest.raises(DetoxInputError) as info:
        load_crowd_tsv(bad, "toxicity")
    assert info.value.line == 2 and info.value.column == "OUTPUT:result"
    (tmp_path / "cols.tsv").write_text("text\tresult\nа\ttrue\n", encoding="utf-8")
    with pytest.raises(DetoxInputError, match="INPUT:"):
        load_crowd_tsv(tmp_path / "cols.tsv", "toxicity")


def test_fluency_labels(tmp_path):
    path = tmp_path / "fl.tsv"
    rows = [HEADER.replace("INPUT:text", "INPUT:text")]
    for k, answer in enumerate(["fluent", "partially", "not", "1", "0.5"]):
        rows.append(f"предложение\t{answer}\t\tw{k}\t\t\tACCEPTED")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    results = load_crowd_tsv(path, "fluency")
    assert sorted(results.answers["label"]) == [0.0, 0.5, 0.5, 1.0, 1.0]
