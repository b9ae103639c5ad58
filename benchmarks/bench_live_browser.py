"""Live scoring as a visitor sees it, in headless Chromium (embedded preset).

1. First screen after a server start: a fresh ``python -m detox_core serve`` (what
   ``make run`` starts: the warm-up begins with the server), or with ``--plain`` a fresh
   ``streamlit run app.py``; then a share link with a pair opened at once (``--after S``:
   S seconds after the health check answers); the time from the request until the J of
   the pair is drawn.
2. The same link in a second tab (server warm, a new session).
3. A warm re-score: another rewrite typed and sent (Ctrl+Enter), until its card shows.

Run from the repository root: ``python benchmarks/bench_live_browser.py [--plain] [--after S] [APP_DIR]`` (the
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
    """The pair's J card is drawn (with ``text``: the card of that rewrite). The status
    widget is not waited for: while the models warm, the sidebar's warm-up line reruns
    every second and shows it, although the page is done."""
    def check() -> bool:
        cards = pg.locator('[data-testid="stMetric"]').filter(has_text="J")
        if not cards.count():
            return False
        return text is None or text in pg.inner_text("body")
    return check


def main() -> int:
    from playwright.sync_api import sync_playwright

    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plain", action="store_true", help="start `streamlit run app.py` (no launcher warm-up)")
    parser.add_argument("--after", type=float, default=0.0, help="seconds between the health check and the link")
    parser.add_argument("app_dir", nargs="?", default=str(ROOT))
    args = parser.parse_args()
    t0 = time.perf_counter()
    app_dir = Path(args.app_dir).resolve()
    data_dir = os.environ.get("DETOX_DATA_DIR", str((ROOT / "data").resolve()))
    proc, url = start_app({"DETOX_DATA_DIR": data_dir}, app_dir=app_dir, launcher=not args.plain)
    started = time.perf_counter() - t0
    time.sleep(args.after)
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
            for rewrite, word in REWRITES * 2:
                box.fill(rewrite + " ")  # a new text each round (the second round adds a space)
                t = time.perf_counter()
                box.press("Control+Enter")
                # checked in the browser at each frame: no round trip of a Python poll in the figure
                pg2.wait_for_function("(w) => [...document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]')]"
                                      ".some(e => e.innerText.includes(w))", arg=word, polling="raf", timeout=120_000)
                warm.append(time.perf_counter() - t)
            browser.close()
    finally:
        stop_app(proc)
    print(f"start: {'streamlit run app.py' if args.plain else 'python -m detox_core serve (make run)'}; "
          f"link opened {args.after:.0f} s after the health check")
    print(f"server up (health check): {started:.1f} s")
    print(f"first screen after the start, link with a pair: title {first_title:.1f} s, its J {first:.1f} s")
    print(f"the same link in a new tab (warm server): title {second_title:.1f} s, its J {second:.1f} s")
    print(f"warm re-score (Ctrl+Enter until the card shows): median {statistics.median(warm):.2f} s, "
          f"max {max(warm):.2f} s over {len(warm)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
