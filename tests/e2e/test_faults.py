"""What a visitor sees when users type markup or the database fails: text, never markup
or a traceback."""

from __future__ import annotations

import http.server
import os
import threading
import urllib.parse
from pathlib import Path

import pytest

from detox_core.editions.registry import load_dataset
from tests.e2e.util import CHROMIUM, no_exception, start_app, stop_app, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture
def tracker():
    """A local HTTP server that counts requests: a rendered image would call it."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv.server_address[1], hits
    srv.shutdown()


def test_markup_in_a_file_name_and_a_url_parameter_shows_as_text(server, page, data_root, tracker):
    port, hits = tracker
    name = f"![x](http://127.0.0.1:{port}/t.png)[link](http://e.x)**b**.txt"
    inputs = load_dataset("russe2022", ["test"], data_root)["toxic_comment"].tolist()
    payload = {"name": name, "mimeType": "text/plain", "buffer": "".join(f"{t} ok\n" for t in inputs).encode()}
    page.goto(server + "/submissions")
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(payload)
    wait_idle(page)
    page.get_by_role("button", name="Score the upload").click()
    wait_idle(page, timeout=180)
    no_exception(page)
    body = page.inner_text("body").replace("\u200b", "")  # the invisible breaks of bare addresses
    assert f"{name} scored and stored" in body
    assert f"Sentences of {name}" in body
    assert page.locator("img[src*='t.png']").count() == 0
    assert page.locator("a[href*='e.x']").count() == 0
    assert page.locator("strong", has_text="b").filter(has_text="b**").count() == 0

    pair = f"**x**<img src='http://127.0.0.1:{port}/p.png'>"
    page.goto(server + "/?" + urllib.parse.urlencode({"pair": pair}))
    wait_idle(page)
    no_exception(page)
    assert f"Pair {pair} is not in the chosen dataset" in page.inner_text("body").replace("\u200b", "")
    assert page.locator("img[src*='p.png']").count() == 0
    assert hits == []


def test_a_damaged_database_gives_a_message_not_a_traceback(browser, data_root, tmp_path):
    damaged = tmp_path / "detox.sqlite"
    damaged.write_bytes(os.urandom(8192))
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": f"sqlite:///{damaged}"})
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for path in ("submissions", "leaderboard"):
            page.goto(f"{url}/{path}")
            page.get_by_text("The database is not available").wait_for(timeout=60_000)
            wait_idle(page)
            no_exception(page)
            body = page.inner_text("body")
            assert "The database is not available" in body and "damaged" in body
            assert "Database down" in body  # the sidebar's health notice
            assert str(tmp_path) not in body and "Traceback" not in body
        page.close()
    finally:
        stop_app(proc)


def test_an_unreachable_database_gives_every_store_page_a_message_without_its_address(browser, data_root):
    """The annotation store's reads used to reach the page as a raw OperationalError with
    the database's host and port (Annotation projects, Human vs automatic, Annotate)."""
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_ORGANIZER_PASSWORD": "",
                           "DETOX_DB_URL": "postgresql+psycopg://detox:secret-pw@127.0.0.1:9/detox"})
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for path in ("annotation_projects", "human_eval", "annotate"):
            page.goto(f"{url}/{path}")
            page.get_by_text("The database is not available").first.wait_for(timeout=60_000)
            wait_idle(page)
            no_exception(page)
            body = page.inner_text("body")
            assert "cannot be reached" in body
            for leak in ("127.0.0.1", ":9", "secret-pw", "OperationalError", "psycopg", "Traceback"):
                assert leak not in body, (path, leak)
        page.close()
    finally:
        stop_app(proc)
