"""``train-embedded`` learns from human judgements when given them, and says what it decided."""

from __future__ import annotations

import json

from detox_core import cli
from detox_core.analysis import embedded_fit as learn
from detox_core.embedded import fitted
from tests.conftest import write_tiny_dataset
from tests.embedded.test_fitted import judgements


def test_train_embedded_fits_on_a_judgements_file(tmp_path, monkeypatch, capsys):
    write_tiny_dataset(tmp_path)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    path = tmp_path / "my judgements.csv"
    judgements().to_csv(path, index=False)
    assert cli.main(["train-embedded", "--judgements", str(path)]) == 0
    out = capsys.readouterr()
    folder = next((tmp_path / "models").glob("embedded-*"))
    raw = json.loads((folder / fitted.ARTIFACT).read_text(encoding="utf-8"))
    assert raw["source"] == "my judgements.csv" and raw["n_pairs"] == 24 and raw["systems"] == ["broken", "copy", "good"]
    # The decision printed is the one the protocol takes on the figures it saved.
    used, reason = learn.decide(raw["evaluation"])
    assert raw["used"] is used and raw["reason"] == reason
    assert "leaving each of 3 systems out" in out.err and f"fitted: {'used' if used else 'not used, the recipe scores'}: {reason}" in out.err
    # The same judgements again: nothing refitted.
    assert cli.main(["train-embedded", "--judgements", str(path)]) == 0
    assert "already fitted on my judgements.csv" in capsys.readouterr().err


def test_without_judgements_nothing_is_fitted(tmp_path, monkeypatch, capsys):
    write_tiny_dataset(tmp_path)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    assert cli.main(["train-embedded"]) == 0  # the tiny data folder has no human evaluation
    assert "nothing fitted on people" in capsys.readouterr().err
    assert not list((tmp_path / "models").glob(f"embedded-*/{fitted.ARTIFACT}"))


def test_a_bad_judgements_file_names_file_line_and_column(tmp_path, monkeypatch, capsys):
    write_tiny_dataset(tmp_path)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    frame = judgements().astype({"content": object})
    frame.loc[4, "content"] = "maybe"
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    assert cli.main(["train-embedded", "--judgements", str(path)]) == 1
    err = capsys.readouterr().err
    assert "bad.csv" in err and "line 6" in err and "content" in err
