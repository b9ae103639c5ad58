"""Take every screenshot the docs show, from the running app, and record what each was drawn from.

Run from the project's root after ``make setup data``: ``make screenshots``; needs Debian's
Chromium. The pictures are the ones ``docs/screenshots.py`` lists (``SHOTS``): each page at 1400
and at 800 px, the sidebar, and some pages in a second state (a multilingual edition, a project's
results, rewrites from the LLM). They go to ``docs/site_src/guide/img/``; each picture's entry in
``screenshots.json`` there records the digest of the files its page is drawn from, which
``tests/docs/test_screenshots.py`` compares with the current files.

The app runs on the fetched data with an empty database of its own and the open access of one's
own machine, with a local stand-in for the LLM endpoint (``tests/llm/fake_llm.py``): two shipped
outputs are scored so that the ranking pages have something to show, and an annotation project
is answered by simulated annotators. Each picture is reduced to a palette of 256 colours to
stay small. ``--only NAME ...`` re-takes the named pictures' scenes (and those they need) only.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import urllib.parse
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from docs.screenshots import IMG, MANIFEST, SHOTS, digest, read_manifest, write_manifest  # noqa: E402
from tests.e2e.util import (CHROMIUM, pilot_project, start_app, stop_app, track_reruns, wait_idle,  # noqa: E402
                            wait_markup, wait_text)

#: The window's height for a page, by picture (1400 px wide unless the name ends in -800).
HEIGHTS = {"corpus": 1300, "submissions": 1500, "leaderboard": 1600, "compare": 1400, "human_eval": 1300,
           "annotation_projects": 1300, "annotation_results": 1400, "live_scoring_llm": 1900,
           "leaderboard_textdetox2024": 2000, "human_eval_judges": 1700, "live_scoring_arabic": 1300}
HEIGHT = 1200
HEIGHT_800 = 1900
TYPED_INPUT = "ты дебил, иди отсюда"
TYPED_REWRITES = "ты неправ, иди отсюда\nуйди, пожалуйста"
ARABIC = {"dataset": "TextDetox 2024", "live_lang": "Arabic (ar)", "live_input": "أنت غبي ولا تفهم شيئا",
          "live_candidates": "أنت مخطئ ولا تفهم"}


class Camera:
    """Saves pictures of one browser page and keeps the manifest's entries of those it took."""

    def __init__(self, digests: dict[str, str]):
        self.digests = digests  # page -> the digest of its sources, computed before the app started
        self.manifest = read_manifest()
        self.taken: list[str] = []

    def save(self, pg, name: str, element: str | None = None) -> None:
        """Saves the page (or its first ``element``) as ``name``, in the window's width that the
        name says (``-800``: 800 px, else 1400 px), then puts the window back to 1400 px."""
        (shot,) = [s for s in SHOTS if s.name == name]
        height = HEIGHT_800 if shot.width == 800 else HEIGHTS.get(name, HEIGHT)
        pg.set_viewport_size({"width": shot.width, "height": height})
        wait_idle(pg, timeout=120)
        path = IMG / shot.file
        (pg.locator(element).first if element else pg).screenshot(path=str(path))
        Image.open(path).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
        self.manifest[shot.file] = {"page": shot.page, "width": shot.width, "sources": self.digests[shot.page]}
        write_manifest(self.manifest)  # after each picture: a run that fails later keeps what it took
        self.taken.append(shot.file)
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB", flush=True)
        if shot.width != 1400:
            pg.set_viewport_size({"width": 1400, "height": HEIGHT})
            wait_idle(pg, timeout=120)

    def both(self, pg, name: str) -> None:
        """``name`` at 1400 px, then ``name-800`` at 800 px: the same state, narrower."""
        self.save(pg, name)
        self.save(pg, f"{name}-800")


def _open(pg, url: str, heading: str) -> None:
    pg.goto(url)
    pg.get_by_role("heading", name=heading, exact=True).wait_for(timeout=180_000)
    wait_idle(pg, timeout=180)


def _suggest(pg) -> None:
    """Live scoring's "Suggest with the LLM", waited for until its rewrites or its warning show."""
    pg.get_by_role("button", name="Suggest with the LLM").click()
    pg.mouse.move(0, 0)  # no tooltip left open over the page
    pg.wait_for_function("""() => document.body.innerText.includes('suggested by the LLM')
        || document.querySelector('[data-testid="stAlertContentWarning"], [data-testid="stException"]')""",
                         timeout=180_000)
    wait_idle(pg, timeout=120)


