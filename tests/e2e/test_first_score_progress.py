"""Submissions, TextDetox 2024, the embedded preset: scoring a shipped 720-pair sample output
on a server that has loaded and embedded nothing yet, the page says what is going on while
it waits (the models loading on the first score, then the pairs done and the time left),
at 1400 and 800 px, and the scores come."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, start_app, stop_app, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

#: a shipped output per width: each is new to the server (scored, not found stored)
OUTPUTS = {1400: "SomethingAwful", 800: "Team_SINAI"}
COUNTED = re.compile(r"Scoring [\d,]+ of 720 pairs · "
                     r"(estimating the time left|a few seconds left|about \d+ (s|min) left)")


@pytest.fixture(scope="module")
def cold_server(data_root, tmp_path_factory):
    """A server over a data folder of its own: the fetched datasets and the measured agreement
    with people (kept once measured), no vector of a text yet, an empty database."""
    outputs = data_root / "textdetox2024" / "outputs"
    if not all((outputs / f"{name}_sample.tsv").is_file() for name in OUTPUTS.values()):
        pytest.skip("needs the TextDetox 2024 sample outputs (python -m detox_core fetch-data)")
    root = tmp_path_factory.mktemp("cold")
    for entry in data_root.iterdir():
        if entry.name != "cache" and not entry.name.startswith("detox.sqlite"):
            (root / entry.name).symlink_to(entry.resolve())
    (root / "cache").mkdir()
    for kept in (data_root / "cache").glob("*") if (data_root / "cache").is_dir() else ():
        if kept.name != "model_outputs":
            (shutil.copytree if kept.is_dir() else shutil.copy2)(kept, root / "cache" / kept.name)
    try:
        proc, url = start_app({"DETOX_DATA_DIR": str(root), "DETOX_DB_URL": f"sqlite:///{root / 'detox.sqlite'}",
                               "DETOX_ORGANIZER_PASSWORD": ""})
    except RuntimeError as err:
        pytest.fail(str(err))
    yield url
    stop_app(proc)


@pytest.mark.parametrize("width", [1400, 800])
def test_a_first_score_shows_its_progress_and_the_time_left(cold_server, browser, width):
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{cold_server}/submissions?dataset=TextDetox+2024")
    page.get_by_text("Add a submission").wait_for(timeout=180_000)
    wait_idle(page, 120)
    page.get_by_role("combobox", name="Test set").click()
    page.get_by_role("option", name="sample", exact=True).click()
    wait_idle(page, 120)
    page.get_by_role("combobox", name="Or a shipped system output").click()
    page.get_by_role("option", name=OUTPUTS[width], exact=True).click()
    wait_idle(page, 120)
    page.get_by_role("button", name="Score this output").click()
    texts: list[str] = []
    shown = False
    deadline = time.monotonic() + 600
    while "scored and stored" not in page.inner_text("body"):
        assert time.monotonic() < deadline, texts[-5:]
        # Read in one step: the bar can go between a count and a read (the scoring ended).
        text = page.evaluate("() => document.querySelector('[data-testid=\"stProgress\"]')?.innerText ?? ''").strip()
        if text and (not texts or texts[-1] != text):
            texts.append(text)
        if not shown and COUNTED.fullmatch(text) and "about" in text:
            try:
                page.locator('[data-testid="stProgress"]').first.scroll_into_view_if_needed(timeout=5_000)
            except PlaywrightTimeout:  # the scoring ended meanwhile: the next estimate, if any
                continue
            shot(page, f"submissions_first_score_progress-{width}", width=width)  # mid-scoring
            assert not cut_off_controls(page)
            shown = True
        page.wait_for_timeout(100)
    # The pairs counted with an estimate of the time left, the count never going back.
    counted = [t for t in texts if COUNTED.fullmatch(t)]
    assert counted and any("left" in t and "estimating" not in t for t in counted), texts
    done = [int(re.search(r"Scoring ([\d,]+)", t).group(1).replace(",", "")) for t in counted]
    assert done == sorted(done), texts
    wait_idle(page, 120)
    no_exception(page)
    page.context.close()
