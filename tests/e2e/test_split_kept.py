"""The test set chosen on one scoring page is the test set of the others and of a link; a
page opened before any choice starts on a split that has something scored."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def dev_scored(db_url, data_root):
    """One submission of RUSSE-2022's dev split, scored by the embedded preset, in the server's store."""
    import detox_core.metrics
    from detox_core.editions.registry import load_dataset
    from detox_core.submissions.store import Store

    inputs = load_dataset("russe2022", ["dev"], data_root)["toxic_comment"].tolist()
    outputs = [t.lower() for t in inputs]
    scores = detox_core.metrics.score_frame(inputs, outputs, [[] for _ in inputs], preset="embedded")
    store = Store(db_url)
    if not store.list(dataset="russe2022", split="dev").empty:
        return
    store.add(name="dev-team.txt", sha256=hashlib.sha256("\n".join(outputs).encode()).hexdigest(),
              dataset="russe2022", split="dev", preset="embedded", calibrated=True, source="upload",
              inputs=inputs, outputs=outputs, scores=scores)
    store.engine.dispose()


def chosen_split(page) -> str:
    return page.get_by_role("combobox", name="Test set").input_value()


@pytest.mark.parametrize("width", [1400, 800])
def test_the_test_set_follows_the_visitor_across_pages_and_links(server, browser, dev_scored, width):
    page = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    # Nothing chosen yet: the Leaderboard opens on dev, the split that has a scored submission.
    page.goto(f"{server}/leaderboard")
    page.get_by_role("combobox", name="Test set").wait_for(timeout=180_000)
    wait_idle(page, 180)
    no_exception(page)
    assert chosen_split(page) == "dev"
    assert "Nothing scored for this test set yet" not in page.inner_text("body")
    shot(page, f"split_kept_leaderboard_{width}", width=width)
    # Chosen on one page (test), it is the choice on the next, through the app's own navigation.
    page.get_by_role("combobox", name="Test set").click()
    page.get_by_role("option", name="test", exact=True).click()
    wait_idle(page, 120)
    assert "Nothing scored for this test set yet" in page.inner_text("body")
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Compare systems").click()
    page.get_by_role("combobox", name="Test set").wait_for(timeout=120_000)
    wait_idle(page, 120)
    assert chosen_split(page) == "test"
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Submissions").click()
    page.get_by_role("combobox", name="Test set").wait_for(timeout=120_000)
    wait_idle(page, 120)
    assert chosen_split(page) == "test"
    # ... and back to dev there: the Leaderboard shows dev again.
    page.get_by_role("combobox", name="Test set").click()
    page.get_by_role("option", name="dev", exact=True).click()
    wait_idle(page, 120)
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Leaderboard").click()
    page.get_by_role("combobox", name="Test set").wait_for(timeout=120_000)
    wait_idle(page, 120)
    assert chosen_split(page) == "dev"
    no_exception(page)
    assert cut_off_controls(page) == []
    page.context.close()
    # A link names the test set.
    page = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    page.goto(f"{server}/compare?split=test")
    page.get_by_role("combobox", name="Test set").wait_for(timeout=120_000)
    wait_idle(page, 120)
    assert chosen_split(page) == "test"
    page.context.close()
