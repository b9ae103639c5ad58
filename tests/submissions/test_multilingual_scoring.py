"""Multilingual submissions scored through the real loading code (tiny models under the
real ids of the 2024 recipe), stored with their languages and ranked by the mean over
languages: the six systems of the meta-evaluation sample, and systems on a split with
references."""

from __future__ import annotations

import numpy as np
import pytest

from detox_core.analysis.corpus import prepare_corpus
from detox_core.analysis.leaderboard import language_boards
from detox_core.editions.textdetox import SAMPLE_SYSTEMS, TEXTDETOX2024
from detox_core.submissions.service import score_and_store_multilingual, split_rows
from detox_core.submissions.store import Store
from tests.multilingual import MIRROR, hub_named_models, needs_mirror, small_textdetox, tsv

pytestmark = needs_mirror


@pytest.fixture
def models(tiny_models, tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_MODEL_DIR", str(hub_named_models(tiny_models, tmp_path / "hub_models")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_the_six_sample_systems_score_sta_and_sim_everywhere_and_rank_by_the_mean_over_languages(tmp_path, models,
                                                                                                   monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    report = TEXTDETOX2024.fetch(None, [MIRROR], download=False)
    assert not report.missing
    rows = split_rows(prepare_corpus(TEXTDETOX2024.load(["sample"])), "sample")
    assert len(rows) == 720 and rows["lang"].value_counts().eq(80).all()
    store = Store(f"sqlite:///{tmp_path / 'detox.sqlite'}")
    for system in SAMPLE_SYSTEMS:
        content = TEXTDETOX2024.path(f"outputs/{system}_sample.tsv").read_text(encoding="utf-8")
        # Two languages of each system's outputs (the rest is the same code, and slower): partial submissions.
        header, *lines = content.splitlines()
        kept = [ln for ln in lines if ln.endswith(("\tar", "\tzh"))]
        result = score_and_store_multilingual(store, ("\n".join([header, *kept]) + "\n").encode("utf-8"),
                                              f"{system}.tsv", dataset=TEXTDETOX2024.name, split="sample", rows=rows,
                                              preset="textdetox2024", calibrated=True, source="shipped")
        assert result.submission.partial and set(result.submission.languages) == {"ar", "zh"}
        scores = store.scores(result.stored.id)
        assert len(scores) == 160 and scores[["sta", "sim"]].notna().all().all()
        assert scores[["fl", "j"]].isna().all().all()  # the sample's inputs are test inputs: no public references
    board = language_boards(store, TEXTDETOX2024.name, "sample", ["ar", "zh"], axis="sta", n_boot=200)[0].board
    assert len(board.table) == 6 and board.table["complete"].all() and board.table["group"].notna().all()
    # The mean over languages: each language's mean STA counts once.
    first = board.table.iloc[0]
    scores = store.scores(int(store.list().set_index("name").loc[first["system"], "id"]))
    assert first["mean"] == pytest.approx(scores.groupby("lang")["sta"].mean().mean())
    j_board = language_boards(store, TEXTDETOX2024.name, "sample", ["ar", "zh"], axis="j", n_boot=50)[0].board
    assert j_board.unscored == ["ar", "zh"]  # n/a, said; never a zero


def test_with_references_the_ranking_is_by_the_mean_j_over_languages(tmp_path, models, monkeypatch):
    base = small_textdetox(tmp_path, per_language=4, without_references=("am",))
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    rows = split_rows(prepare_corpus(TEXTDETOX2024.load(["dev"])), "dev")
    store = Store(f"sqlite:///{tmp_path / 'detox.sqlite'}")
    header = ("toxic_sentence", "neutral_sentence", "lang")
    # "copy" repeats the input; "human" writes the reference (the input itself in Amharic, which has none).
    copy = tsv(header, zip(rows["toxic_comment"], rows["toxic_comment"], rows["lang"]))
    human = tsv(header, zip(rows["toxic_comment"], [r or t for r, t in zip(rows["neutral_comment1"],
                                                                            rows["toxic_comment"])], rows["lang"]))
    for name, content in (("copy.tsv", copy), ("human.tsv", human)):
        score_and_store_multilingual(store, content.encode("utf-8"), name, dataset=TEXTDETOX2024.name, split="dev",
                                     rows=rows, preset="textdetox2024", calibrated=True, source="upload")
    board = language_boards(store, TEXTDETOX2024.name, "dev", list(TEXTDETOX2024.languages), axis="j",
                            n_boot=200)[0].board
    assert board.unscored == ["am"]
    table = board.table.set_index("system")
    for name in ("copy.tsv", "human.tsv"):
        scores = store.scores(int(store.list().set_index("name").loc[name, "id"]))
        per_language = scores[scores["lang"] != "am"].groupby("lang")["j"].mean()
        assert len(per_language) == 8 and table.loc[name, "mean"] == pytest.approx(per_language.mean())
        assert np.isnan(table.loc[name, "am"])
    # chrF of the reference against itself is 1: the human rewrite's FL is 1 wherever a reference exists.
    human_scores = store.scores(int(store.list().set_index("name").loc["human.tsv", "id"]))
    assert np.allclose(human_scores.loc[human_scores["lang"] != "am", "fl"], 1.0)
    assert base.is_dir()
