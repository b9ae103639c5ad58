"""Take the user guide's screenshots from the running app: one per page (``app.py`` and
every file of ``pages/``) at 1400 px, into ``docs/site_src/guide/img/<page>.png``.

Run from the project's root after ``make setup data`` (``make docs-screenshots``); needs Debian's
Chromium. The app runs on the fetched data with an empty database of its own and the open
access of one's own machine; a shipped output is scored first so that the ranking pages have
something to show. Each picture is reduced to a palette of 256 colours to stay small.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from tests.e2e.util import CHROMIUM, start_app, stop_app, track_reruns, wait_idle, wait_text  # noqa: E402

OUT = ROOT / "docs" / "site_src" / "guide" / "img"
WIDTH, HEIGHT = 1400, 1200


def _save(pg, name: str, element: str | None = None) -> None:
    path = OUT / f"{name}.png"
    (pg.locator(element).first if element else pg).screenshot(path=str(path))
    Image.open(path).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB")


def _open(pg, url: str, heading: str) -> None:
    pg.goto(url)
    pg.get_by_role("heading", name=heading, exact=True).wait_for(timeout=180_000)
    wait_idle(pg, timeout=180)


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    db = Path(tempfile.mkdtemp()) / "detox.sqlite"
    proc, url = start_app({"DETOX_DATA_DIR": str(ROOT / "data"), "DETOX_DB_URL": f"sqlite:///{db}",
                           "DETOX_ORGANIZER_PASSWORD": "", "DETOX_WARMUP": "0"})
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            ctx = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
            track_reruns(ctx)
            pg = ctx.new_page()
            # Corpus: a search and one pair opened (its word diff); app.py: the shared sidebar.
            pg.goto(f"{url}/?q=дебил&pair=train-19")
            wait_text(pg, "train-19 · line", timeout=180)
            wait_idle(pg, timeout=180)
            _save(pg, "corpus")
            _save(pg, "app", '[data-testid="stSidebar"]')
            # Live scoring: a typed pair, scored.
            _open(pg, f"{url}/live_scoring", "Live scoring")
            pg.get_by_role("textbox", name="Toxic sentence").fill("ты дебил, иди отсюда")
            rewrites = pg.get_by_role("textbox", name="Candidate rewrites (one per line)")
            rewrites.fill("ты неправ, иди отсюда\nуйди, пожалуйста")
            rewrites.press("Control+Enter")
            wait_idle(pg, timeout=180)
            _save(pg, "live_scoring")
            # Submissions: two shipped outputs scored and stored.
            _open(pg, f"{url}/submissions", "Submissions")
            for step in range(2):
                if step:
                    pg.get_by_role("combobox", name="Or a shipped system output").click()
                    pg.keyboard.press("ArrowDown")
                    pg.keyboard.press("Enter")
                    wait_idle(pg, timeout=60)
                pg.get_by_role("button", name="Score this output").click()
                wait_text(pg, "scored and stored", timeout=600)
                wait_idle(pg, timeout=180)
            _save(pg, "submissions")
            for name, heading in [("leaderboard", "Leaderboard"), ("compare", "Compare systems"),
                                  ("human_eval", "Human vs automatic"), ("annotate", "Annotate"),
                                  ("annotation_projects", "Annotation projects")]:
                _open(pg, f"{url}/{name}", heading)
                if name == "annotation_projects":  # no project yet: the form that creates one
                    pg.get_by_role("tab", name="New project").click()
                    wait_idle(pg, timeout=60)
                _save(pg, name)
            browser.close()
    finally:
        stop_app(proc)


if __name__ == "__main__":
    main()
