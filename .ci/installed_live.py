"""CI (.ci/install_check): a person's first visit to an installed copy's dashboard. Opens Live
scoring on the server `detox serve` started from a fresh environment, types an English insult
and a polite rewrite, and checks that a J card is drawn (a number in [0, 1]) with no error, at
1400 and 800 px; prints the seconds from opening the page to the card.

Usage: python .ci/installed_live.py URL SCREENSHOT_DIR (run with the tests' environment: Playwright
and Debian's Chromium).
"""

from __future__ import annotations

import sys
import time
import urllib.parse
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.e2e.util import CHROMIUM, no_exception, wait_idle  # noqa: E402


def main(url: str, shots: Path) -> int:
    shots.mkdir(parents=True, exist_ok=True)
    query = urllib.parse.urlencode({"live_lang": "English (en)", "live_input": "you are a stupid idiot, shut up",
                                    "live_candidates": "you are wrong, please stop"})
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync"])
        try:
            for width in (1400, 800):
                page = browser.new_page(viewport={"width": width, "height": 1000})
                started = time.monotonic()
                page.goto(f"{url}/live_scoring?{query}")
                card = page.locator('[data-testid="stMetric"]').filter(has_text="J").first
                card.wait_for(timeout=180_000)
                seconds = time.monotonic() - started
                wait_idle(page, 120)
                no_exception(page)
                value = float(card.locator('[data-testid="stMetricValue"]').inner_text())
                assert 0.0 <= value <= 1.0, value
                assert page.query_selector('[data-testid="stAlertContentError"]') is None, "an error is shown"
                page.screenshot(path=str(shots / f"installed_live_{width}.png"), full_page=True)
                print(f"install check: the installed dashboard's Live scoring drew J {value:.2f} at {width} px, "
                      f"{seconds:.1f} s after the page was opened")
                page.close()
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], Path(sys.argv[2])))