def _stop_llm(ctx: dict) -> None:
    if not ctx.get("llm_stopped"):
        ctx["llm"].__exit__(None, None, None)
        ctx["llm_stopped"] = True


def _live_url(url: str, **params: str) -> str:
    return f"{url}/live_scoring?" + urllib.parse.urlencode(params)


def corpus(cam: Camera, pg, url: str, ctx) -> None:
    """Corpus: a search and one pair opened (its word diff); app.py: the shared sidebar."""
    pg.goto(f"{url}/?q=дебил&pair=train-19")
    wait_text(pg, "train-19 · line", timeout=180)
    wait_idle(pg, timeout=180)
    cam.both(pg, "corpus")
    cam.save(pg, "app", '[data-testid="stSidebar"]')


def live(cam: Camera, pg, url: str, ctx) -> None:
    """Live scoring: a typed pair, scored; then the LLM's rewrites added to it."""
    _open(pg, _live_url(url, live_input=TYPED_INPUT, live_candidates=TYPED_REWRITES), "Live scoring")
    wait_text(pg, "Rewrite 2", timeout=300)
    cam.both(pg, "live_scoring")
    _suggest(pg)
    wait_text(pg, "suggested by the LLM", timeout=60)
    cam.both(pg, "live_scoring_llm")


def submissions(cam: Camera, pg, url: str, ctx) -> None:
    """Submissions: two shipped outputs scored and stored."""
    _open(pg, f"{url}/submissions", "Submissions")
    for step in range(2):
        if step:
            pg.get_by_role("combobox", name="Or a shipped system output").click()
            pg.keyboard.press("ArrowDown")
            pg.keyboard.press("Enter")
            wait_idle(pg, timeout=60)
        pg.get_by_role("button", name="Score this output").click()
        wait_text(pg, "scored and stored", timeout=900)
        wait_idle(pg, timeout=180)
    cam.both(pg, "submissions")


def rankings(cam: Camera, pg, url: str, ctx) -> None:
    """Leaderboard, Compare systems, Human vs automatic, on the outputs the Submissions scene stored."""
    for name, heading in [("leaderboard", "Leaderboard"), ("compare", "Compare systems"),
                          ("human_eval", "Human vs automatic")]:
        _open(pg, f"{url}/{name}", heading)
        cam.both(pg, name)


def annotation(cam: Camera, pg, url: str, ctx) -> None:
    """Annotate: a page of the project answered with the keyboard; Annotation projects: the
    project's progress and its results (its other annotators simulated through the store)."""
    _open(pg, f"{url}/annotate", "Annotate")
    pg.get_by_label("Access code").fill(ctx["access_code"])
    pg.get_by_label("Your name").fill("Kira")
    pg.get_by_label("Your password", exact=True).fill("kiras-password")
    pg.get_by_role("button", name="Join").click()
    pg.locator(".ap-item").first.wait_for(timeout=60_000)
    wait_idle(pg, timeout=60)
    pg.locator("h1").first.click()  # focus the page, not a field
    for _ in range(pg.locator(".ap-item").count()):
        pg.keyboard.press("1")
    wait_idle(pg, timeout=60)
    cam.both(pg, "annotate")
    _open(pg, f"{url}/annotation_projects", "Annotation projects")
    wait_text(pg, "Krippendorff", timeout=120)
    cam.both(pg, "annotation_projects")
    pg.get_by_role("tab", name="Results").click()
    wait_text(pg, "Human judgements", timeout=120)
    wait_idle(pg, timeout=120)
    cam.save(pg, "annotation_results")


def multilingual(cam: Camera, pg, url: str, ctx) -> None:
    """TextDetox 2024: an Arabic pair of the corpus, Live scoring in Arabic, the Leaderboard's
    published tables."""
    dataset = urllib.parse.quote(ARABIC["dataset"])
    pg.goto(f"{url}/?dataset={dataset}&pair=dev-ar-0")
    wait_text(pg, "Arabic", timeout=300)
    wait_idle(pg, timeout=180)
    cam.save(pg, "corpus_arabic")
    _open(pg, _live_url(url, **ARABIC), "Live scoring")
    wait_text(pg, "Rewrite 1", timeout=300)
    cam.save(pg, "live_scoring_arabic")
    _open(pg, f"{url}/leaderboard?dataset={dataset}", "Leaderboard")
    wait_text(pg, "Teams × languages", timeout=300)
    wait_markup(pg, "stPlotlyChart", timeout=120)
    cam.save(pg, "leaderboard_textdetox2024")


