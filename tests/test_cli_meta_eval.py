"""`python -m detox_core meta-eval` on the shipped sample."""

from __future__ import annotations

import pandas as pd

from detox_core import cli


def test_meta_eval_prints_and_writes(real_data, tmp_path, capsys):
    out = tmp_path / "meta.csv"
    code = cli.main(["meta-eval", "--human", str(real_data / "human_eval_test.csv"), "--n-boot", "100", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0 and "CLS_OLD_GEN" in printed and "J-2025" in printed
    table = pd.read_csv(out).set_index(["metric", "level"])
    assert round(table.loc[("CLS_OLD_GEN", "sentence"), "roc_auc"], 3) == 0.797
    assert round(table.loc[("SIM-INPUT-GEN", "sentence"), "roc_auc"], 3) == 0.678
    # The reference metrics against each output's reference, compared with human J (the
    # RUSSE-2022 study's question); BERTScore is off unless asked, so it is not in the table.
    for metric in ("chrF:j", "BLEU:j", "ROUGE-L:j"):
        assert metric in printed and table.loc[(metric, "sentence"), "n"] == 2625
        assert table.loc[(metric, "sentence"), "roc_auc"] > 0.6
    assert "BERTScore:j" not in printed


def test_meta_eval_bad_file(tmp_path, capsys):
    bad = tmp_path / "h.csv"
    bad.write_text("original,method_output\na,b\n", encoding="utf-8")
    assert cli.main(["meta-eval", "--human", str(bad)]) == 1
    assert "participant_name" in capsys.readouterr().err
