"""An annotator's half-done page survives a reload and another browser: the answers given show
as answered, with a notice, and the page is then submitted with every answer."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest

from detox_core.annotation.store import AnnotationStore, Settings
from tests.e2e.test_annotate_keys import _segment, join
from tests.e2e.util import CHROMIUM, SHOTS, cut_off_controls, no_exception, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


def answered(page) -> dict[str, str]:
    """{item text: chosen answer} of the items the page shows as answered."""
    out = {}
    for row in page.locator(".ap-item.answered").all():
        out[" | ".join(row.locator(".ap-text").all_inner_texts())] = row.locator(".ap-opt.chosen").inner_text()
    return out


def wait_drafts(store: AnnotationStore, project_id: int, n: int, timeout: float = 60) -> None:
    """Wait until the server holds ``n`` drafts of the project's pages: the page sends the
    answers so far a moment after the last key (``DRAFT_MS``), and a run of the app stores them."""
    from sqlalchemy import func, select

    from detox_core.annotation.store.rows import DraftRow, ItemRow

    query = select(func.count()).select_from(DraftRow).join(ItemRow, ItemRow.id == DraftRow.item_id).where(
        ItemRow.project_id == project_id)
    deadline = time.monotonic() + timeout
    while True:
        with store.engine.connect() as conn:
            held = conn.execute(query).scalar_one()
        if held == n:
            return
        assert time.monotonic() < deadline, f"the server holds {held} drafts, not {n}, after {timeout:.0f} s"
        time.sleep(0.1)


def wait_restored(page, n: int) -> None:
    page.get_by_text(f"{n} answers of this page restored").wait_for(timeout=60_000)
    wait_idle(page)
    no_exception(page)


@pytest.mark.parametrize("width", [1400, 800])
def test_a_half_done_page_comes_back_after_a_reload_and_in_a_new_tab(server, browser, db_url, width):
    store = AnnotationStore(db_url)
    outputs = [f"ответ {i} <b>без</b> грубости" for i in range(20)]
    pairs = pd.DataFrame({"system": "sys", "idx": range(20), "input": [f"ты дурак {i}" for i in range(20)],
                          "output": outputs})
    project = store.create_project(f"drafts-{width}", ["toxicity"], pairs,
                                   settings=Settings(page_size=10, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    ctx = browser.new_context(viewport={"width": width, "height": 1000})
    page = ctx.new_page()
    join(page, server, project.access_code, f"Half done {width}")
    page.locator("h1").first.click()
    for key in "121":  # the first items, the mark moving on after each
        page.keyboard.press(key)
    wait_drafts(store, project.id, 3)  # the answers so far reach the server (a run of the app) ...
    wait_idle(page)
    for key in "12":  # ... and the page goes on as it was: nothing redrawn or lost
        page.keyboard.press(key)
    assert "item 6 of 10 · 5 answered" in page.locator(".ap-count").inner_text()
    given = answered(page)
    assert len(given) == 5
    wait_drafts(store, project.id, 5)  # the answers reach the server a moment after the last key
    wait_idle(page)
    page.reload()
    wait_restored(page, 5)
    assert "5 answered" in page.locator(".ap-count").inner_text()
    assert answered(page) == given  # the same items, the same answers
    assert page.locator(".ap-item.current .ap-text").inner_text() not in given  # the mark on a gap
    assert page.locator(".ap-notice b").count() == 0 and page.locator(".ap-item b").count() == 0  # text, not markup
    assert not cut_off_controls(page)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"annotate_restored_{width}.png"), full_page=True)
    assert store.answers(project.id).empty  # drafts are not answers

    # Another browser (a tab of this one is signed in already): the annotator signs in
    # again and finds the same page as it was left.
    other = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    join(other, server, project.access_code, f"Half done {width}")
    wait_restored(other, 5)
    assert answered(other) == given
    other.context.close()

    # Answer the rest on the reloaded page and submit: all ten answers are stored.
    page.locator("h1").first.click()
    for key in "21212":
        page.keyboard.press(key)
    assert "10 answered" in page.locator(".ap-count").inner_text()
    final = answered(page)
    page.keyboard.press("Enter")
    page.get_by_text("Page 1 saved: 10 answers").wait_for(timeout=30_000)
    no_exception(page)
    items = store.items(project.id).set_index("item")["text"]
    stored = store.answers(project.id)
    got = dict(zip(stored["task"].map(items), stored["label"]))
    assert got == {text: 1.0 if label.startswith("1") else 0.0 for text, label in final.items()}
    assert all(got[text] == (1.0 if label.startswith("1") else 0.0) for text, label in given.items())
    # The next page starts empty: the drafts went with the submitted page.
    page.reload()
    page.locator(".ap-item").first.wait_for(timeout=60_000)
    wait_idle(page)
    assert page.locator(".ap-item.answered").count() == 0
    assert page.get_by_text("answers of this page restored").count() == 0
    ctx.close()


@pytest.mark.parametrize("width", [1400, 800])
def test_a_reload_right_after_the_last_answer_loses_nothing_and_keeps_the_task(server, browser, db_url, width):
    """Answers given a moment before a reload (before their draft could reach the server)
    come back from the tab's own copy, on the task that was open: a second task's page
    reloaded stays on that task, with its answers."""
    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(10), "input": [f"ты дурак {i}" for i in range(10)],
                          "output": [f"ответ {i}" for i in range(10)]})
    project = store.create_project(f"quick-reload-{width}", ["toxicity", "content"], pairs,
                                   settings=Settings(page_size=5, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    ctx = browser.new_context(viewport={"width": width, "height": 1000})
    page = ctx.new_page()
    join(page, server, project.access_code, f"Quick {width}")
    _segment(page, "Content").click()  # the second task
    page.get_by_text("item 1 of 5 · 0 answered").wait_for(timeout=60_000)
    wait_idle(page)
    question = page.locator(".ap-q").inner_text()
    page.locator("h1").first.click()
    for key in "12":
        page.keyboard.press(key)
    given = answered(page)
    assert len(given) == 2
    page.reload()  # at once: no draft has been sent yet
    wait_restored(page, 2)
    assert page.locator(".ap-q").inner_text() == question  # still the Content task
    assert answered(page) == given
    assert not cut_off_controls(page)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"annotate_quick_reload_{width}.png"), full_page=True)
    # The tab's copy reached the server too: the same annotator in another browser finds them.
    wait_drafts(store, project.id, 2)
    other = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    join(other, server, project.access_code, f"Quick {width}")
    _segment(other, "Content").click()
    wait_restored(other, 2)
    assert answered(other) == given
    other.context.close()
    ctx.close()
