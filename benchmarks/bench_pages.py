"""What a person waits for in the browser: the page timings of the new-user walkthrough.

Starts the app of this checkout (embedded defaults, the fetched data, a fresh SQLite file)
and drives it in headless Chromium, timing from the action to the end of Streamlit's run:

- Live scoring's first screen after a server start (the first page a demo opens);
- a warm re-score on Live scoring (a new pair, Ctrl+Enter);
- Human vs automatic's Correlations tab on the shipped RUSSE-2022 sample (first open and
  a second open of the same tab);
- choosing 7 of the 15 TextDetox 2025 languages in the sidebar.

Run on an idle machine: ``python benchmarks/bench_pages.py`` (needs Debian's chromium).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.util import CHROMIUM, start_app, stop_app, wait_idle  # noqa: E402

PAIRS = [("ты дебил, иди отсюда", "ты неправ, иди отсюда"),
         ("заткнись, идиот", "помолчи, пожалуйста"),
         ("какой же ты тупой", "ты не прав"),
         ("хватит нести чушь, придурок", "хватит говорить ерунду")]
SEVEN = ["ar", "de", "en", "es", "ru", "uk", "zh"]


def timed(action, pg, timeout: float = 180) -> float:
    t0 = time.perf_counter()
    action()
    wait_idle(pg, timeout)
    return time.perf_counter() - t0


def pick_languages(pg, base: str) -> float:
    """Clear the Languages picker of TextDetox 2025 and choose SEVEN; seconds until the page is idle."""
    pg.goto(f"{base}/?dataset=TextDetox+2025")
    wait_idle(pg, 180)
    sidebar = pg.locator('[data-testid="stSidebar"]')
    t0 = time.perf_counter()
    apply = sidebar.get_by_role("button", name="Apply")
    box = sidebar.locator('[data-testid="stMultiSelect"]').filter(has_text="Languages")
    box.get_by_role("button", name="Clear all").click()
    if not apply.count():
        wait_idle(pg, 60)
    for code in SEVEN:
        box.get_by_role("combobox").fill(f"({code})")
        pg.get_by_role("option", name=f"({code})").first.click()
        if not apply.count():
            wait_idle(pg, 60)
    pg.keyboard.press("Escape")
    if apply.count():
        apply.first.click()
    wait_idle(pg, 120)
    seconds = time.perf_counter() - t0
    chips = box.locator("[data-tag]").count()
    if chips != len(SEVEN):
        print(f"  (warning: {chips} languages picked, expected {len(SEVEN)})")
    return seconds


def main() -> int:
    from playwright.sync_api import sync_playwright

    data_dir = ROOT / "data"
    if not (data_dir / "russe2022" / "test.tsv").is_file():
        print("the data is not fetched: run make data first")
        return 1
    db = Path(tempfile.mkdtemp()) / "bench.sqlite"
    env = {"DETOX_DATA_DIR": str(data_dir), "DETOX_DB_URL": f"sqlite:///{db}", "DETOX_ORGANIZER_PASSWORD": ""}
    t_start = time.perf_counter()
    proc, url = start_app(env, ROOT)
    print(f"server answers its health check: {time.perf_counter() - t_start:.1f} s after start")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            pg = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            first = timed(lambda: pg.goto(f"{url}/live_scoring"), pg)
            print(f"Live scoring, first screen after a start: {first:.1f} s")
            rescore = []
            for toxic, rewrite in PAIRS:
                def rescore_pair(toxic=toxic, rewrite=rewrite):
                    pg.get_by_role("textbox", name="Toxic sentence").fill(toxic)
                    box = pg.get_by_role("textbox", name="Candidate rewrites (one per line)")
                    box.fill(rewrite)
                    box.press("Control+Enter")
                rescore.append(timed(rescore_pair, pg))
            print(f"Live scoring, warm re-score: median {statistics.median(rescore[1:]):.2f} s "
                  f"(first {rescore[0]:.2f} s; {len(rescore)} pairs)")
            pg.goto(f"{url}/human_eval")
            wait_idle(pg, 180)
            tab = pg.get_by_role("tab", name="Correlations")
            first_tab = timed(tab.click, pg, 300)
            pg.get_by_role("tab", name="Per sentence").click()
            wait_idle(pg, 120)
            second_tab = timed(tab.click, pg, 300)
            print(f"Human vs automatic, Correlations tab: first open {first_tab:.1f} s, again {second_tab:.1f} s")
            try:
                print(f"TextDetox 2025, choosing 7 languages: {pick_languages(pg, url):.1f} s")
            except Exception as err:  # the picker's layout is the page's business; say what failed
                print(f"TextDetox 2025, choosing 7 languages: not measured ({type(err).__name__}: {err})")
            browser.close()
    finally:
        stop_app(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
