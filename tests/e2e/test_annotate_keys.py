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
    assert "Items 2, 3, 4, 5, 6, 7, 8, 9, 10 have no answer yet" in page.locator(".ap-msg").inner_text()
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
    page.get_by_text("Page 1 saved: 10 answers").wait_for(timeout=30_000)
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
        for key in ("1", "2"):
            page.keyboard.press(key)
        if n == 1:  # one gap left: said in the singular
            page.keyboard.press("Enter")
            assert page.locator(".ap-msg").inner_text().strip() == "Item 3 has no answer yet."
        page.keyboard.press("1")
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


def _segment(page, label: str):
    """The button of the Task control labelled ``label`` (selected or not)."""
    return page.locator('[data-testid="stButtonGroup"]').filter(has_text="Toxicity").get_by_role(
        "radio", name=label, exact=True)


def _in_view(locator) -> bool:
    """Whether the element lies (at least partly) inside the window, where a person sees it."""
    return locator.evaluate("e => { const r = e.getBoundingClientRect(); "
                            "return r.height > 0 && r.bottom > 0 && r.top < window.innerHeight; }")


QUESTIONS = {"Toxicity": "Does this text contain offences or swear words?",
             "Content": "Do these sentences mean the same?", "Fluency": "Is this text fluent?"}


@pytest.mark.parametrize("width", [1400, 800])
def test_keys_and_enter_answer_the_page_of_the_task_clicked(server, browser, db_url, width):
    """Click a task, answer with the keys, press Enter: the page of that task is stored, a
    confirmation shows where the annotator looks, and the task stays chosen."""
    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(4), "input": [f"ты дурак {i}" for i in range(4)],
                          "output": [f"ты не прав {i}" for i in range(4)]})
    project = store.create_project(f"tasks-{width}", ["toxicity", "content", "fluency"], pairs,
                                   settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    page = browser.new_page(viewport={"width": width, "height": 900})
    join(page, server, project.access_code, f"Keys {width}")
    for n, (task, keys) in enumerate([("Content", "1212"), ("Fluency", "1231"), ("Toxicity", "2121")], 1):
        _segment(page, task).click()  # the focus is on the task control now
        page.locator(".ap-q", has_text=QUESTIONS[task]).wait_for(timeout=30_000)
        wait_idle(page)
        for key in keys:
            page.keyboard.press(key)
        page.keyboard.press("Enter")
        saved = page.get_by_text(f"Page {n} saved: 4 answers")
        saved.wait_for(timeout=30_000)
        wait_idle(page)
        no_exception(page)
        assert saved.is_visible() and _in_view(saved), f"no visible confirmation after the {task} page"
        answers = store.answers(project.id)
        got = answers[answers["item_task"] == task.lower()]["label"].tolist()
        want = {"1": 1.0, "2": 0.5 if task == "Fluency" else 0.0, "3": 0.0}
        assert sorted(got) == sorted(want[k] for k in keys), f"the {task} page was not stored as typed"
        # The task stays: the control still marks it and the next page (or the end) is of it.
        assert _segment(page, task).get_attribute("aria-checked") == "true", f"the task fell back from {task}"
        assert page.locator(".ap-q", has_text=QUESTIONS[task]).count() or \
            page.get_by_text(f"No {task.lower()} items are left").count()
        if task == "Fluency":
            # Three answers beside a text never squeeze it to a word per line (the sidebar
            # leaves the page about 470 px at 800).
            text = page.locator(".ap-text").first
            assert text.evaluate("e => e.getBoundingClientRect().width") >= 200
            assert not cut_off_controls(page)
        if SHOTS and task == "Fluency":  # the confirmation above the next fluency page
            page.screenshot(path=str(Path(SHOTS) / f"annotate_tasks_{width}.png"))
    assert len(store.answers(project.id)) == 12
    page.close()


@pytest.mark.parametrize("width", [1400, 800])
def test_a_page_refused_by_the_server_ends_in_a_visible_error(server, browser, db_url, width):
    """A page answered in another tab meanwhile: Enter here stores nothing twice, and
    says so where the annotator looks, above the next page."""
    store = AnnotationStore(db_url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(6), "input": [f"вход {i}" for i in range(6)],
                          "output": [f"выход {i}" for i in range(6)]})
    project = store.create_project(f"refused-{width}", ["toxicity"], pairs,
                                   settings=Settings(page_size=3, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    page = browser.new_page(viewport={"width": width, "height": 700})
    join(page, server, project.access_code, f"Two tabs {width}")
    wait_idle(page)
    (ann_id,) = store.annotators(project.id)["id"]
    shown = store.next_page(int(ann_id), "toxicity")  # the page this browser shows, answered elsewhere
    store.submit_page(int(ann_id), shown.assignment_id, {i.id: 0.0 for i in shown.items})
    page.locator("h1").first.click()
    for key in "111":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    refused = page.get_by_text("Not saved: this page is no longer open")
    refused.wait_for(timeout=30_000)
    wait_idle(page)
    no_exception(page)
    assert _in_view(refused)
    assert page.locator(".ap-notice.error").count() == 1
    assert store.answers(project.id)["label"].tolist() == [0.0] * 3  # the other tab's answers, nothing twice
    # The next page is there to answer, and it is stored with its confirmation.
    texts = page.locator(".ap-text").all_inner_texts()
    assert len(texts) == 3 and not set(texts) & {i.text for i in shown.items}
    for key in "222":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.get_by_text("Page 2 saved: 3 answers").wait_for(timeout=30_000)
    wait_idle(page)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"annotate_saved_{width}.png"))
    page.close()
