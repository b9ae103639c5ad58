"""One person holding many pages open cannot stall a campaign."""

from __future__ import annotations

import pytest

from detox_core.annotation.store import Settings
from detox_core.errors import AnnotationError
from tests.annotation.test_store import T0, make_pairs


def admitted(store, code: str, name: str, client: str) -> int:
    ann = store.join(code, name, client=client)
    return store.admit(ann.id).id


def test_pages_held_open_by_many_names_do_not_starve_an_honest_annotator(store):
    """25 names held 54 open pages and honest annotators got "no items" for the page
    timeout, renewably; now the held items are given again."""
    p = store.create_project("stall", ["toxicity"], make_pairs(10, systems=("sysA",)),
                             settings=Settings(page_size=5, controls_per_page=0, overlap=3, min_page_seconds=0,
                                               max_open_pages_per_address=0))
    for k in range(25):  # each holds a page; together they reserve every item 3 times over
        store.next_page(admitted(store, p.access_code, f"bot{k}", f"203.0.113.{k}"), "toxicity", now=T0)
    honest = admitted(store, p.access_code, "Zoya", "198.51.100.2")
    page = store.next_page(honest, "toxicity", now=T0)
    assert page is not None and len(page.items) == 5
    store.submit_page(honest, page.assignment_id, {i.id: 1.0 for i in page.items}, now=T0)
    # Her next page holds the other five items, and after them there is nothing left for her.
    second = store.next_page(honest, "toxicity", now=T0)
    assert {i.id for i in second.items}.isdisjoint({i.id for i in page.items})
    store.submit_page(honest, second.assignment_id, {i.id: 0.0 for i in second.items}, now=T0)
    assert store.next_page(honest, "toxicity", now=T0) is None


def test_open_pages_per_address_are_capped(store):
    p = store.create_project("cap", ["toxicity"], make_pairs(40, systems=("sysA",)),
                             settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0,
                                               max_open_pages_per_address=2))
    ids = [admitted(store, p.access_code, f"name{k}", "203.0.113.7") for k in range(3)]
    store.next_page(ids[0], "toxicity", now=T0)
    store.next_page(ids[1], "toxicity", now=T0)
    with pytest.raises(AnnotationError, match="2 pages are open from your address"):
        store.next_page(ids[2], "toxicity", now=T0)
    assert store.next_page(admitted(store, p.access_code, "elsewhere", "198.51.100.2"), "toxicity", now=T0)
    # Giving a page back (leaving) frees the place at once.
    assert store.release_pages(ids[0], now=T0) == 1
    assert store.next_page(ids[2], "toxicity", now=T0) is not None
    with pytest.raises(AnnotationError, match="no longer open"):
        page = store.next_page(ids[1], "toxicity", now=T0)
        store.release_pages(ids[1], now=T0)
        store.submit_page(ids[1], page.assignment_id, {i.id: 1.0 for i in page.items}, now=T0)


def test_the_default_lease_is_shorter():
    assert Settings().page_timeout_minutes == 20 and Settings().max_open_pages_per_address == 20
