"""Live scoring as a visitor sees it, in headless Chromium (embedded preset).

1. First screen after a server start: a fresh ``streamlit run``, then a share link
   with a pair opened at once; the time from the request until the J of the pair shows.
2. The same link in a second tab (server warm, a new session).
3. A warm re-score: another rewrite typed and sent (Ctrl+Enter), until its card shows.

Run from the repository root: ``python benchmarks/bench_live_browser.py [APP_DIR]`` (the
data and the embedded models must be there; Chromium at /usr/bin/chromium or on the PATH).
``APP_DIR``: another checkout to run (e.g. an older commit exported with ``git archive``),
reading this checkout's data.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.util import CHROMIUM, start_app, stop_app  # noqa: E402

PAIR = {"live_input": "Ты дурак, заткнись", "live_candidates": "Ты не прав, помолчи, пожалуйста"}
#: (rewrite, a word of it that the page shows only once its card is drawn)
REWRITES = [("Ты ошибаешься, пожалуйста, помолчи", "ошибаешься"), ("Ты не прав, давай помолчим", "давай"),
            ("Помолчи, будь добр", "добр"), ("Ты неправ, не говори больше", "говори"),
            ("Пожалуйста, не продолжай", "продолжай")]


def until(pg, predicate, timeout: float = 120.0, step: float = 0.02) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if predicate():
            return time.perf_counter() - started
        time.sleep(step)
    raise TimeoutError("the page did not get there")


def scored(pg, text: str | None = None):
    def check() -> bool:
        if pg.query_selector('[data-testid="stStatusWidget"]') is not None:
            return False
        cards = pg.locator('[data-testid="stMetric"]').filter(has_text="J")
        if not cards.count():
            return False
        return text is None or text in pg.inner_text("body")
    return check


def main() -> int:
    from playwright.sync_api import sync_playwright

    t0 = time.perf_counter()
    app_dir = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT
    data_dir = os.environ.get("DETOX_DATA_DIR", str((ROOT / "data").resolve()))
    proc, url = start_app({"DETOX_DATA_DIR": data_dir}, app_dir=app_dir)
    started = time.perf_counter() - t0
    link = f"{url}/live_scoring?" + urllib.parse.urlencode(PAIR)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            pg = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            t = time.perf_counter()
            pg.goto(link)
            until(pg, lambda: pg.get_by_role("heading", name="Live scoring").count() > 0)
            first_title = time.perf_counter() - t
            until(pg, scored(pg))
            first = time.perf_counter() - t
            pg2 = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            t = time.perf_counter()
            pg2.goto(link)
            until(pg2, lambda: pg2.get_by_role("heading", name="Live scoring").count() > 0)
            second_title = time.perf_counter() - t
            until(pg2, scored(pg2))
            second = time.perf_counter() - t
            box = pg2.get_by_role("textbox", name="Candidate rewrites (one per line)")
            warm = []
            for rewrite, word in REWRITES:
                box.fill(rewrite)
                t = time.perf_counter()
                box.press("Control+Enter")
                until(pg2, scored(pg2, word))
                warm.append(time.perf_counter() - t)
            browser.close()
    finally:
        stop_app(proc)
    print(f"server up (health check): {started:.1f} s")
    print(f"first screen after the start, link with a pair: title {first_title:.1f} s, its J {first:.1f} s")
    print(f"the same link in a new tab (warm server): title {second_title:.1f} s, its J {second:.1f} s")
    print(f"warm re-score (Ctrl+Enter until the card shows): median {statistics.median(warm):.2f} s, "
          f"max {max(warm):.2f} s over {len(warm)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
