"""A page arrives from the browser in one message: forged ones are refused, nothing stored."""

from __future__ import annotations

import pytest

from detox_core.errors import AnnotationError
from detox_core.annotation.store import AnnotationStore, Settings
from detox_core.annotation.submit import page_answers
from tests.annotation.test_store import T0, controls, make_pairs

SETTINGS = Settings(page_size=5, controls_per_page=2, overlap=2, min_page_seconds=0, training=False)


@pytest.fixture
def two(db_url):
    store = AnnotationStore(db_url)
    project = store.create_project("p", ["toxicity"], make_pairs(10), controls=controls("toxicity", 6),
                                   settings=SETTINGS)
    a = store.join(project.access_code, "Anna")
    b = store.join(project.access_code, "Boris")
    pa = store.next_page(a.id, "toxicity", now=T0)
    pb = store.next_page(b.id, "toxicity", now=T0)
    return store, project, a, b, pa, pb


def message(page, answers=None, action="submit"):
    return {"page": page.assignment_id, "action": action,
            "answers": answers if answers is not None else [1.0] * len(page.items)}


def test_a_whole_page_is_stored_in_page_order(two):
    store, project, a, _, pa, _ = two
    labels = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0][: len(pa.items)]
    _, answers = page_answers(pa, message(pa, labels))
    store.submit_page(a.id, pa.assignment_id, answers, now=T0)
    stored = store.answers(project.id).set_index("task")["label"]
    assert [stored[i.id] for i in pa.items] == labels


@pytest.mark.parametrize("forged, why", [
    (lambda pa, pb: {**message(pa), "page": pb.assignment_id}, "another page"),
    (lambda pa, pb: message(pa, [1.0] * (len(pa.items) - 1)), "expected"),
    (lambda pa, pb: message(pa, [1.0] * (len(pa.items) + 1)), "expected"),
    (lambda pa, pb: message(pa, [0.5] * len(pa.items)), "no answer of the toxicity task"),
    (lambda pa, pb: message(pa, [None] * len(pa.items)), "no answer"),
    (lambda pa, pb: message(pa, ["1"] * len(pa.items)), "no answer"),
    (lambda pa, pb: message(pa, [True] * len(pa.items)), "no answer"),
    (lambda pa, pb: {**message(pa), "action": "delete"}, "unknown page action"),
    (lambda pa, pb: "not a page", "not understood"),
])
def test_forged_messages_are_refused(two, forged, why):
    store, project, _, _, pa, pb = two
    with pytest.raises(AnnotationError, match=why):
        page_answers(pa, forged(pa, pb))
    assert store.answers(project.id).empty


def test_the_store_refuses_items_pages_and_labels_that_are_not_the_annotators(two):
    store, project, a, b, pa, pb = two
    own = {i.id: 1.0 for i in pa.items}
    items = store.items(project.id)
    # Boris's page holds the same real items (filled closest to done first) and, one time in
    # fifteen, the same two controls: then any other item of the project is "not Anna's".
    other = [i.id for i in pb.items if i.id not in own] or [int(i) for i in items["item"] if int(i) not in own]
    control_ids = [int(i) for i in items.loc[items["kind"] == "control", "item"] if int(i) not in own]
    tries = [
        (a.id, pb.assignment_id, {i.id: 1.0 for i in pb.items}),  # another annotator's page
        (a.id, pa.assignment_id, {**dict(list(own.items())[:-1]), next(iter(other)): 1.0}),  # an item of another page
        (a.id, pa.assignment_id, {**own, control_ids[0]: 1.0}),  # a guessed control item id
        (a.id, pa.assignment_id, {i: 0.5 for i in own}),  # a label outside the task
    ]
    for annotator, assignment, answers in tries:
        with pytest.raises(AnnotationError):
            store.submit_page(annotator, assignment, answers, now=T0)
    assert store.answers(project.id).empty


def test_a_page_delivered_twice_is_stored_once(two):
    store, project, a, _, pa, _ = two
    _, answers = page_answers(pa, message(pa))
    store.submit_page(a.id, pa.assignment_id, answers, now=T0)
    with pytest.raises(AnnotationError):
        store.submit_page(a.id, pa.assignment_id, answers, now=T0)
    assert len(store.answers(project.id)) == len(pa.items)
