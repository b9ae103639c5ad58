"""Cold start: from a fresh server to the first useful screen of every page.

For each page a new app server is started (embedded preset, the fetched data, a SQLite
file holding two scored shipped submissions of the test split, so that Submissions,
Leaderboard and Compare systems have something to show) and one headless-Chromium
session opens the page. It prints:

- ``useful``: seconds from opening the address to the page's first useful screen (the
  element named in ``PAGES``: a table, a chart, the score cards) with the run finished;
  on Live scoring, from pressing Ctrl+Enter on a typed pair to the score cards, since
  that is the page's first use (``live_scoring``: the pair sent as soon as the page is
  shown; ``live_scoring_typed``: 5 s later, as after typing; ``live_scoring_warm``: once
  the sidebar reports the models warm, target under 1 s);
- ``silent``: the longest stretch in seconds, while the script was running, with no
  progress indication on the page (a spinner, a progress bar or a skeleton placeholder).
  The target is under one second.

The second server of each row (``warm``) is the same page opened again in a second
session of the same server: what the next user of a shared deployment sees.

This checkout is measured with its servers started both ways (``--servers``): ``streamlit
run app.py`` (the models start warming with the first session) and the launcher
``python -m detox_core serve`` (they warm from the server's start); ``live_scoring_warm``
rows also print ``warm after s``, the seconds from the server answering its health check
to the first session's sidebar reporting the models warm.

Usage: ``python benchmarks/bench_cold_start.py [--pages corpus live_scoring ...] [--servers streamlit launcher]
[--baseline DIR]``.
``--baseline DIR`` runs the same measurements on another checkout of the app (for
example an older commit: ``git worktree add DIR COMMIT``) in the same run, first.
Needs the RUSSE-2022 data (``python -m detox_core fetch-data``) and Debian's Chromium (the
embedded preset's heads ship with the package).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.util import CHROMIUM, start_app, stop_app  # noqa: E402

INDICATORS = '[data-testid="stSpinner"], [data-testid="stProgress"], [data-testid="stSkeleton"]'

#: page -> (address, CSS selector of the first useful element)
PAGES = {
    "corpus": ("/", '[data-testid="stDataFrame"]'),
    "live_scoring": ("/live_scoring", '[data-testid="stMetric"]'),
    # The same, with the pair sent 5 s after the page is shown (a person typing), not at once.
    "live_scoring_typed": ("/live_scoring", '[data-testid="stMetric"]'),
    # The same, with the pair sent once the sidebar says the models are warm (target < 1 s).
    "live_scoring_warm": ("/live_scoring", '[data-testid="stMetric"]'),
    "submissions": ("/submissions", '[data-testid="stDataFrame"] >> nth=1'),
    "leaderboard": ("/leaderboard", '[data-testid="stDataFrame"] >> nth=1'),
    "compare": ("/compare", '[data-testid="stPlotlyChart"]'),
    "human_eval": ("/human_eval", '[data-testid="stDataFrame"]'),
    "annotate": ("/annotate", 'input[aria-label="Access code"]'),
    "annotation_projects": ("/annotation_projects", '[data-testid="stTabs"]'),
}


def seed_database(url: str) -> None:
    """Two shipped outputs of the test split, scored with the embedded preset."""
    from detox_core.analysis import corpus
    from detox_core import editions
    from detox_core.submissions.store import Store
    from detox_core.submissions.service import score_and_store, shipped_outputs, split_inputs

    prepared = corpus.prepare_corpus(editions.load_dataset("russe2022"), editions.load_dataset_lexicon("russe2022"))
    inputs, refs = split_inputs(prepared, "test")
    store = Store(url)
    for name, path in list(shipped_outputs("russe2022", "test").items())[:2]:
        score_and_store(store, path.read_bytes(), path.name, dataset="russe2022", split="test", inputs=inputs,
                        references=refs, preset="embedded", calibrated=True, source="shipped")


def running(page) -> bool:
    return page.query_selector('[data-testid="stStatusWidget"]') is not None


def watch(page, selector: str, timeout: float = 180.0) -> tuple[float, float]:
    """Seconds until ``selector`` is visible and the run is over; longest silent stretch."""
    t0 = time.monotonic()
    silent_since, longest, quiet = None, 0.0, 0
    deadline = t0 + timeout
    while time.monotonic() < deadline:
        now = time.monotonic()
        busy = running(page)
        shown = page.locator(selector).first.is_visible() if page.locator(selector).count() else False
        indicated = any(el.is_visible() for el in page.query_selector_all(INDICATORS))
        if busy and not indicated:
            silent_since = now if silent_since is None else silent_since
            longest = max(longest, now - silent_since)
        else:
            silent_since = None
        quiet = quiet + 1 if (shown and not busy) else 0
        if quiet >= 2:
            return now - t0, longest
        time.sleep(0.1)
    raise TimeoutError(f"{selector} not shown in {timeout:.0f} s")


WARM_JS = """() => { const s = document.querySelector('[data-testid="stSidebar"]');
  return s !== null && /Models warm|could not be warmed/.test(s.innerText) && !/Warming models/.test(s.innerText); }"""
WARM_AFTER: list[float] = []


def open_page(browser, url: str, name: str, started: float | None = None) -> tuple[float, float]:
    """(useful, silent) of one session; on ``live_scoring_warm``, also notes in
    ``WARM_AFTER`` the seconds from ``started`` to its sidebar reporting the models warm."""
    path, selector = PAGES[name]
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    try:
        if name.startswith("live_scoring"):
            page.goto(url + path)
            page.get_by_role("textbox", name="Toxic sentence").wait_for(timeout=120_000)
            watch(page, '[data-testid="stTextArea"]')
            if name == "live_scoring_typed":
                time.sleep(5)
            if name == "live_scoring_warm":  # the sidebar's line, updated while the models warm
                page.wait_for_function(WARM_JS, timeout=180_000, polling=100)
                if started is not None:
                    WARM_AFTER.append(time.monotonic() - started)
            page.get_by_role("textbox", name="Toxic sentence").fill("ты дебил, иди отсюда")
            box = page.get_by_role("textbox", name="Candidate rewrites (one per line)")
            box.fill("ты неправ, иди отсюда")
            box.press("Control+Enter")
            return watch(page, selector)
        page.goto(url + path)
        return watch(page, selector)
    finally:
        ctx.close()


def measure(browser, app_dir: Path, pages: list[str], env: dict[str, str], first_start: bool = False,
            launcher: bool = False, baseline: bool = False) -> None:
    print(f"{'page':<22}{'cold useful s':>14}{'silent s':>10}{'warm useful s':>15}{'silent s':>10}{'warm after s':>14}")
    for name in pages:
        if baseline and name == "live_scoring_warm":
            print(f"{name:<22}  n/a: an app without the warm-up's sidebar line", flush=True)
            continue
        if first_start:  # as on a server's very first start: nothing kept on disk from an earlier one
            for kept in (Path(env["DETOX_DATA_DIR"]) / "cache").glob("embedded-scores-*.pkl"):
                kept.unlink()
        proc, url = start_app(env, app_dir, launcher=launcher)
        started = time.monotonic()
        WARM_AFTER.clear()
        try:
            cold, cold_silent = open_page(browser, url, name, started)
            warm, warm_silent = open_page(browser, url, name)
            ready = WARM_AFTER[0] if WARM_AFTER else None
        finally:
            stop_app(proc)
        target = "  (target < 1 s)" if name == "live_scoring_warm" else ""
        print(f"{name:<22}{cold:>14.2f}{cold_silent:>10.1f}{warm:>15.2f}{warm_silent:>10.1f}"
              + (f"{ready:>14.1f}" if ready is not None else f"{'':>14}") + target, flush=True)


SERVERS = {"streamlit": ("streamlit run app.py", False), "launcher": ("python -m detox_core serve", True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), default=list(PAGES))
    parser.add_argument("--baseline", type=Path, help="another checkout of the app, measured first")
    parser.add_argument("--servers", nargs="+", choices=list(SERVERS), default=list(SERVERS),
                        help="how each server is started (default: both, streamlit run app.py first)")
    parser.add_argument("--first-start", action="store_true",
                        help="also measure this checkout with the disk cache under data/cache emptied before each page")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from detox_core.data import data_dir

    tmp = Path(tempfile.mkdtemp(prefix="detox-cold-"))
    db_url = f"sqlite:///{tmp / 'detox.sqlite'}"
    print("seeding the database with two scored submissions…", flush=True)
    seed_database(db_url)
    env = {"DETOX_DB_URL": db_url, "DETOX_ORGANIZER_PASSWORD": "", "DETOX_DATA_DIR": str(data_dir())}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        if args.baseline:  # an older checkout may have no launcher: started with streamlit run
            print(f"\nbaseline: {args.baseline} (streamlit run app.py)")
            measure(browser, args.baseline.resolve(), args.pages, env, baseline=True)
        for server in args.servers:
            how, launcher = SERVERS[server]
            print(f"\nthis checkout, servers started with {how}")
            measure(browser, ROOT, args.pages, env, launcher=launcher)
        if args.first_start:
            print("\nthis checkout, first start (data/cache emptied)")
            measure(browser, ROOT, args.pages, env, first_start=True)
        browser.close()


if __name__ == "__main__":
    main()
