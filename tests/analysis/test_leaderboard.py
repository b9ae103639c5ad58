"""Leaderboards on their own: system names, human scores by precedence, rankings per preset."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.analysis.leaderboard import (
    average_label,
    correlation,
    is_official,
    human_scores,
    human_vs_auto,
    local_boards,
    published_key,
    rank_label,
    system_key,
)
from detox_core.metrics.base import Signature, make_score_frame
from detox_core.submissions.store import Store

HUMAN = ("toxic_sentence,neutral_sentence,participant_name,non-toxicity,content,fluency,J\n"
         "a,b,orzhan,1,1,1,1\nc,d,orzhan,0,1,1,0\ne,f,delete,1,0,1,0\n")
PUBLISHED = ("team,method,j_auto,sta_human,sim_human,fl_human,j_human\n"
             "orzhan,mBART,0.5,0.9,0.9,0.9,0.7\nbaseline,ruT5,0.4,0.8,0.8,0.8,0.6\n"
             "solo,x,0.3,,,,0.2\n")


def test_system_names_are_comparable_across_files_and_papers():
    assert system_key("orzhan_test.txt") == system_key("Orzhan") == "orzhan"
    assert system_key("t5_base_10000_test.txt") == "rut5"  # the edition's alias: named ruT5 in the paper
    assert system_key("Team Name (v2).tsv") == "team_name_v2"
    # The shipped TextDetox 2024 sample outputs are named <system>_sample.tsv.
    assert system_key("gleb.shnshn_sample.tsv") == system_key("gleb.shnshn") == "gleb_shnshn"
    assert system_key("Team_SINAI_sample.tsv") == system_key("Team_SINAI") != system_key("Team")
    assert system_key("team_sample") == "team_sample"  # a name, not a file: nothing is cut
    assert published_key("baseline", "ruT5") == "rut5" and published_key("orzhan", "mBART") == "orzhan"


def test_human_scores_take_projects_then_judgements_then_the_paper(tiny_data):
    base = tiny_data / "russe2022"
    (base / "human_eval_test.csv").write_text(HUMAN, encoding="utf-8")
    (base / "leaderboard_published.csv").write_text(PUBLISHED, encoding="utf-8")
    projects = pd.DataFrame({"participant_name": ["delete", "orzhan"], "sta_human": [0.1, 0.9],
                             "sim_human": [0.2, 0.9], "fl_human": [0.3, 0.9], "j_human": [0.05, 0.9], "n": [60, 2],
                             "j_human_low": [0.01, 0.5], "j_human_high": [0.09, 1.0], "source": ["project p"] * 2})
    table = human_scores(annotations=projects)
    # A project's system under the minimum of judged outputs is named, not used: orzhan keeps the file's scores.
    assert table.attrs["below_minimum"] == [{"system": "orzhan", "n": 2, "source": "project p"}]
    table = table.set_index("key")
    assert table.loc["delete", "source"] == "project p" and table.loc["delete", "j_human"] == 0.05
    assert table.loc["delete", "n"] == 60 and table.loc["delete", "j_human_low"] == 0.01
    assert table.loc["orzhan", "source"] == "human_eval_test.csv"
    assert table.loc["orzhan", "sta_human"] == pytest.approx(0.5) and table.loc["orzhan", "j_human"] == 0.5
    assert table.loc["rut5", "source"] == "published leaderboard" and table.loc["rut5", "j_human"] == 0.6
    assert np.isnan(table.loc["rut5", "n"]) and np.isnan(table.loc["rut5", "j_human_low"])  # a paper gives no interval
    assert table.loc["orzhan", "n"] == 2 and table.loc["orzhan", "j_human_low"] <= 0.5 <= table.loc["orzhan", "j_human_high"]
    assert np.isnan(table.loc["solo", "sta_human"]) and table.loc["solo", "j_human"] == 0.2
    assert set(table.index) == {"delete", "orzhan", "rut5", "solo"}


def _frame(j: list[float], preset: str = "embedded") -> pd.DataFrame:
    x = np.asarray(j)
    return make_score_frame(x, np.ones_like(x), np.ones_like(x), np.full_like(x, 0.5), Signature(preset, "1"))


def test_local_boards_rank_within_one_preset_and_calibration(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    inputs, outputs = ["a", "b", "c", "d"], ["w", "x", "y", "z"]
    for name, j, preset in (("good_test.txt", [0.9, 0.8, 0.9, 0.85], "embedded"),
                            ("bad_test.txt", [0.1, 0.2, 0.1, 0.15], "embedded"),
                            ("other_test.txt", [0.5, 0.5, 0.5, 0.5], "russe2022")):
        store.add(name=name, sha256=name, dataset="russe2022", split="test", preset=preset, calibrated=True,
                  inputs=inputs, outputs=outputs,
                  scores=_frame(j, preset), source="upload")
    boards = {b.preset: b for b in local_boards(store, "russe2022", "test", n_boot=200)}
    assert set(boards) == {"embedded", "russe2022"}  # numbers of two presets never share a ranking
    emb = boards["embedded"].table
    assert emb["system"].tolist() == ["good_test.txt", "bad_test.txt"]
    assert emb["rank_low"].tolist() == [1, 2] and (emb["j_low"] <= emb["j"]).all() and (emb["j"] <= emb["j_high"]).all()
    humans = pd.DataFrame({"key": ["good", "bad"], "j_human": [0.7, 0.1], "source": ["x", "x"]})
    assert human_vs_auto(boards["embedded"], humans)["system"].tolist() == ["good_test.txt", "bad_test.txt"]
    assert rank_label(1, 1) == "1" and rank_label(2, 4) == "2-4"
    assert np.isnan(correlation(np.array([1, 2]), np.array([2, 1])))
    assert correlation(np.array([1, 2, 3]), np.array([1, 2, 3])) == pytest.approx(1.0)


# ------------------------------------------------------------------ multilingual editions


def test_a_published_table_cut_to_the_picked_languages_marks_partial_teams():
    from detox_core.analysis.leaderboard import heat_rows, published_view
    from detox_core.data.leaderboards import load_published

    table = load_published(b"team,en,ar,de,avg,rank\nA,0.6,0.4,0.2,0.4,1\nB,0.9,,,0.9,2\nC,,,0.5,,\n", "T",
                           name="t.csv")
    view = published_view(table, "j", ["en", "ar"])
    assert view["team"].tolist() == ["A", "B"]  # C has none of the picked languages
    assert view.loc[0, "mean"] == pytest.approx(0.5) and view.loc[0, "coverage"] == "all 2"
    assert not view.loc[1, "complete"] and view.loc[1, "coverage"] == "1 of 2 (no ar)"
    assert view.loc[1, "mean"] == pytest.approx(0.9) and np.isnan(view.loc[1, "ar"])
    assert view.loc[0, "avg"] == pytest.approx(0.4) and view.loc[0, "rank"] == 1  # the file's own, as published
    local = pd.DataFrame({"system": ["mine"], "complete": [True], "mean": [0.55], "en": [0.7], "ar": [0.4]})
    rows = heat_rows(view, local, ["en", "ar"])
    assert rows.index.tolist() == ["local: mine", "A", "B"]  # complete ones by mean, partial after
    assert np.isnan(rows.loc["B", "ar"]) and rows.loc["local: mine", "en"] == pytest.approx(0.7)
    assert heat_rows(view, None, ["en", "ar"], limit=1).index.tolist() == ["A"]


def test_stored_multilingual_submissions_are_ranked_per_preset_by_the_mean_over_languages(tmp_path):
    from detox_core.analysis.leaderboard import language_boards

    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    inputs = ["e1", "e2", "e3", "a1"]
    langs = ["en", "en", "en", "ar"]
    for name, j in (("good.tsv", [0.9, 0.9, 0.9, 0.1]), ("even.tsv", [0.5, 0.5, 0.5, 0.5])):
        scores = make_score_frame(np.array(j), np.ones(4), np.ones(4), np.full(4, np.nan),
                                  Signature("textdetox2024", "1"))  # J = STA here
        store.add(name=name, sha256=name, dataset="td", split="test", preset="textdetox2024", calibrated=False,
                  source="upload", inputs=inputs, outputs=inputs, scores=scores, langs=langs)
    (pb,) = language_boards(store, "td", "test", ["en", "ar"], "j", n_boot=100)
    table = pb.board.table
    # good: sentences 0.7, languages (0.9 + 0.1) / 2 = 0.5; even: 0.5 both ways.
    assert table.set_index("system").loc["good.tsv", "mean"] == pytest.approx(0.5)
    assert table["key"].tolist() == [system_key(s) for s in table["system"]]
    assert pb.preset == "textdetox2024" and table["complete"].all()


def test_an_edition_average_is_official_only_by_the_editions_own_preset():
    from detox_core.editions import EDITIONS

    td25, td24, russe = EDITIONS["textdetox2025"], EDITIONS["textdetox2024"], EDITIONS["russe2022"]
    assert average_label(td25, "avg_p", "textdetox2025") == "Official avg_p (9)"
    assert average_label(td25, "avg_np", "textdetox2025") == "Official avg_np (6)"
    assert average_label(td25, "avg_p", "embedded") == "avg_p (9 languages), Embedded (offline CPU) preset"
    # 2024's preset is official for 2024, not for 2025.
    assert average_label(td25, "avg_p", "textdetox2024") == "avg_p (9 languages), TextDetox 2024 preset"
    assert average_label(td24, "avg", "textdetox2024") == "Official avg (9)"
    # The official average is of J: the same mean of another axis names it.
    assert average_label(td25, "avg_p", "textdetox2025", axis="sta") == "STA avg_p (9 languages), TextDetox 2025 preset"
    # RUSSE-2022's official numbers are calibrated: raw ones are not official.
    assert is_official(russe, "russe2022") and not is_official(russe, "russe2022", calibrated=False)
    assert not is_official(russe, "embedded")
