"""Idle sockets do not lock people out: a tab counts while its page beats.

Started with the launcher (the app's own routes, the beat route among them), on a process
of at most 6 sessions (one kept for the Annotate page). Tabs from one address whose beats
never reach the server (the route blocked in the browser: what a socket that runs no
script amounts to) fill the visitors' places for half a minute; a visitor from another
address is told the server is full meanwhile, then gets in, while the idle tabs' WebSockets
are closed by the server. A tab that beats is never closed.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from detox_core.deployment.presence import GRACE_S
from detox_core.ui.app.asgi import SWEEP_S
from tests.e2e.util import CHROMIUM, from_address, no_exception, start_app, stop_app, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def small(data_root, db_url):
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url, "DETOX_ORGANIZER_PASSWORD": "",
                           "DETOX_MAX_SESSIONS": "6"}, launcher=True)
    yield url
    stop_app(proc)


def _tab(browser, url: str, beats: bool, width: int = 1400):
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    page = ctx.new_page()
    closed: list[float] = []
    page.on("websocket", lambda ws: ws.on("close", lambda _ws: closed.append(time.time())))
    if not beats:
        page.route("**/_detox/beat", lambda route: route.abort())
    page.goto(url + "/corpus")
    return page, closed


def test_tabs_that_do_not_beat_lose_their_places_and_a_new_visitor_gets_in(small, browser):
    reader, reader_closed = _tab(browser, small, beats=True)
    reader.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=120_000)
    wait_idle(reader)
    idle_url = from_address(small, "127.0.0.31")
    idle = []
    for _ in range(4):  # 1 + 4 = the visitors' places (6, one kept for the Annotate page)
        page, closed = _tab(browser, idle_url, beats=False)
        page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=120_000)
        idle.append((page, closed))
    visitor, _ = _tab(browser, from_address(small, "127.0.0.32"), beats=True, width=800)
    visitor.get_by_text("This server is full for now").wait_for(timeout=60_000)
    # After the grace, the sweep and a reload, the visitor is in: nobody closed the idle tabs. (The
    # deadline only guards against a hang: how long it takes is the grace's, not this test's.)
    deadline = time.monotonic() + GRACE_S + 300
    while time.monotonic() < deadline:
        time.sleep(5)
        visitor.reload()
        heading, full = visitor.get_by_role("heading", name="Corpus", exact=True), visitor.get_by_text("server is full")
        heading.or_(full).first.wait_for(timeout=60_000)
        if heading.count():
            break
    assert visitor.get_by_role("heading", name="Corpus", exact=True).count(), "the visitor never got in"
    wait_idle(visitor)
    no_exception(visitor)
    # The server closes every idle tab's WebSocket (at its next sweep); the reading tab keeps its own.
    deadline = time.time() + SWEEP_S + 120  # a hang guard: the sweep closes them at its next round
    while time.time() < deadline and not all(closed for _page, closed in idle):
        reader.wait_for_timeout(1000)
    assert all(closed for _page, closed in idle), [len(c) for _p, c in idle]
    assert not reader_closed
    reader.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=10_000)
    for page in [reader, visitor, *(p for p, _c in idle)]:
        page.context.close()
