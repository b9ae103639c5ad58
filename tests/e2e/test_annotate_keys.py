"""The annotator's page in the browser: fast typing stores exactly what was pressed."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pandas as pd
import pytest

from detox_core.annotation.store import AnnotationStore, Settings
from tests.e2e.util import CHROMIUM, SHOTS, cut_off_controls, no_exception, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

OUTPUTS = [f"вежливый ответ номер {i}" for i in range(8)] + [
    "<img src=x onerror=\"document.title='pwned'\"> картинка", "ты <b>дурак</b> **жирный** [ссылка](http://e.x)"]


def join(page, server, code: str, name: str) -> None:
    page.goto(f"{server}/annotate")
    wait_idle(page)
    page.get_by_label("Access code").fill(code)
    page.get_by_label("Your name").fill(name)
    page.get_by_label("Your password", exact=True).fill("a-password-of-mine")
    page.get_by_role("button", name="Join").click()
    page.locator(".ap-item").first.wait_for(timeout=60_000)
    no_exception(page)


@pytest.mark.parametrize("width", [1400, 800])
def test_ten_keys_50_ms_apart_store_exactly_the_pressed_labels(server, browser, db_url, width):
    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(10), "input": [f"ты дурак {i}" for i in range(10)],
                          "output": OUTPUTS})
    project = store.create_project(f"fast-{width}", ["toxicity"], pairs,
                                   settings=Settings(page_size=10, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    page = browser.new_page(viewport={"width": width, "height": 1000})
    join(page, server, project.access_code, f"Fast typist {width}")
    texts = page.locator(".ap-text").all_inner_texts()
    assert sorted(texts) == sorted(OUTPUTS)  # markup shown as text
    assert not cut_off_controls(page)  # every answer button and label fully visible, also at 800 px
    assert page.locator(".ap-item img, .ap-item b, .ap-item a").count() == 0
    assert page.title() != "pwned"
    page.locator("h1").first.click()
    # Enter with items unanswered: refused in the browser, nothing sent.
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    assert "have no answer yet" in page.locator(".ap-msg").inner_text()
    assert store.answers(project.id).empty
    page.keyboard.press("ArrowUp")  # back to item 1 (the mark moved to the first gap)
    for _ in range(10):
        page.keyboard.press("ArrowUp")
    rng = random.Random(width)
    pressed = [rng.choice("12") for _ in range(10)]
    assert len(set(pressed)) == 2
    start = time.monotonic()
    for key in pressed:
        page.keyboard.press(key)
        time.sleep(0.05)
    typed_in = time.monotonic() - start
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"annotate_page_{width}.png"), full_page=True)
    sent_at = time.monotonic()
    page.keyboard.press("Enter")
    page.get_by_text("Page saved: 10 answers").wait_for(timeout=30_000)
    print(f"10 keys typed in {typed_in:.2f} s; Enter to stored page {time.monotonic() - sent_at:.2f} s ({width} px)")
    no_exception(page)
    items = store.items(project.id).set_index("item")["text"]
    answers = store.answers(project.id)
    got = dict(zip(answers["task"].map(items), answers["label"]))
    assert [got[t] for t in texts] == [1.0 if k == "1" else 0.0 for k in pressed]
    page.close()


def _until(check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if got := check():
            return got
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_pages_in_a_row_are_each_stored(server, browser, db_url):
    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(9), "input": [f"вход {i}" for i in range(9)],
                          "output": [f"выход {i}" for i in range(9)]})
    project = store.create_project("rows", ["toxicity"], pairs,
                                   settings=Settings(page_size=3, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    join(page, server, project.access_code, "Three pages")
    seen: list[str] = []
    for n in range(1, 4):
        # The next page: texts not seen before (the previous page may still show meanwhile).
        texts = _until(lambda: (t := page.locator(".ap-text").all_inner_texts()) and not set(t) & set(seen) and t)
        seen += texts
        page.locator("h1").first.click()
        for key in ("1", "2", "1"):
            page.keyboard.press(key)
        page.keyboard.press("Enter")
        _until(lambda: len(store.answers(project.id)) == 3 * n)
    page.get_by_text("No toxicity items are left").wait_for(timeout=30_000)
    no_exception(page)
    answers = store.answers(project.id)
    assert sorted(answers["label"].tolist()) == sorted([1.0, 0.0, 1.0] * 3)
    page.close()


ARABIC = ["أنت لا تفهم هذا الأمر", "من فضلك توقف، لا أحد يريد رأيك", "هذا <b>القرار</b> غير موفق"]


@pytest.mark.parametrize("width", [1400, 800])
def test_an_arabic_item_runs_right_to_left_on_a_page_of_its_language(server, browser, db_url, width):
    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(5), "lang": ["ar"] * 3 + ["de"] * 2,
                          "input": [f"{t} !" for t in ARABIC] + ["du Idiot", "halt die Klappe"],
                          "output": ARABIC + ["du irrst dich", "sei bitte still"]})
    project = store.create_project(f"arabic-{width}", ["toxicity"], pairs,
                                   settings=Settings(page_size=5, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.goto(f"{server}/annotate")
    wait_idle(page)
    page.get_by_label("Access code").fill(project.access_code)
    page.get_by_label("Your name").fill(f"Layla {width}")
    page.get_by_label("Your password", exact=True).fill("a-password-of-mine")
    page.get_by_role("button", name="Join").click()
    wait_idle(page)
    page.get_by_role("button", name="Judge texts in this language").click()  # Arabic comes first
    page.locator(".ap-item").first.wait_for(timeout=60_000)
    no_exception(page)
    texts = page.locator(".ap-text")
    assert sorted(texts.all_inner_texts()) == sorted(ARABIC)  # only Arabic, the markup as text
    assert page.locator(".ap-item b").count() == 0
    assert {texts.nth(k).evaluate("e => getComputedStyle(e).direction") for k in range(3)} == {"rtl"}
    assert {texts.nth(k).get_attribute("lang") for k in range(3)} == {"ar"}
    assert page.locator(".ap-lang").inner_text() == "Arabic texts"
    assert not cut_off_controls(page)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"annotate_arabic_{width}.png"), full_page=True)
    page.close()
