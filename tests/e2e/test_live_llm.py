"""Live scoring's "Suggest with the LLM" in headless Chromium, at 1400 and 800 px, with a
local chat-completions server (tests/llm/fake_llm.py) as the organizers' endpoint: the
rewrites join the typed one, labelled, and are scored at once; markup in the answer shows
as text; a server that does not answer is one warning and the typed rewrite still scores."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from tests.e2e.util import CHROMIUM, cut_off_controls, free_port, no_exception, shot, start_app, stop_app, wait_idle
from tests.llm.fake_llm import FakeLLM

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

INPUT = "Ты дебил, заткнись уже"
TYPED = "Ты не прав, помолчи, пожалуйста"


@pytest.fixture(scope="module")
def fake_llm():
    with FakeLLM() as server:
        yield server


def _app(data_root, db_url, base_url: str):
    return start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url, "DETOX_ORGANIZER_PASSWORD": "",
                      "OPENAI_BASE_URL": base_url, "DETOX_LLM_MODEL": "rewrite-model", "OPENAI_API_KEY": "sk-e2e"})


@pytest.fixture(scope="module")
def llm_server(data_root, db_url, fake_llm):
    proc, url = _app(data_root, db_url, fake_llm.url)
    yield url
    stop_app(proc)


@pytest.fixture(scope="module")
def down_server(data_root, db_url):
    proc, url = _app(data_root, db_url, f"http://127.0.0.1:{free_port()}/v1")  # nothing listens there
    yield url
    stop_app(proc)


def open_live(page, server: str, width: int, text: str = INPUT) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(f"{server}/live_scoring?" + urllib.parse.urlencode({"live_input": text, "live_candidates": TYPED}))
    wait_idle(page, 180)
    no_exception(page)


def suggest(page) -> None:
    """Click Suggest and wait for its outcome: rewrites, or a warning (on a busy machine the
    run can start late, after the page has looked idle for a moment)."""
    page.get_by_role("button", name="Suggest with the LLM").click()
    page.mouse.move(0, 0)  # no tooltip left open over the page
    page.wait_for_function("""() => document.body.innerText.includes('suggested by the LLM')
        || document.querySelector('[data-testid="stAlertContentWarning"], [data-testid="stException"]')""",
                           timeout=120_000)
    wait_idle(page, 120)
    no_exception(page)


def cards(page) -> int:
    return page.locator('[data-testid="stMetric"]').filter(has_text="J").filter(has_not_text="STA").count()


@pytest.mark.parametrize("width", [1400, 800])
def test_llm_rewrites_are_added_labelled_and_scored_with_the_typed_one(llm_server, fake_llm, page, width):
    open_live(page, llm_server, width)
    assert not cut_off_controls(page)
    asked = fake_llm.stats.requests
    suggest(page)
    assert fake_llm.stats.requests == asked + 1
    body = page.inner_text("body")
    assert body.count("suggested by the LLM") == 3 and "Rewrite 1 · suggested" not in body
    assert "textdetox-rewrite@1#" in body and "RUSSE-2022 train" in body and "1 request" in body
    assert page.get_by_role("textbox", name="Candidate rewrites (one per line)").input_value().count("\n") == 3
    assert page.query_selector('[data-testid="stAlertContentError"]') is None
    assert page.query_selector('[data-testid="stAlertContentWarning"]') is None
    assert "sk-e2e" not in body
    assert not cut_off_controls(page)
    shot(page, f"live_llm_{width}", 2600, width)


@pytest.mark.parametrize("width", [1400, 800])
def test_a_server_that_does_not_answer_is_one_warning_and_the_page_still_scores(down_server, page, width):
    open_live(page, down_server, width)
    suggest(page)
    warnings = page.locator('[data-testid="stAlertContentWarning"]')
    assert warnings.count() == 1 and "could not be reached" in warnings.first.inner_text()
    assert page.query_selector('[data-testid="stAlertContentError"]') is None
    body = page.inner_text("body")
    assert "Rewrite 1" in body and "Rewrite 2" not in body  # the typed rewrite, scored
    assert not cut_off_controls(page)
    shot(page, f"live_llm_down_{width}", 1400, width)


LABELS = {"en": "English (en)", "zh": "Chinese (zh)", "ar": "Arabic (ar)"}


@pytest.mark.parametrize("lang, text, typed, width", [
    ("en", "Shut up, you stupid moron", "Please be quiet", 1400),
    ("en", "Shut up, you stupid moron", "Please be quiet", 800),
    ("zh", "你他妈的就是个傻逼，滚吧", "请你离开", 1400),
    ("ar", "اسكت يا غبي", "اسكت من فضلك", 1400),
])
def test_in_english_chinese_and_arabic_the_llm_suggests_and_the_judge_scores(llm_server, fake_llm, page, lang, text,
                                                                             typed, width):
    """With the organizers' endpoint the LLM suggests rewrites and the LLM judge (picked in the
    address) scores them with the typed one."""
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(f"{llm_server}/live_scoring?" + urllib.parse.urlencode(
        {"live_lang": LABELS[lang], "preset": "LLM judge", "live_input": text, "live_candidates": typed}))
    wait_idle(page, 180)
    no_exception(page)
    asked = fake_llm.stats.requests
    suggest(page)
    assert fake_llm.stats.requests > asked  # the rewrite request, then the judge's
    body = page.inner_text("body")
    picked = page.locator('[data-testid="stSelectbox"]').filter(has_text="Language").first.inner_html()
    assert LABELS[lang] in picked  # the page is in that language, scored by the judge
    assert body.count("suggested by the LLM") == 3 and "Preset llm-judge" in body
    assert cards(page) == 4 and page.query_selector('[data-testid="stAlertContentError"]') is None
    assert not cut_off_controls(page)
    shot(page, f"live_llm_{lang}_{width}", 1800, width)
