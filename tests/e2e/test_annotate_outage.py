"""An annotator submits a page while the database does not answer: a message, the
answers stay on the page, and the same page is stored once the database is back."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect
from sqlalchemy import create_engine, text

from detox_core.annotation.store import AnnotationStore, Settings
from tests.conftest import drop_database
from tests.e2e.test_annotate_keys import join
from tests.e2e.util import CHROMIUM, no_exception, start_app, stop_app

PG = os.environ.get("DETOX_TEST_POSTGRES_URL")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
    pytest.mark.skipif(not PG, reason="no PostgreSQL test database (set DETOX_TEST_POSTGRES_URL)"),
]


def answer_all(page, keys: str) -> None:
    """Press one key per item and wait until the page shows every item answered (on a busy
    machine the page may still be drawing when the first keys come: they are pressed again)."""
    answered = page.locator(".ap-item.answered")
    for _ in range(3):
        page.locator("h1").first.click()
        for key in keys:
            page.keyboard.press(key)
        try:
            expect(answered).to_have_count(len(keys), timeout=15_000)  # the page is in a shadow root
            return
        except AssertionError:  # not all shown answered yet: press them again
            continue
    raise AssertionError(f"{answered.count()} of {len(keys)} items answered after pressing {keys!r} three times")


def test_a_page_sent_during_an_outage_keeps_its_answers_and_is_stored_later(browser, data_root, postgres_in_use):
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        drop_database(c, "detox_outage")
        c.execute(text("CREATE DATABASE detox_outage"))
    url = PG.rsplit("/", 1)[0] + "/detox_outage"
    role = create_engine(url).url.username
    store = AnnotationStore(url)
    pairs = pd.DataFrame({"system": "sys", "idx": range(4), "input": [f"ты дурак {i}" for i in range(4)],
                          "output": [f"вежливый ответ {i}" for i in range(4)]})
    project = store.create_project("outage", ["toxicity"], pairs,
                                   settings=Settings(page_size=4, controls_per_page=0, min_page_seconds=0,
                                                     training=False))
    proc, server = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": url, "DETOX_ORGANIZER_PASSWORD": ""})
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        join(page, server, project.access_code, "Nadia")
        answer_all(page, "1212")
        # The database goes away: no new connection, the open ones cut.
        with admin.connect() as c:
            c.execute(text(f'REVOKE CONNECT ON DATABASE detox_outage FROM PUBLIC, "{role}"'))
            c.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = 'detox_outage' AND pid <> pg_backend_pid()"))
        page.keyboard.press("Enter")
        page.get_by_text("The database is not available").first.wait_for(timeout=60_000)
        no_exception(page)
        body = page.inner_text("body")
        assert "cannot be reached" in body
        assert "127.0.0.1" not in body and "OperationalError" not in body and "Traceback" not in body
        with admin.connect() as c:
            c.execute(text(f'GRANT CONNECT ON DATABASE detox_outage TO PUBLIC, "{role}"'))
        page.get_by_role("button", name="Try again").click()
        # The same page, with the answers given before and what happened to them.
        try:
            page.get_by_text("Not saved: the annotation database cannot be reached").wait_for(timeout=60_000)
        except PlaywrightError:
            raise AssertionError(f"no 'Not saved' notice after trying again; the page reads:\n{page.inner_text('body')}")
        assert page.locator(".ap-item.answered").count() == 4
        page.locator("h1").first.click()
        page.keyboard.press("Enter")
        page.get_by_text("Page 1 saved: 4 answers").wait_for(timeout=60_000)
        answers = AnnotationStore(url).answers(project.id)
        assert sorted(answers["label"]) == [0.0, 0.0, 1.0, 1.0]
        page.close()
    finally:
        stop_app(proc)
        store.engine.dispose()
        with admin.connect() as c:
            drop_database(c, "detox_outage")
        admin.dispose()