def judges(cam: Camera, pg, url: str, ctx) -> None:
    """Human vs automatic on TextDetox 2024: the LLM judges of the meta-evaluation sample against
    each other, per language (its first visit scores the 4,320 judged pairs: minutes on a CPU)."""
    pg.goto(f"{url}/human_eval?dataset={urllib.parse.quote(ARABIC['dataset'])}")
    wait_text(pg, "judged outputs of", timeout=1800)
    wait_idle(pg, timeout=1800)
    pg.get_by_role("tab", name="Judges").click()
    wait_text(pg, "Cohen's kappa", timeout=300)
    wait_idle(pg, timeout=180)
    cam.save(pg, "human_eval_judges")


def llm_down(cam: Camera, pg, url: str, ctx) -> None:
    """Live scoring when the LLM endpoint does not answer: one warning, the typed rewrite scored."""
    _stop_llm(ctx)  # the endpoint stops answering
    _open(pg, _live_url(url, live_input=TYPED_INPUT, live_candidates=TYPED_REWRITES.splitlines()[0]), "Live scoring")
    wait_text(pg, "Rewrite 1", timeout=300)
    pg.set_viewport_size({"width": 800, "height": HEIGHT_800})
    wait_idle(pg, timeout=60)
    _suggest(pg)
    wait_text(pg, "could not be reached", timeout=60)
    cam.save(pg, "live_scoring_llm_down-800")


#: The scenes in the order they run (one browser page each, in a session of its own), the pictures
#: each takes and the scenes whose state it needs.
SCENES: list[tuple[Callable, tuple[str, ...], tuple[str, ...]]] = [
    (corpus, ("corpus", "corpus-800", "app"), ()),
    (live, ("live_scoring", "live_scoring-800", "live_scoring_llm", "live_scoring_llm-800"), ()),
    (submissions, ("submissions", "submissions-800"), ()),
    (rankings, ("leaderboard", "leaderboard-800", "compare", "compare-800", "human_eval", "human_eval-800"),
     ("submissions",)),
    (annotation, ("annotate", "annotate-800", "annotation_projects", "annotation_projects-800",
                  "annotation_results"), ()),
    (multilingual, ("corpus_arabic", "live_scoring_arabic", "leaderboard_textdetox2024"), ()),
    (judges, ("human_eval_judges",), ()),
    (llm_down, ("live_scoring_llm_down-800",), ()),  # last: it stops the LLM endpoint
]


def annotation_project(db_url: str, data_root: Path) -> str:
    """Creates an annotation project on two systems' outputs for eight test inputs, answered by
    three careful annotators and a random one (through the store); returns its access code. Each
    item wants five annotators, so that the one of the Annotate picture still has a page to answer."""
    _store, project = pilot_project(db_url, data_root, overlap=5)
    return project.access_code


def main(argv: list[str] | None = None) -> None:
    from playwright.sync_api import sync_playwright

    from tests.llm.fake_llm import FakeLLM

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=[s.name for s in SHOTS],
                        help="re-take only the scenes of these pictures (file names without .png)")
    args = parser.parse_args(argv)
    scenes = SCENES
    if args.only:
        wanted = {fn.__name__ for fn, names, _ in SCENES if set(names) & set(args.only)}
        wanted |= {need for fn, _, needs in SCENES if fn.__name__ in wanted for need in needs}
        scenes = [scene for scene in SCENES if scene[0].__name__ in wanted]

    # The sources' digests as the server about to start reads them: an edit made while the
    # pictures are being taken makes them stale, as it should.
    cam = Camera({page: digest(page) for page in {s.page for s in SHOTS}})
    IMG.mkdir(parents=True, exist_ok=True)
    data_root = ROOT / "data"
    db_url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'detox.sqlite'}"
    ctx: dict = {"access_code": annotation_project(db_url, data_root)}
    llm = ctx["llm"] = FakeLLM().__enter__()
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url, "DETOX_ORGANIZER_PASSWORD": "",
                           "DETOX_WARMUP": "0", "OPENAI_BASE_URL": llm.url, "DETOX_LLM_MODEL": "rewrite-model",
                           "OPENAI_API_KEY": "sk-screenshots"})
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            try:
                for scene, _names, _needs in scenes:
                    print(f"{scene.__name__} ...", flush=True)
                    context = browser.new_context(viewport={"width": 1400, "height": HEIGHT})
                    track_reruns(context)
                    try:
                        scene(cam, context.new_page(), url, ctx)
                    finally:
                        context.close()
            finally:
                browser.close()
    finally:
        stop_app(proc)
        _stop_llm(ctx)
    print(f"{len(cam.taken)} pictures taken; manifest: {MANIFEST.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
