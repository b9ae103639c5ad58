"""An LLM judge's missing answers downstream: stored as empty (not zero), skipped by the
system means, shown as n/a in the sentence table, and a database made before the columns
could be empty is upgraded in place."""

from __future__ import annotations

import math

import numpy as np
import sqlalchemy as sa

from detox_core.analysis.leaderboard import local_boards
from detox_core.llm.cache import ResponseCache
from detox_core.metrics import get_preset
from detox_core.submissions.service import sentence_table
from detox_core.submissions.store import Store
from tests.llm.fake_llm import GARBAGE_MARK, FakeLLM
from tests.llm.test_llm_judge import judge


def test_missing_answers_are_stored_empty_and_skipped_by_the_means(tmp_path):
    inputs = ["you idiot", f"shut up {GARBAGE_MARK}", "what a stupid idea"]
    outputs = ["you are wrong", "please be quiet", "an odd idea"]
    with FakeLLM() as server:
        frame = judge(server, ResponseCache(f"sqlite:///{tmp_path / 'judge.sqlite'}")).score(inputs, outputs)
    assert frame.loc[1, ["sta", "sim", "j"]].isna().all()
    store = Store(f"sqlite:///{tmp_path / 'subs.sqlite'}")
    stored = store.add(name="sys_test.txt", sha256="x", dataset="d", split="test", preset="llm-judge", calibrated=True,
                       source="upload", inputs=inputs, outputs=outputs, scores=frame)
    back = store.scores(stored.id)
    assert math.isnan(back.loc[1, "sta"]) and math.isnan(back.loc[1, "sim"])
    listed = store.list().iloc[0]
    assert listed["j"] == np.nanmean(frame["j"]) and listed["sta"] == np.nanmean(frame["sta"])
    table = sentence_table(back, [[] for _ in inputs], frozenset())
    assert len(table) == 3 and math.isnan(table.loc[1, "j"])
    boards = local_boards(store, "d", "test", n_boot=20)
    assert boards and boards[0].table["j"].notna().all()


def test_an_older_database_lets_sta_and_sim_be_empty(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE submissions (id INTEGER PRIMARY KEY, name VARCHAR(200) NOT NULL, sha256 "
                             "VARCHAR(64) NOT NULL, dataset VARCHAR(100) NOT NULL, split VARCHAR(50) NOT NULL, preset "
                             "VARCHAR(50) NOT NULL, calibrated BOOLEAN NOT NULL, source VARCHAR(20) NOT NULL, n INTEGER "
                             "NOT NULL, signature TEXT NOT NULL, created_at DATETIME NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE sentence_scores (submission_id INTEGER NOT NULL REFERENCES submissions(id) "
                             "ON DELETE CASCADE, idx INTEGER NOT NULL, input TEXT NOT NULL, output TEXT NOT NULL, sta "
                             "FLOAT NOT NULL, sim FLOAT NOT NULL, fl FLOAT, j FLOAT, chrf FLOAT, sta_raw FLOAT NOT NULL, "
                             "sim_raw FLOAT NOT NULL, fl_raw FLOAT, j_raw FLOAT, PRIMARY KEY (submission_id, idx))")
        conn.exec_driver_sql("INSERT INTO submissions VALUES (1, 'old', 'h', 'd', 'test', 'embedded', 1, 'cli', 1, "
                             "'{}', '2025-01-01 00:00:00')")
        conn.exec_driver_sql("INSERT INTO sentence_scores VALUES (1, 0, 'a', 'b', 0.5, 0.5, 1, 0.25, NULL, 0.5, 0.5, "
                             "1, 0.25)")
    store = Store(url)
    assert store.scores(1)["j"].tolist() == [0.25]  # the old row is kept
    nullable = {c["name"]: c["nullable"] for c in sa.inspect(store.engine).get_columns("sentence_scores")}
    assert nullable["sta"] and nullable["sim"] and nullable["sta_raw"] and nullable["sim_raw"]


def test_preset_is_listed_with_its_model_free_signature(tmp_path):
    with FakeLLM() as server:
        preset = judge(server, ResponseCache(f"sqlite:///{tmp_path / 'judge.sqlite'}"))
        sig = preset.signature()
    assert sig.models["judge"]["endpoint"] == server.url and "api_key" not in repr(sig.as_dict())
    assert get_preset("llm-judge").name == "llm-judge"


def _multilingual(seed: int):
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = 60
    frame = pd.DataFrame({"idx": range(n), "input": [f"x{i}" for i in range(n)],
                          "output": [f"y{i}-{seed}" for i in range(n)], "lang": ["en"] * 30 + ["ru"] * 30})
    for col in ("sta", "sim", "fl", "j", "chrf", "sta_raw", "sim_raw", "fl_raw", "j_raw"):
        frame[col] = rng.random(n)
    frame.loc[[3, 40], ["sta", "j", "sta_raw", "j_raw"]] = np.nan  # one unanswered question in each language
    return frame


def test_one_missing_answer_leaves_out_that_sentence_not_its_language():
    from detox_core.analysis.compare import paired_differences, side_by_side, system_means
    from detox_core.stats.languages import language_board
    from detox_core.stats.bootstrap import rank_systems

    a, b = _multilingual(1), _multilingual(2)
    board = language_board({"a": a, "b": b}, ["en", "ru"], "j", n_boot=50)
    assert board.unscored == []
    row = board.table.set_index("system").loc["a"]
    assert row["en"] == np.nanmean(a.loc[a["lang"] == "en", "j"]) and not math.isnan(row["mean"])
    table = side_by_side({"a": a, "b": b})
    means = system_means(table, ["a", "b"], 50, by_language=True).set_index(["system", "axis"])
    assert means.loc[("a", "j"), "unscored"] == "" and not math.isnan(means.loc[("a", "j"), "mean"])
    diff = paired_differences(table, ["a", "b"], 50, by_language=True).set_index("axis").loc["j"]
    assert diff["n"] == 58 and diff["unscored"] == ""
    # A missing score is not a difference: two systems equal but for the gaps are tied, not "significant".
    same = a.copy()
    same.loc[[5], "j"] = np.nan
    ranking = rank_systems({"a": a["j"].to_numpy(), "same": same["j"].to_numpy()}, n_boot=50)
    assert ranking.p_values.loc["a", "same"] == 1.0 and set(ranking.table["group"]) == {1}


def test_a_missing_axis_is_said_not_computed():
    from detox_core.submissions.explain import explain_j

    assert explain_j(float("nan"), 1.0, 1.0) == "J n/a: no STA score."
    assert explain_j(1.0, 0.4, 1.0).startswith("J 0.40: the meaning score (SIM 0.40) is the lowest axis")
