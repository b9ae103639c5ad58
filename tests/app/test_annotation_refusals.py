"""AppTests of the organizer's view of annotators: the table in people's words, who is
kept out and why, and letting someone back in with a logged reason."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from detox_core.annotation.controls import Control
from detox_core.annotation.store import AnnotationStore, Settings
from detox_core.data import PROJECT_ROOT
from tests.app.helpers import run

PROJECTS = str(PROJECT_ROOT / "pages" / "annotation_projects.py")


def pairs(n: int = 10) -> pd.DataFrame:
    return pd.DataFrame({"system": "sys", "idx": range(n), "input": [f"токсичный {i}" for i in range(n)],
                         "output": [f"вежливый {i}" for i in range(n)]})


def exam(n: int) -> list[Control]:
    return [Control("toxicity", f"экзамен {i}", float(i % 2)) for i in range(n)]


def take_exam(store: AnnotationStore, project_id: int, name: str, right: int) -> int:
    ann = store.join(store.project(project_id).access_code, name)
    golden = store.items(project_id, kind="exam").set_index("item")["golden"]
    page = store.exam(ann.id)
    store.submit_exam(ann.id, {i.id: golden[i.id] if k < right else 1.0 - golden[i.id]
                               for k, i in enumerate(page.items)})
    return ann.id


@pytest.fixture
def organizer(tiny_data, monkeypatch):
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "organizer-pw-12")

    def open_page() -> AppTest:
        at = run(AppTest.from_file(PROJECTS, default_timeout=60))
        at.text_input(key="organizer_password").input("organizer-pw-12")
        at.button(key="FormSubmitter:organizer_login-Sign in").click()
        return run(at)

    return open_page


def test_annotators_table_uses_peoples_words_and_shows_the_exam_as_a_percentage(organizer):
    store = AnnotationStore()
    p = store.create_project("people", ["toxicity"], pairs(), exam=exam(10), settings=Settings(training=False))
    take_exam(store, p.id, "Anna", right=9)
    take_exam(store, p.id, "Boris", right=5)
    at = organizer()
    table = next(d for d in at.dataframe if "exam_score" in d.value.columns)
    shown = table.value
    assert dict(zip(shown["name"], shown["status"])) == {"Anna": "working", "Boris": "not admitted"}
    assert dict(zip(shown["name"], shown["exam_score"])) == {"Anna": 0.9, "Boris": 0.5}
    columns = json.loads(table.proto.columns)
    for col in shown.columns:  # every column has a person's name, never the raw key
        assert columns[col]["label"] and columns[col]["label"] != col, col
    assert columns["exam_score"]["label"] == "Exam score"
    assert columns["exam_score"]["type_config"]["format"] == "percent"


def test_organizer_sees_why_someone_was_refused_and_readmits_with_a_reason(organizer):
    store = AnnotationStore()
    p = store.create_project("readmit", ["toxicity"], pairs(), exam=exam(10), settings=Settings(training=False))
    nina = take_exam(store, p.id, "Nina", right=6)  # 60%: under 70%
    at = organizer()
    refused = next(d.value for d in at.dataframe if "kind" in d.value.columns and "detail" in d.value.columns)
    assert refused["name"].tolist() == ["Nina"] and refused["kind"].tolist() == ["failed the exam"]
    assert "exam score 60%" in refused["detail"].iloc[0]
    # No reason: refused, nothing changes.
    at.button(key="FormSubmitter:org_readmit-Let back in").click()
    run(at)
    assert "give a reason" in at.error[0].value and store.annotator(nina).status == "failed"
    at.text_input(key="org_readmit_reason").input("items 3 and 7 are debatable")
    at.button(key="FormSubmitter:org_readmit-Let back in").click()
    run(at)
    assert store.annotator(nina).status == "active"
    assert "Nina can work again" in at.success[0].value
    log = store.log(p.id)
    assert log.iloc[0]["kind"] == "readmitted" and "items 3 and 7 are debatable" in log.iloc[0]["detail"]
    # The log is on the page, in words; nobody is kept out any more.
    shown_log = next(d.value for d in at.dataframe if "actor" in d.value.columns)
    assert shown_log["kind"].tolist() == ["admitted by an organizer", "failed the exam"]
    assert shown_log["actor"].tolist() == ["organizer", "the project's rules"]
    assert any(c.value == "Nobody is kept out of this project." for c in at.caption)


def test_settings_say_what_the_exam_means_and_warn_when_one_item_fails_anyone(organizer):
    store = AnnotationStore()
    store.create_project("short exam", ["toxicity"], pairs(), exam=exam(4),
                         settings=Settings(training=False, exam_pass=0.8))
    at = organizer()
    warning = " ".join(w.value for w in at.warning)
    assert "the pool holds 4" in warning and "No mistake is allowed" in warning
    at.slider(key="org_set_exam_pass").set_value(0.7)
    run(at)
    assert "No mistake is allowed" not in " ".join(w.value for w in at.warning)
    assert any("1 mistake allowed" in c.value for c in at.caption)
    assert at.number_input(key="org_set_max_refused_per_address").value == 0


def test_alpha_says_why_it_is_missing_when_every_item_is_done(organizer):
    store = AnnotationStore()
    p = store.create_project("overlap one", ["toxicity"], pairs(4),
                             settings=Settings(training=False, overlap=1, page_size=4, controls_per_page=0,
                                               min_page_seconds=0))
    ann = store.join(p.access_code, "Vera")
    page = store.next_page(ann.id, "toxicity")
    store.submit_page(ann.id, page.assignment_id, {i.id: float(k % 2) for k, i in enumerate(page.items)})
    at = organizer()
    captions = " ".join(c.value for c in at.caption)
    assert "α cannot be computed: each item has one answer" in captions
    assert "not enough answers yet" not in captions


def test_annotators_with_answers_and_without_are_all_listed(organizer):
    store = AnnotationStore()
    p = store.create_project("mixed", ["toxicity"], pairs(), exam=exam(10),
                             settings=Settings(training=False, page_size=4, controls_per_page=0, min_page_seconds=0))
    anna = take_exam(store, p.id, "Anna", right=10)
    take_exam(store, p.id, "Boris", right=2)
    page = store.next_page(anna, "toxicity")
    store.submit_page(anna, page.assignment_id, {i.id: 1.0 for i in page.items})
    at = organizer()
    table = next(d for d in at.dataframe if "exam_score" in d.value.columns)
    shown = table.value.set_index("name")
    assert shown.loc["Anna", "answers"] == 4 and shown.loc["Anna", "task"] == "Toxicity"
    assert shown.loc["Boris", "status"] == "not admitted" and shown.loc["Boris", "exam_score"] == 0.2
    columns = json.loads(table.proto.columns)
    assert all(columns[c]["label"] != c for c in shown.reset_index().columns)
