"""What the Progress tab says beside its numbers: the expected finish and why α is missing."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd

from detox_core.annotation.aggregation import alpha_gap
from detox_core.annotation.results import aggregate_project, finish_text, progress
from detox_core.annotation.store import AnnotationStore, Settings, utc_now


def test_an_old_answer_is_not_called_no_answer(store: AnnotationStore):
    pairs = pd.DataFrame({"system": "s", "idx": range(6), "input": [f"in {i}" for i in range(6)],
                          "output": [f"out {i}" for i in range(6)]})
    p = store.create_project("p", ["toxicity"], pairs,
                             settings=Settings(page_size=3, controls_per_page=0, min_page_seconds=0, overlap=2))
    a = store.admit(store.join(p.access_code, "a").id)
    t0 = utc_now() - timedelta(days=2)
    page = store.next_page(a.id, "toxicity", now=t0)
    store.submit_page(a.id, page.assignment_id, {i.id: 1.0 for i in page.items}, now=t0 + timedelta(minutes=1))
    _, note = finish_text(progress(store, store.project(p.id)))
    assert note.startswith("No answers in the last 24 hours (the latest on ")  # the chart shows them
    assert f"{(t0 + timedelta(minutes=1)):%d %b at %H:%M} UTC" in note
    empty = store.create_project("q", ["toxicity"], pairs, settings=Settings(training=False))
    assert finish_text(progress(store, empty))[1] == "No answers yet: no rate to go by."


def test_alpha_says_why_it_cannot_be_computed(store: AnnotationStore):
    pairs = pd.DataFrame({"system": "s", "idx": range(4), "input": [f"in {i}" for i in range(4)],
                          "output": [f"out {i}" for i in range(4)]})
    p = store.create_project("one", ["toxicity"], pairs,
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0, overlap=1))
    a = store.admit(store.join(p.access_code, "a").id)
    page = store.next_page(a.id, "toxicity")
    store.submit_page(a.id, page.assignment_id, {i.id: float(k % 2) for k, i in enumerate(page.items)})
    result = aggregate_project(store, store.project(p.id))["toxicity"]
    assert result.alpha != result.alpha  # every item done, one answer each: undefined
    assert result.alpha_note.startswith("each item has one answer")
    same = pd.DataFrame({"worker": ["a", "b", "a", "b"], "task": [1, 1, 2, 2], "label": [1.0] * 4})
    assert alpha_gap(same) == "every answer is the same"
    assert alpha_gap(same.assign(label=[1.0, 0.0, 1.0, 1.0])) == ""


def test_one_page_sent_in_a_minute_is_no_rate_and_a_rate_counts_until_now(store: AnnotationStore):
    pairs = pd.DataFrame({"system": "s", "idx": range(80), "input": [f"in {i}" for i in range(80)],
                          "output": [f"out {i}" for i in range(80)]})
    p = store.create_project("p", ["toxicity"], pairs,
                             settings=Settings(page_size=10, controls_per_page=0, min_page_seconds=0, overlap=1))
    a = store.admit(store.join(p.access_code, "a").id)
    t0 = utc_now() - timedelta(minutes=30)
    page = store.next_page(a.id, "toxicity", now=t0)
    store.submit_page(a.id, page.assignment_id, {i.id: 1.0 for i in page.items}, now=t0 + timedelta(seconds=75))
    prog = progress(store, store.project(p.id), now=t0 + timedelta(minutes=2))
    assert prog.expected_finish is None and prog.answers_per_hour == 0  # was 480 an hour from one page
    assert "10 answers in the last 24 hours: too few for a rate" in finish_text(prog)[1]
    for k in range(1, 4):  # 40 answers over three hours: about 13 an hour, as the hourly chart shows
        page = store.next_page(a.id, "toxicity", now=t0 + timedelta(hours=k))
        store.submit_page(a.id, page.assignment_id, {i.id: 1.0 for i in page.items},
                          now=t0 + timedelta(hours=k, seconds=75))
    prog = progress(store, store.project(p.id), now=t0 + timedelta(hours=3, minutes=2))
    assert 12 < prog.answers_per_hour < 14 and prog.expected_finish is not None
