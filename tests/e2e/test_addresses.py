"""Addresses in the browser: every page has its own path, and a changed corpus never
leaves a stale widget value in the address that breaks the next change."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


def params(pg) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlparse(pg.url).query)


def remove_chip(pg, widget: str, label: str) -> None:
    box = pg.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]').filter(has_text=widget)
    box.get_by_role("button", name=f"Remove {label}").click()
    wait_idle(pg, 120)


def test_corpus_has_its_own_path_and_the_root_forwards_with_every_parameter(server, page, data_root):
    page.goto(f"{server}/corpus?q=a")
    wait_idle(page, 120)
    no_exception(page)
    assert page.locator("h1").first.inner_text() == "Corpus"
    assert "Page not found" not in page.inner_text("body")
    page.goto(f"{server}/?q=a&splits=dev&splits=test")
    wait_idle(page, 120)
    assert urllib.parse.urlparse(page.url).path == "/corpus"
    assert params(page)["splits"] == ["dev", "test"] and params(page)["q"] == ["a"]
    assert page.locator("h1").first.inner_text() == "Corpus"


@pytest.mark.parametrize("width", [1400, 800])
def test_removing_splits_one_by_one_keeps_the_page_up(server, browser, data_root, width):
    """RUSSE-2022: remove train, then dev; each change shrinks the length filter's range."""
    if not (data_root / "russe2022" / "dev.tsv").is_file():
        pytest.skip("needs the RUSSE-2022 splits")
    pg = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    pg.goto(f"{server}/corpus")
    wait_idle(pg, 120)
    remove_chip(pg, "Splits", "train")
    no_exception(pg)
    remove_chip(pg, "Splits", "dev")
    no_exception(pg)
    assert params(pg)["splits"] == ["test"]
    lengths = params(pg).get("len")
    pg.get_by_text("Filters").first.click()
    wait_idle(pg)
    no_exception(pg)
    assert not cut_off_controls(pg)
    shot(pg, f"corpus_after_split_changes-{width}", width=width)
    assert lengths is None or len(lengths) == 2
    pg.context.close()


def test_textdetox2025_languages_are_applied_at_once(server, page, data_root):
    if not (data_root / "textdetox2025" / "dev_inputs.tsv").is_file():
        pytest.skip("needs the TextDetox 2025 data")
    page.goto(f"{server}/corpus?dataset=TextDetox+2025")
    wait_idle(page, 180)
    box = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]').filter(has_text="Languages")
    box.get_by_role("button", name="Clear all").click()
    for code in ("ar", "zh"):
        box.get_by_role("combobox").fill(f"({code})")
        page.get_by_role("option", name=f"({code})").first.click()
    page.keyboard.press("Escape")
    assert "15 of 15 languages" in page.inner_text("body")  # nothing rerun before Apply
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Apply").click()
    wait_idle(page, 180)
    no_exception(page)
    assert "2 of 15 languages" in page.inner_text("body")
    assert params(page)["languages"] == ["Arabic (ar)", "Chinese (zh)"]  # the address keeps the labels
    shot(page, "corpus_textdetox2025_two_languages")
