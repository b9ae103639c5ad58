"""Fixtures of the browser tests: the data, a database, the running app, Chromium.

Skipped when Debian's Chromium is not installed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from detox_core.data import PROJECT_ROOT
from tests.conftest import write_tiny_dataset
from tests.e2e.util import CHROMIUM, start_app, stop_app, track_reruns


@pytest.fixture(scope="module", autouse=True)
def no_warmup_at_start():
    """The servers of the browser tests load each model on first use (``DETOX_WARMUP=0``),
    as they did before the warm-up existed: a warm-up of every language beside each test's
    first page costs CPU on a 2-core machine and stalls the server for a second or more
    (lingua's build holds the GIL). The warm-up has its own browser test
    (tests/e2e/test_warmup.py turns it on). Module-scoped: it ends with each module, so the
    other tests never see it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DETOX_WARMUP", "0")
        yield


@pytest.fixture(scope="module")
def data_root(tmp_path_factory) -> Path:
    """The real data when fetched (for true screenshots), else a tiny dataset."""
    real = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data"))
    if (real / "russe2022" / "train.tsv").is_file():
        return real
    root = tmp_path_factory.mktemp("data")
    write_tiny_dataset(root)
    return root


@pytest.fixture(scope="module")
def db_url(tmp_path_factory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('db') / 'detox.sqlite'}"


@pytest.fixture(scope="module")
def server(data_root, db_url):
    try:
        # The open app (no organizer password), as on one's own machine; tests/e2e/test_roles.py
        # starts one with roles.
        proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url,
                               "DETOX_ORGANIZER_PASSWORD": ""})
    except RuntimeError as err:
        pytest.fail(str(err))
    yield url
    stop_app(proc)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    track_reruns(ctx)
    pg = ctx.new_page()
    yield pg
    ctx.close()
