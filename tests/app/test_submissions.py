"""AppTest of the Submissions page: shipped outputs scored, stored, recognised, filtered."""

from __future__ import annotations

import pytest

from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from tests.app.helpers import run
from detox_core.submissions.store import Store

pytestmark = pytest.mark.usefixtures("no_shipped_agreement")  # tables read by position

PAGE = str(PROJECT_ROOT / "pages" / "submissions.py")



def score_shipped(at: AppTest, name: str) -> AppTest:
    at.selectbox(key="sub_shipped").set_value(name)
    run(at)
    next(b for b in at.button if b.label == "Score this output").click()
    return run(at)


def test_shipped_output_is_scored_stored_and_shown(trained):
    at = run(AppTest.from_file(PAGE, default_timeout=60))
    assert at.selectbox(key="split").value == "test"
    assert "No submission scored" in at.info[0].value
    score_shipped(at, "delete")
    assert any("scored and stored" in s.value for s in at.success)
    stored = Store(f"sqlite:///{trained / 'detox.sqlite'}").list()
    assert list(stored["name"]) == ["delete_test.txt"] and stored.loc[0, "n"] == 1
    table = at.dataframe[1].value
    assert list(table["output"]) == ["как же надоело"] and list(table["line"]) == [1]
    # its summary, as `detox score` gives it: one pair, so a mean and no interval, said so
    summary = next(m.value for m in at.markdown if m.value.startswith("**Means with 95% intervals**: J"))
    assert "J %.3f (interval n/a, too few pairs)" % table["j"].iloc[0] in summary and "(over pairs; n = 1)" in summary
    # A reload (a new session) sees it without scoring.
    again = run(AppTest.from_file(PAGE, default_timeout=60))
    assert "delete_test.txt" in again.dataframe[0].value["name"].tolist()


def test_the_same_file_is_recognised(trained):
    at = run(AppTest.from_file(PAGE, default_timeout=60))
    score_shipped(at, "delete")
    score_shipped(at, "delete")
    assert any("scored before" in i.value for i in at.info)
    assert len(Store(f"sqlite:///{trained / 'detox.sqlite'}").list()) == 1


def test_filters_and_flags(trained):
    at = run(AppTest.from_file(PAGE, default_timeout=60))
    score_shipped(at, "copy")
    assert at.dataframe[1].value["flags"].iloc[0].startswith("unchanged copy")
    at.multiselect(key="sub_flags").set_value(["unchanged copy of the input"])
    run(at)
    assert len(at.dataframe[1].value) == 1
    at.text_input(key="sub_q").input("нет такого текста")
    run(at)
    assert len(at.dataframe[1].value) == 0


def test_official_preset_without_models_stores_nothing(trained, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = run(AppTest.from_file(PAGE, default_timeout=60))
    at.segmented_control(key="sub_preset").set_value("RUSSE-2022 official")
    run(at)
    # Known before scoring: the page says so and offers no scoring with it.
    assert any("**RUSSE-2022 official** cannot score on this server" in w.value for w in at.warning)
    assert all(b.disabled for b in at.button if b.label.startswith("Score"))
    assert Store(f"sqlite:///{trained / 'detox.sqlite'}").list().empty


def test_a_model_that_fails_to_load_is_said_in_the_visitors_terms(trained, monkeypatch):
    """A model the check found (in the hub cache) but that cannot load: which model, no
    command-line advice, and the preset that runs instead."""
    from detox_core.models import pool as pool_module

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(pool_module, "in_hub_cache", lambda model_id: True)  # a broken cached copy
    at = run(AppTest.from_file(PAGE, default_timeout=60))
    at.segmented_control(key="sub_preset").set_value("RUSSE-2022 official")
    run(at)
    score_shipped(at, "delete")
    errors = " ".join(e.value for e in at.error)
    assert "Not scored: the toxicity classifier (s-nlp/russian" in errors and "could not be loaded" in errors
    assert "`" not in errors and "--model" not in errors
    assert any("choose **Embedded (offline CPU)**" in i.value for i in at.info)
    assert Store(f"sqlite:///{trained / 'detox.sqlite'}").list().empty


def test_reference_metrics_and_the_official_script_chrf_are_shown(trained):
    import math

    import pytest
    from nltk.translate.chrf_score import corpus_chrf

    at = run(AppTest.from_file(PAGE, default_timeout=60))
    score_shipped(at, "copy")  # "сука как же надоело" against the reference "как же надоело"
    listed = at.dataframe[0].value
    assert {"chrf", "bleu", "rouge_l", "bertscore", "chrf_official"} <= set(listed.columns)
    row = listed.iloc[0]
    # The RUSSE-2022 script's nltk corpus chrF, beside (and not equal to) sacrebleu's sentence chrF.
    assert row["chrf_official"] == pytest.approx(corpus_chrf([["как же надоело"]], ["сука как же надоело"]))
    assert abs(row["chrf_official"] - row["chrf"]) > 0.01
    assert row["rouge_l"] == pytest.approx(2 * 0.75 / 1.75) and 0 < row["bleu"] < 1  # LCS 3 of 4 and 3 words
    assert math.isnan(row["bertscore"])  # not asked: n/a, and said why
    assert any("BERTScore: n/a" in c.value and "only when asked" in c.value for c in at.caption)
    sentences = at.dataframe[1].value
    assert {"bleu", "rouge_l", "bertscore"} <= set(sentences.columns)
    assert sentences["rouge_l"].iloc[0] == pytest.approx(row["rouge_l"])


def test_reference_metrics_missing_from_an_older_submission_are_computed_on_request(trained):
    import pytest
    from sqlalchemy import text

    at = run(AppTest.from_file(PAGE, default_timeout=60))
    score_shipped(at, "copy")
    assert not any(b.key == "sub_fill_refs" for b in at.button)  # everything computed
    store = Store(f"sqlite:///{trained / 'detox.sqlite'}")
    with store.engine.begin() as conn:  # as stored before BLEU and ROUGE-L were
        conn.execute(text("UPDATE sentence_scores SET bleu = NULL, rouge_l = NULL"))
    at = run(AppTest.from_file(PAGE, default_timeout=60))
    import math

    assert math.isnan(at.dataframe[0].value["rouge_l"].iloc[0])
    at.button(key="sub_fill_refs").click()
    run(at)
    assert any("Reference metrics computed for 1" in s.value for s in at.success)
    assert at.dataframe[0].value["rouge_l"].iloc[0] == pytest.approx(2 * 0.75 / 1.75)
    assert not any(b.key == "sub_fill_refs" for b in at.button)


def test_only_j_below_ends_at_one_and_filters_below_it(trained):
    at = run(AppTest.from_file(PAGE, default_timeout=60))
    score_shipped(at, "copy")
    slider = at.slider(key="sub_j")
    assert slider.max == 1.0 and slider.value == 1.0  # reads 1.00 = every sentence, not 1.01
    j = at.dataframe[1].value["j"].iloc[0]
    assert len(at.dataframe[1].value) == 1
    slider.set_value(round(max(0.0, j - 0.01), 2))
    run(at)
    assert len(at.dataframe[1].value) == 0  # its J is not below the value
