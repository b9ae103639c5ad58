"""Annotate, signing out and coming back: a second tab of a signed-in browser is signed in;
Leave with answers not submitted asks first (how many would be lost); Leave signs every tab
of the browser out at once, saying why; a reload puts the mark back on the item it was on;
a project without training items shows no empty training round."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from detox_core.annotation.store import AnnotationStore, Settings
from tests.e2e.test_annotate_drafts import wait_drafts, wait_restored
from tests.e2e.test_annotate_keys import join
from tests.e2e.util import CHROMIUM, SHOTS, cut_off_controls, no_exception, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

WORK = Settings(page_size=10, controls_per_page=0, min_page_seconds=0, training=False)


def make_project(store: AnnotationStore, name: str, settings: Settings = WORK, lang: str = ""):
    pairs = pd.DataFrame({"system": "sys", "idx": range(30), "input": [f"ты дурак {i}" for i in range(30)],
                          "output": [f"ответ {i}" for i in range(30)], "lang": lang})
    return store.create_project(name, ["toxicity"], pairs, settings=settings)


def shoot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("width", [1400, 800])
def test_leave_asks_first_and_signs_every_tab_out(server, browser, db_url, width):
    store = AnnotationStore(db_url)
    project = make_project(store, f"leave-{width}")
    ctx = browser.new_context(viewport={"width": width, "height": 1000})
    page = ctx.new_page()
    join(page, server, project.access_code, f"Lena {width}")
    # A second tab of this browser: signed in as Lena, on her page, without joining again.
    other = ctx.new_page()
    other.goto(f"{server}/annotate")
    other.get_by_text(f"signed in as Lena {width}").wait_for(timeout=60_000)
    other.locator(".ap-item").first.wait_for(timeout=60_000)
    wait_idle(other)
    no_exception(other)
    assert other.get_by_label("Access code").count() == 0

    # Three answers, then Leave at once (before their draft's pause is over): asked first.
    page.bring_to_front()
    page.locator("h1").first.click()
    for key in "121":
        page.keyboard.press(key)
    page.get_by_role("button", name="Leave").click()
    page.get_by_text("3 answers not submitted yet").wait_for(timeout=60_000)
    wait_idle(page)
    no_exception(page)
    assert page.get_by_text(f"signed in as Lena {width}").count() == 1  # not signed out yet
    assert not cut_off_controls(page)
    shoot(page, f"annotate_leave_asked_{width}")
    page.get_by_role("button", name="Stay and go on").click()
    wait_idle(page)
    assert page.get_by_text("not submitted yet").count() == 0
    assert page.locator(".ap-item.answered").count() == 3  # nothing lost
    page.get_by_role("button", name="Leave").click()
    page.get_by_role("button", name="Leave and lose them").click()
    page.get_by_label("Access code").wait_for(timeout=60_000)
    wait_idle(page)

    # The other tab signs out at once, says why, and keeps no sign-in over a reload.
    other.get_by_text("You left in another tab of this browser").wait_for(timeout=60_000)
    other.get_by_label("Access code").wait_for(timeout=60_000)
    wait_idle(other)
    assert other.get_by_text(f"signed in as Lena {width}").count() == 0
    shoot(other, f"annotate_left_elsewhere_{width}")
    other.reload()
    other.get_by_label("Access code").wait_for(timeout=60_000)
    wait_idle(other)
    assert other.get_by_text(f"signed in as Lena {width}").count() == 0

    # The page left goes back to the pool: Lena joins again and all 30 items come to her.
    join(page, server, project.access_code, f"Lena {width}")
    seen: set[str] = set()
    for n in range(1, 4):
        page.locator("h1").first.click()
        seen |= set(page.locator(".ap-text").all_inner_texts())
        for key in "1212121212":
            page.keyboard.press(key)
        page.keyboard.press("Enter")
        page.get_by_text(f"Page {n} saved: 10 answers").wait_for(timeout=60_000)
        wait_idle(page)
    assert len(seen) == 30
    assert page.get_by_text("No toxicity items are left for you").count() == 1
    ctx.close()


@pytest.mark.parametrize("width", [1400, 800])
def test_a_reload_puts_the_mark_back_on_the_item_it_was_on(server, browser, db_url, width):
    store = AnnotationStore(db_url)
    project = make_project(store, f"mark-{width}")
    page = browser.new_page(viewport={"width": width, "height": 1000})
    join(page, server, project.access_code, f"Marek {width}")
    page.locator("h1").first.click()
    for key in ["1", "2", "1", "ArrowDown", "ArrowDown"]:  # answers on 1-3, then on to item 6
        page.keyboard.press(key)
    assert page.locator(".ap-item.current").get_attribute("data-position") == "6"
    wait_drafts(store, project.id, 3)
    wait_idle(page)
    page.reload()
    wait_restored(page, 3)
    assert page.locator(".ap-item.current").get_attribute("data-position") == "6"
    assert "item 6 of 10 · 3 answered" in page.locator(".ap-count").inner_text()
    shoot(page, f"annotate_mark_kept_{width}")
    page.close()


@pytest.mark.parametrize("width", [1400, 800])
def test_no_training_items_means_no_empty_training_round(server, browser, db_url, width):
    store = AnnotationStore(db_url)
    # English texts: the built-in training items are Russian, and none were uploaded.
    project = make_project(store, f"no-training-{width}", Settings(page_size=10, controls_per_page=0,
                                                                    min_page_seconds=0, training=True), lang="en")
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.goto(f"{server}/annotate")
    wait_idle(page)
    page.get_by_label("Access code").fill(project.access_code)
    page.get_by_label("Your name").fill(f"Nina {width}")
    page.get_by_label("Your password", exact=True).fill("a-password-of-mine")
    page.get_by_role("button", name="Join").click()
    page.get_by_text("There is no training round in English").wait_for(timeout=60_000)
    wait_idle(page)
    no_exception(page)
    assert page.get_by_role("button", name="Check my answers").count() == 0
    assert page.get_by_text("0 of 0 right").count() == 0
    instructions = page.get_by_role("tabpanel").first.inner_text()
    assert "f*ck" in instructions and "х*р" not in instructions  # the English instructions' own example
    shoot(page, f"annotate_no_training_{width}")
    page.get_by_role("button", name="Go to the exam").click()
    page.locator(".ap-item").first.wait_for(timeout=60_000)  # no exam in this project: on to the work
    no_exception(page)
    page.close()
