"""A catastrophic regular expression cannot stall the server for other users."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from tests.e2e.util import CHROMIUM, health_probe, no_exception, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

# The pattern that held a core at 100% and timed out other users' pages before
# searches were bounded (it now finishes), and one that is stopped and refused.
PATTERNS = [(r"(\w+\s?)+Ж!", False), (r"(а|аа)+$", True)]


@pytest.mark.parametrize("pattern, refused", PATTERNS)
def test_catastrophic_regex_in_a_shared_link_leaves_other_sessions_responsive(server, browser, pattern, refused):
    # Warm the corpus cache first, as on a server that is in use.
    warm = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    warm.goto(server + "/")
    wait_idle(warm, timeout=120)
    warm.context.close()

    attacker = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    url = server + "/?" + urllib.parse.urlencode({"q": pattern, "regex": "true", "in": "both"})
    with health_probe(server) as health:
        attacker.goto(url)
        wait_idle(attacker, timeout=60)
        # Meanwhile another visitor opens a page of the app and sees it render.
        other = browser.new_context(viewport={"width": 800, "height": 900}).new_page()
        other.goto(server + "/live_scoring")
        other.get_by_role("heading", name="Live scoring").wait_for(timeout=120_000)  # a hang guard
        other.context.close()
    no_exception(attacker)
    body = attacker.inner_text("body")
    assert ("took longer than" in body and "simplify it" in body) == refused
    # Before searches were bounded, the search held the process for minutes: every health check
    # meanwhile failed (its client gives up after 10 s, a guard against a hang). Now each is answered.
    assert health and float("inf") not in health, health
    attacker.context.close()
