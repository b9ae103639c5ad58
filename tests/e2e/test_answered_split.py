"""Submissions: the shipped TextDetox 2025 sample answers the dev split; the page says so and
switches with one click, and the codes of the new languages are named as the task's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, wait_idle, wait_text

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


@pytest.mark.parametrize("width", [1400, 800])
def test_the_2025_sample_is_offered_its_split(server, browser, data_root, width):
    sample = data_root / "textdetox2025" / "outputs" / "duplicate_dev.tsv"
    if not sample.is_file():
        pytest.skip("needs the TextDetox 2025 data")
    page = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    page.goto(f"{server}/submissions?dataset=TextDetox+2025")
    page.get_by_text("Add a submission").wait_for(timeout=180_000)
    wait_idle(page, 120)
    assert page.get_by_role("combobox", name="Test set").input_value() == "test"
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(sample))
    wait_text(page, "This file answers the dev split", 120)  # the upload's run (wait_idle does not see an upload)
    body = page.inner_text("body")
    assert "This file answers the dev split: 6,000 of its rows are inputs of dev" in body
    # Scored against test anyway: the new languages are named with the split that has them.
    page.get_by_role("button", name="Score the upload").click()
    wait_idle(page, 120)
    body = page.inner_text("body")
    assert "fr, he, hin, it, ja, tt (French, Hebrew" in body
    assert "are in the dev split of this corpus, not in test" in body and "unknown language" not in body
    shot(page, f"submissions_answered_split-{width}", width=width)
    assert not cut_off_controls(page)
    page.get_by_role("button", name="Score it against dev").click()
    wait_idle(page, 120)
    no_exception(page)
    assert page.get_by_role("combobox", name="Test set").input_value() == "dev"
    assert "This file answers the dev split" not in page.inner_text("body")
    page.context.close()
