"""Submissions: the stored-submissions table keeps the submission's name and its J on screen,
at a wide and a narrow window, for a monolingual and a multilingual edition.

Skipped when Chromium is not installed or the data is not fetched. With
``DETOX_SCREENSHOTS=DIR`` the pages are saved there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from detox_core import editions
from detox_core.submissions.store import Store
from detox_core.vocab import RAW_COLUMNS, SCORE_COLUMNS
from tests.app.test_leaderboard_compare import store_multilingual
from tests.e2e.util import CHROMIUM, no_exception, shot, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

#: Long names, as uploaded files have: the name column must not push J off screen.
NAMES = ("team-sunrise_final_submission_v3_test.txt", "baseline_duplicate_test.txt")


@pytest.fixture(scope="module")
def db_url(tmp_path_factory, data_root) -> str:
    """Scored submissions by the page's default preset (embedded): two of RUSSE-2022's test
    split and, when fetched, two of TextDetox 2024's."""
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'detox.sqlite'}"
    store = Store(url)
    inputs = editions.get_edition("russe2022").load(["test"], data_root)
    rng = np.random.default_rng(3)
    for name in NAMES:
        n = len(inputs)
        scores = pd.DataFrame({c: rng.uniform(0.3, 0.9, n) for c in SCORE_COLUMNS})
        for col in RAW_COLUMNS:
            scores[col] = scores[col.removesuffix("_raw")]
        store.add(name=name, sha256=name, dataset="russe2022", split="test", preset="embedded", calibrated=True,
                  source="upload", inputs=inputs["toxic_comment"].tolist(), outputs=inputs["toxic_comment"].tolist(),
                  scores=scores)
    if (data_root / "textdetox2024" / "test_inputs.tsv").is_file():
        store_multilingual(store, "textdetox2024", "test", preset="embedded", calibrated=True)  # as the page stores
    return url


def drawn_headers(table) -> list[str]:
    """The headers of the columns a table draws now, left to right. The grid draws on a canvas
    and keeps an accessible copy of what it draws: only the columns in its visible area, the
    last one possibly cut by the area's edge."""
    return table.evaluate("d => [...d.querySelectorAll('th')].map(t => t.innerText.trim())")


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("dataset", ["RUSSE-2022", "TextDetox 2024"])
def test_the_stored_table_shows_each_submissions_j(server, browser, data_root, dataset, width):
    if dataset == "TextDetox 2024" and not (data_root / "textdetox2024" / "test_inputs.tsv").is_file():
        pytest.skip("needs the TextDetox 2024 data")
    page = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    page.goto(f"{server}/submissions?dataset={dataset.replace(' ', '+')}")
    page.get_by_text("Stored submissions", exact=True).wait_for(timeout=180_000)
    wait_idle(page, 120)
    no_exception(page)
    # The first table under the heading outside the (closed) expanders; the grid draws (and
    # lists) its headers once on screen.
    table = page.locator('xpath=//*[text()="Stored submissions"]/following::*[@data-testid="stDataFrame"]'
                         '[not(ancestor::details)][1]')
    table.scroll_into_view_if_needed()
    page.wait_for_function("d => d.querySelector('th')", arg=table.element_handle(), timeout=20_000)
    box = table.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width  # the table itself within the window
    drawn = drawn_headers(table)
    # The name, then J whole: the column after J (STA) is drawn too, so J is not the one the edge cuts.
    assert drawn[:3] == ["Submission", "J", "STA"], drawn
    if dataset == "RUSSE-2022":
        # The long name cut in the middle, its end (where versions differ) drawn; whole in the Show box.
        cells = table.evaluate("d => [...d.querySelectorAll('td')].map(t => t.innerText.trim())")
        assert "team-sunrise_f…_test.txt" in cells, cells[:12]
        boxes = page.locator('[data-testid="stSelectbox"]')
        show = boxes.filter(has=page.get_by_text("Show", exact=True))
        show.scroll_into_view_if_needed()
        show.get_by_role("combobox").click()
        page.get_by_role("option", name="team-sunrise_final_submission_v3_test.txt").wait_for(timeout=10_000)
        page.keyboard.press("Escape")
    shot(page, f"submissions_stored_table_{dataset.replace(' ', '').lower()}_{width}", width=width)
    page.context.close()
