"""Leaving: the pages given back go back to the pool, for the others and for the one who
left; what leaving would give up is counted first."""

from __future__ import annotations

from datetime import timedelta

from detox_core.annotation.store import AnnotationStore, Settings
from tests.annotation.test_store import T0, active, make_pairs


def project(store: AnnotationStore, name: str):
    # 30 outputs (one system), 10 per page, one answer each: three pages of work.
    return store.create_project(name, ["toxicity"], make_pairs(30, systems=("sysA",)),
                                settings=Settings(page_size=10, controls_per_page=0, min_page_seconds=0, overlap=1))


def test_pages_left_twice_come_back_to_the_same_annotator(store):
    p = project(store, "left twice")
    a = active(store, p.access_code, "ann")
    left: set[int] = set()
    for _ in range(2):  # a page, then Leave; twice
        page = store.next_page(a, "toxicity", now=T0)
        left |= {i.id for i in page.items}
        assert store.release_pages(a, now=T0) == 1
    submitted: set[int] = set()
    while (page := store.next_page(a, "toxicity", now=T0)) is not None:
        store.submit_page(a, page.assignment_id, {i.id: 0.0 for i in page.items}, now=T0)
        submitted |= {i.id for i in page.items}
    # Every item was offered again and answered: "no items are left" only when none are.
    assert len(submitted) == 30 and left <= submitted
    assert len(store.answers(p.id)) == 30


def test_a_left_page_goes_to_another_annotator_and_is_never_answered_twice(store):
    p = project(store, "left to another")
    a, b = active(store, p.access_code, "a"), active(store, p.access_code, "b")
    page = store.next_page(a, "toxicity", now=T0)
    store.release_pages(a, now=T0)
    seen_by_b: set[int] = set()
    while (got := store.next_page(b, "toxicity", now=T0)) is not None:
        store.submit_page(b, got.assignment_id, {i.id: 1.0 for i in got.items}, now=T0)
        seen_by_b |= {i.id for i in got.items}
    assert {i.id for i in page.items} <= seen_by_b
    assert store.next_page(a, "toxicity", now=T0) is None  # all answered (overlap 1): truly none left


def test_open_drafts_count_what_leaving_would_give_up(store):
    p = project(store, "drafts on leave")
    a = active(store, p.access_code, "ann")
    assert store.open_drafts(a, now=T0) == 0
    page = store.next_page(a, "toxicity", now=T0)
    store.save_drafts(a, page.assignment_id, {page.items[0].id: 1.0, page.items[1].id: 0.0}, now=T0)
    assert store.open_drafts(a, now=T0) == 2
    late = T0 + timedelta(minutes=p.settings.page_timeout_minutes + 1)
    assert store.open_drafts(a, now=late) == 0  # the page is past its time: nothing to give up
    store.release_pages(a, now=T0)
    assert store.open_drafts(a, now=T0) == 0
