"""The Leaderboard and Compare pages on the multilingual editions, in headless Chromium,
at a wide and a narrow window: stored submissions in several languages (one partial, two
languages without J) beside the published tables. RUSSE-2022 keeps its page.

Skipped when Chromium is not installed or the TextDetox editions are not fetched. With
``DETOX_SCREENSHOTS=DIR`` the pages are saved there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from detox_core.submissions.store import Store
from tests.app.test_leaderboard_compare import store_multilingual
from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, wait_idle, wait_markup

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

SPLITS = {"TextDetox 2024": "test", "TextDetox 2025": "dev"}


@pytest.fixture(scope="module")
def db_url(tmp_path_factory, data_root) -> str:
    """The server's database, holding synthetic multilingual submissions of both editions."""
    if not all((data_root / folder / "dev_inputs.tsv").is_file() for folder in ("textdetox2024", "textdetox2025")):
        pytest.skip("the TextDetox editions are not fetched: run `python -m detox_core fetch-data`")
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'detox.sqlite'}"
    store = Store(url)
    store_multilingual(store, "textdetox2024", "test", no_j=("am", "zh"))
    store_multilingual(store, "textdetox2025", "dev")
    return url


def open_page(page, server, path: str, dataset: str, width: int):
    page.set_viewport_size({"width": width, "height": 1000})
    split = SPLITS.get(dataset)
    page.goto(f"{server}/{path}?dataset={dataset.replace(' ', '+')}" + (f"&splits={split}" if split else ""))
    wait_idle(page, 180)
    no_exception(page)
    return page.inner_text("body")


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("dataset", ["TextDetox 2024", "TextDetox 2025"])
def test_leaderboard_per_language(server, page, dataset, width):
    text = open_page(page, server, "leaderboard", dataset, width)
    assert f"{dataset}: the published tables" in text and "Teams × languages" in text
    # The partial submission is a row of the heat map, its unanswered languages empty (table cells are a canvas).
    # The chart draws its SVG after the run has ended: wait for it, not only for the run.
    wait_markup(page, "local: partial.tsv", timeout=120)
    assert "local: partial.tsv" in page.content() and "Partial submissions (some languages not answered)" in text
    # The edition's averages are named, and called official only in its own preset's ranking.
    if dataset == "TextDetox 2024":
        assert "n/a — no references for Amharic (am), Chinese (zh)" in text
        assert "The edition's averages: avg, the mean over" in text
        assert "official averages only in the TextDetox 2024 preset's ranking" in text
    else:
        assert "LLM judge (final ranking)" in text and "The edition's averages: avg_p, the mean over" in text
        assert "official averages only in the TextDetox 2025 preset's ranking" in text
    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 2  # p-values and the heat map
    assert cut_off_controls(page) == []
    shot(page, f"leaderboard_{dataset.replace(' ', '').lower()}_{width}", height=3200, width=width)


@pytest.mark.parametrize("width", [1400, 800])
@pytest.mark.parametrize("dataset", ["TextDetox 2024", "TextDetox 2025"])
def test_compare_per_language(server, page, dataset, width):
    text = open_page(page, server, "compare", dataset, width)
    assert "Means over languages" in text and "Per language" in text
    if dataset == "TextDetox 2024":
        assert "J: n/a — no references for" in text
    assert cut_off_controls(page) == []
    shot(page, f"compare_{dataset.replace(' ', '').lower()}_{width}", height=3000, width=width)


@pytest.mark.parametrize("width", [1400, 800])
def test_monolingual_leaderboard_keeps_its_page(server, page, width):
    text = open_page(page, server, "leaderboard", "RUSSE-2022", width)
    assert "the published leaderboard" in text and "Teams × languages" not in text
    shot(page, f"leaderboard_russe2022_{width}", height=1600, width=width)
