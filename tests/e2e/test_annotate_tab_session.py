"""An annotator stays signed in in their browser: a reload keeps them on their page, and so
does another tab of it (another browser is not signed in); Leave signs the tab out, and a
reload then asks to join."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from detox_core.annotation.store import AnnotationStore, Settings
from tests.e2e.test_annotate_keys import join
from tests.e2e.util import CHROMIUM, no_exception, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


def test_a_reload_keeps_the_annotator_and_leave_ends_it(server, browser, db_url):
    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(4), "input": [f"ты осёл {i}" for i in range(4)],
                          "output": [f"ты ошибаешься {i}" for i in range(4)]})
    project = store.create_project("tab session", ["toxicity"], pairs,
                                   settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    join(page, server, project.access_code, "Tanya")
    texts = sorted(page.locator(".ap-text").all_inner_texts())
    page.reload()
    page.get_by_text("signed in as Tanya").wait_for(timeout=60_000)
    page.locator(".ap-item").first.wait_for(timeout=60_000)
    no_exception(page)
    assert sorted(page.locator(".ap-text").all_inner_texts()) == texts  # the same open page
    # Another tab of the same browser is signed in too, on the same page (Leave signs both
    # out: tests/e2e/test_annotate_leave.py).
    other = ctx.new_page()
    other.goto(f"{server}/annotate")
    other.get_by_text("signed in as Tanya").wait_for(timeout=60_000)
    other.locator(".ap-item").first.wait_for(timeout=60_000)
    wait_idle(other)
    assert sorted(other.locator(".ap-text").all_inner_texts()) == texts
    other.close()
    # A browser of its own (another person's) is not.
    stranger = browser.new_context().new_page()
    stranger.goto(f"{server}/annotate")
    stranger.get_by_label("Access code").wait_for(timeout=60_000)
    wait_idle(stranger)
    assert stranger.get_by_text("signed in as Tanya").count() == 0
    stranger.context.close()
    # Answers on the open page: the tab keeps a copy of them (for a reload).
    page.locator("h1").first.click()
    page.keyboard.press("2")
    drafts = "Object.keys(sessionStorage).filter(k => k.startsWith('detox-ap:')).length"
    page.wait_for_function(f"{drafts} > 0", timeout=30_000)
    # Leave (asked first: an answer is not submitted): signed out, the tab keeps none of
    # Tanya's answers, and a reload asks to join again.
    page.get_by_role("button", name="Leave").click()
    page.get_by_role("button", name="Leave and lose it").click()
    page.get_by_label("Access code").wait_for(timeout=60_000)
    wait_idle(page)
    page.wait_for_function(f"{drafts} === 0", timeout=30_000)
    page.reload()
    page.get_by_label("Access code").wait_for(timeout=60_000)
    wait_idle(page)
    assert page.get_by_text("signed in as Tanya").count() == 0
    ctx.close()
