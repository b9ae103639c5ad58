"""Drafts: answers given on an open page before it is submitted survive a reload, a new
tab or another app process, and never count as answers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text

from detox_core.annotation.results import aggregate_project
from detox_core.annotation.store import AnnotationError, AnnotationStore, Settings
from detox_core.annotation.submit import draft_answers
from tests.annotation.test_store import T0, active, make_pairs


def project(store: AnnotationStore, name: str = "drafts"):
    return store.create_project(name, ["toxicity"], make_pairs(10),
                                settings=Settings(page_size=5, controls_per_page=0, min_page_seconds=0, overlap=1))


def test_drafts_are_restored_on_the_same_page_in_another_process(store, db_url):
    p = project(store)
    a = active(store, p.access_code, "ann")
    page = store.next_page(a, "toxicity", now=T0)
    first, second, third = (i.id for i in page.items[:3])
    assert store.save_drafts(a, page.assignment_id, {first: 1.0, second: 0.0}, now=T0) == 2
    # A later draft of an item replaces its earlier one; items not sent keep theirs.
    assert store.save_drafts(a, page.assignment_id, {second: 1.0, third: 0.0}, now=T0) == 3
    other = AnnotationStore(db_url)  # another app process of the deployment, same database
    again = other.next_page(a, "toxicity", now=T0 + timedelta(minutes=1))
    assert again.assignment_id == page.assignment_id
    assert other.page_drafts(a, again.assignment_id, now=T0) == {first: 1.0, second: 1.0, third: 0.0}
    other.engine.dispose()


def test_drafts_never_count_as_answers_and_go_on_submit(store):
    p = project(store)
    a = active(store, p.access_code, "ann")
    b = active(store, p.access_code, "other")
    page = store.next_page(a, "toxicity", now=T0)
    store.save_drafts(a, page.assignment_id, {i.id: 1.0 for i in page.items}, now=T0)
    assert store.answers(p.id).empty
    assert store.annotator_progress(a)["answers"] == 0
    labels = aggregate_project(store, store.project(p.id))["toxicity"]
    assert labels.unlabelled == len(labels.items) and set(labels.items["source"]) == {"none"}
    # Another annotator's page never holds items that are only drafted (they are reserved).
    other_page = store.next_page(b, "toxicity", now=T0)
    assert not {i.id for i in other_page.items} & {i.id for i in page.items}
    assert store.page_drafts(b, page.assignment_id, now=T0) == {}  # not theirs: nothing shown
    store.submit_page(a, page.assignment_id, {i.id: 0.0 for i in page.items}, now=T0 + timedelta(minutes=1))
    # The submitted answers are what counts, not the drafts given before.
    assert set(store.answers(p.id)["label"]) == {0.0}
    assert store.page_drafts(a, page.assignment_id, now=T0 + timedelta(minutes=1)) == {}
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM ann_drafts")).scalar() == 0
    # A submitted page takes no drafts.
    with pytest.raises(AnnotationError, match="no longer open"):
        store.save_drafts(a, page.assignment_id, {page.items[0].id: 1.0}, now=T0 + timedelta(minutes=2))


def test_a_draft_for_an_item_not_on_the_open_page_is_refused(store):
    p = project(store)
    a = active(store, p.access_code, "ann")
    b = active(store, p.access_code, "other")
    page = store.next_page(a, "toxicity", now=T0)
    foreign = store.next_page(b, "toxicity", now=T0)
    with pytest.raises(AnnotationError, match="not on this page"):
        store.save_drafts(a, page.assignment_id, {page.items[0].id: 1.0, foreign.items[0].id: 1.0}, now=T0)
    with pytest.raises(AnnotationError, match="not yours"):  # another annotator's page
        store.save_drafts(a, foreign.assignment_id, {foreign.items[0].id: 1.0}, now=T0)
    with pytest.raises(AnnotationError, match="not an answer"):
        store.save_drafts(a, page.assignment_id, {page.items[0].id: 0.5}, now=T0)
    assert store.page_drafts(a, page.assignment_id, now=T0) == {}  # nothing of a refused message kept
    assert store.page_drafts(b, foreign.assignment_id, now=T0) == {}


def test_drafts_go_when_the_page_expires_is_skipped_or_released(store):
    p = project(store)
    a = active(store, p.access_code, "ann")
    timeout = timedelta(minutes=p.settings.page_timeout_minutes + 1)
    page = store.next_page(a, "toxicity", now=T0)
    store.save_drafts(a, page.assignment_id, {page.items[0].id: 1.0}, now=T0)
    assert store.page_drafts(a, page.assignment_id, now=T0 + timeout) == {}  # past its time: not restored
    fresh = store.next_page(a, "toxicity", now=T0 + timeout)  # the old page expires now
    assert fresh.assignment_id != page.assignment_id
    store.save_drafts(a, fresh.assignment_id, {fresh.items[0].id: 0.0}, now=T0 + timeout)
    store.skip_page(a, fresh.assignment_id, now=T0 + timeout)
    last = store.next_page(a, "toxicity", now=T0 + timeout)
    store.save_drafts(a, last.assignment_id, {last.items[0].id: 0.0}, now=T0 + timeout)
    assert store.release_pages(a, now=T0 + timeout) == 1
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM ann_drafts")).scalar() == 0
    store.delete_project(p.id)


def test_a_database_made_before_drafts_gets_the_table(db_url):
    store = AnnotationStore(db_url)
    p = project(store, "old")
    a = active(store, p.access_code, "ann")
    page = store.next_page(a, "toxicity", now=T0)
    with store.engine.begin() as conn:  # back to the schema before drafts
        conn.execute(text("DROP TABLE ann_drafts"))
        conn.execute(text("DROP TABLE schema_history"))
    store.engine.dispose()
    upgraded = AnnotationStore(db_url)
    assert upgraded.upgrades == ["create table ann_drafts"]
    assert upgraded.next_page(a, "toxicity", now=T0).assignment_id == page.assignment_id  # the open page kept
    upgraded.save_drafts(a, page.assignment_id, {page.items[0].id: 1.0}, now=T0)
    assert upgraded.page_drafts(a, page.assignment_id, now=T0) == {page.items[0].id: 1.0}
    assert AnnotationStore(db_url).upgrades == []
    upgraded.engine.dispose()


def test_a_forged_draft_message_is_refused_before_the_store(store):
    p = project(store)
    a = active(store, p.access_code, "ann")
    page = store.next_page(a, "toxicity", now=T0)
    n = len(page.items)
    assert draft_answers(page, {"page": page.assignment_id, "answers": [1, None, 0] + [None] * (n - 3)}) == {
        page.items[0].id: 1.0, page.items[2].id: 0.0}
    for forged in ({"page": page.assignment_id + 1, "answers": [None] * n},  # another page
                   {"page": page.assignment_id, "answers": [None] * (n + 1)},  # one entry too many
                   {"page": page.assignment_id, "answers": [0.5] + [None] * (n - 1)},  # not a toxicity answer
                   {"page": page.assignment_id, "answers": [True] + [None] * (n - 1)},
                   ["not", "a", "message"]):
        with pytest.raises(AnnotationError):
            draft_answers(page, forged)
