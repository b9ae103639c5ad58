"""Two tabs of one annotator on the same page: the page is submitted in one, and the other,
left behind on it, says so in words when its answers arrive (a submit or the answers so far);
a notice that answers of a page were restored shows on that page only, never on the next one."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest

from detox_core.annotation.store import AnnotationStore, Settings
from tests.e2e.test_annotate_drafts import wait_drafts
from tests.e2e.test_annotate_keys import join
from tests.e2e.util import CHROMIUM, no_exception, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

ELSEWHERE = "submitted already (in another tab or window?)"


def texts(page) -> list[str]:
    return sorted(page.locator(".ap-text").all_inner_texts())


def press(page, keys: str) -> None:
    page.locator("h1").first.click()  # the page's keys, wherever the focus was
    for key in keys:
        page.keyboard.press(key)


def test_a_tab_left_behind_on_a_page_submitted_in_another_says_so(server, browser, db_url):
    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(16), "input": [f"ты осёл {i}" for i in range(16)],
                          "output": [f"ты ошибаешься {i}" for i in range(16)]})
    project = store.create_project("stale tab", ["toxicity"], pairs,
                                   settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    first = ctx.new_page()
    join(first, server, project.access_code, "Two tabs")
    press(first, "12")
    wait_drafts(store, project.id, 2)
    wait_idle(first)
    # A second tab of the same browser: the same page, with the two answers of the first.
    second = ctx.new_page()
    second.goto(f"{server}/annotate")
    second.get_by_text("2 answers of this page restored").wait_for(timeout=60_000)
    wait_idle(second)
    page_one = texts(second)
    assert texts(first) == page_one

    # The first tab finishes the page and submits it. One answer given in the second tab, still
    # showing that page, goes to the server with the answers so far: the tab says where the
    # page went and draws the next one as it is, unanswered, with no word of restored answers.
    press(first, "12")
    first.keyboard.press("Enter")
    first.get_by_text("Page 1 saved: 4 answers").wait_for(timeout=30_000)
    wait_idle(first)
    page_two = texts(first)
    assert page_two != page_one
    press(second, "2")
    second.get_by_text(ELSEWHERE).wait_for(timeout=30_000)
    wait_idle(second)
    no_exception(second)
    assert texts(second) == page_two
    assert second.locator(".ap-item.answered").count() == 0
    assert second.get_by_text("answers of this page restored").count() == 0

    # Page two: the first tab submits it while the second has it open; the second submits it
    # too (every key before its answers so far leave): refused in words, the first tab's
    # answers kept, and the third page drawn unanswered.
    press(first, "1111")
    first.keyboard.press("Enter")
    first.get_by_text("Page 2 saved: 4 answers").wait_for(timeout=30_000)
    wait_idle(first)
    page_three = texts(first)
    press(second, "2222")
    second.keyboard.press("Enter")
    deadline = time.monotonic() + 30
    while texts(second) != page_three:
        assert time.monotonic() < deadline, "the second tab still shows page two"
        time.sleep(0.2)
    wait_idle(second)
    no_exception(second)
    assert second.get_by_text(ELSEWHERE).count() == 1
    assert second.locator(".ap-item.answered").count() == 0
    assert second.get_by_text("answers of this page restored").count() == 0

    # Page three: submitted in the first tab; the second answers one item and presses Enter at once
    # (the page is not complete, so the submit stays in the tab): its answer still goes, and the
    # tab says where the page went instead of only asking for the other items.
    press(first, "1111")
    first.keyboard.press("Enter")
    first.get_by_text("Page 3 saved: 4 answers").wait_for(timeout=30_000)
    wait_idle(first)
    press(second, "2")
    second.keyboard.press("Enter")
    second.get_by_text(ELSEWHERE).wait_for(timeout=30_000)
    wait_idle(second)
    no_exception(second)
    assert texts(second) == texts(first) != page_three
    stored = store.answers(project.id)
    # The first tab's answers (1 2 1 2, then 1 1 1 1 twice), none of the second tab's 2s.
    assert len(stored) == 12 and (stored["label"] == 1.0).sum() == 10
    ctx.close()
