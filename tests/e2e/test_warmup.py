"""A server started with the launcher (``python -m detox_core serve``) warms its models
from the start: the sidebar says so while they load and which presets are warm after, a
preset whose models fail to load is named with the reason, a preset whose models would
come from the hub is not touched, the line stops refreshing once the warm-up is over, and
Live scoring scores meanwhile and after. At 1400 and 800 px.

The RUSSE-2022 preset's three models are mapped to tiny local models (warmed through the
pool), the TextDetox 2024 toxicity classifier to a folder without weights (its warm-up
fails), and nothing is in the Hugging Face cache (the other presets are left out)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from detox_core.metrics import preset_class
from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, start_app, stop_app, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

SIDEBAR = '[data-testid="stSidebar"]'
#: Counts, from now on, the times the page shows that a score waits for models ("still
#: warming up", "still to be warmed": detox_core/ui/app/warming.py's notice).
WATCH_WARMING_NOTICES_JS = """() => {
  window.__warmingNotices = 0;
  const seen = () => { if (/still warming up|still to be warmed/.test(document.body.innerText)) window.__warmingNotices++; };
  new MutationObserver(seen).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


@pytest.fixture(scope="module")
def launched(data_root, db_url, tmp_path_factory):
    from tests.tiny_models import build_all

    tiny = build_all(tmp_path_factory.mktemp("tiny-models"))
    broken = tmp_path_factory.mktemp("model-without-weights")
    official = preset_class("russe2022").default_models()
    multilingual = preset_class("textdetox2024").default_models()
    mapping = {official["sta"]: tiny["sta"], official["sim"]: tiny["sim"], official["fl"]: tiny["fl"],
               multilingual["sta"]: broken, multilingual["sim"]: tiny["st"]}
    proc, url = start_app({
        "DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url, "DETOX_ORGANIZER_PASSWORD": "",
        "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path_factory.mktemp("empty-hf-cache")), "DETOX_MODEL_DIR": "",
        "DETOX_MODEL_MAP": ";".join(f"{model}={folder}" for model, folder in mapping.items()),
        "DETOX_WARMUP": "1",
    }, launcher=True)
    yield url
    stop_app(proc)


def sidebar_text(page) -> str:
    return page.locator(SIDEBAR).inner_text()


def auto_reruns(page) -> list[str]:
    """Record the fragment reruns this page's browser asks for (Streamlit's BackMsg)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent: list[str] = []

    def frame(payload) -> None:
        if isinstance(payload, str):
            return
        msg = BackMsg()
        try:
            msg.ParseFromString(payload)
        except Exception:  # noqa: BLE001 - not a BackMsg
            return
        if msg.WhichOneof("type") == "rerun_script" and msg.rerun_script.fragment_id:
            sent.append(msg.rerun_script.fragment_id)

    page.on("websocket", lambda ws: ws.on("framesent", frame))
    return sent


def test_the_launcher_warms_the_models_and_live_scoring_scores_meanwhile_and_after(launched, browser):
    url = launched
    pages = {}
    for width in (1400, 800):
        ctx = browser.new_context(viewport={"width": width, "height": 1000})
        pages[width] = ctx.new_page()
    reruns = auto_reruns(pages[1400])
    for width, page in pages.items():
        page.goto(f"{url}/live_scoring")
        page.get_by_role("textbox", name="Toxic sentence").wait_for(timeout=120_000)
        page.wait_for_function("s => /Warming models|Models warm/.test(document.querySelector(s).innerText)",
                               arg=SIDEBAR, timeout=60_000)
        shot(page, f"warmup_sidebar_{width}", width=width)  # while warming, unless it was quicker
    seen_warming = "Warming models" in sidebar_text(pages[1400])

    # A score asked for at once: it works whether or not the models are warm yet.
    page = pages[1400]
    page.get_by_role("textbox", name="Toxic sentence").fill("ты дебил, иди отсюда")
    box = page.get_by_role("textbox", name="Candidate rewrites (one per line)")
    box.fill("ты неправ, иди отсюда")
    box.press("Control+Enter")
    page.locator('[data-testid="stMetric"]').first.wait_for(timeout=180_000)
    wait_idle(page, 120)
    no_exception(page)
    j = page.locator('[data-testid="stMetric"]').filter(has_text="J").first
    assert 0.0 <= float(j.locator('[data-testid="stMetricValue"]').inner_text()) <= 1.0

    # The line ends as "Models warm", naming the presets warmed; a failed one is a warning.
    page.wait_for_function("s => document.querySelector(s).innerText.includes('Models warm')", arg=SIDEBAR,
                           timeout=180_000)
    side = sidebar_text(page)
    warm = next(line for line in side.splitlines() if "Models warm" in line)
    assert "Embedded (offline CPU)" in warm and "RUSSE-2022 official" in warm, warm
    assert "TextDetox 2024" not in warm and "TextDetox 2025" not in warm and "MERA" not in warm
    warning = page.locator(SIDEBAR).locator('[data-testid="stAlert"]').filter(has_text="could not be warmed")
    # The line and the warning are two elements of one run: the browser draws the line first.
    warning.first.wait_for(timeout=60_000)
    wait_idle(page, 60)
    assert warning.count() == 1
    text = warning.first.inner_text()
    assert "TextDetox 2024" in text and "toxicity classifier" in text and "could not be loaded" in text
    assert not cut_off_controls(page)

    # Once warm, the line no longer refreshes: the browser asks for no fragment rerun. A refresh
    # asked for as the line turned may still come: first 1.5 s without one (a minute at most),
    # then none for 3 s.
    before, quiet_since, deadline = len(reruns), time.monotonic(), time.monotonic() + 60
    while time.monotonic() - quiet_since < 1.5:
        assert time.monotonic() < deadline, "the sidebar's warm-up line keeps refreshing after the warm-up"
        page.wait_for_timeout(100)  # Playwright hands over the frames sent meanwhile
        if len(reruns) != before:
            before, quiet_since = len(reruns), time.monotonic()
    watched = time.monotonic()
    while time.monotonic() - watched < 3.0:
        page.wait_for_timeout(100)
        assert len(reruns) == before, "the sidebar's warm-up line keeps refreshing after the warm-up"
    if seen_warming:
        assert before >= 1  # it did refresh while the models warmed

    # A warm score: the second pair is scored without waiting for anything (no notice that
    # models are still warming or to be loaded appears while it runs).
    page.evaluate(WATCH_WARMING_NOTICES_JS)
    box.fill("ты неправ, уходи")
    box.press("Control+Enter")
    page.wait_for_function("() => document.body.innerText.includes('уходи')", timeout=60_000)
    wait_idle(page, 60)
    assert page.evaluate("() => window.__warmingNotices") == 0, "the warm score waited for models"
    no_exception(page)
    for width, pg in pages.items():
        pg.reload()
        pg.get_by_role("textbox", name="Toxic sentence").wait_for(timeout=120_000)
        wait_idle(pg, 60)
        assert "Models warm" in sidebar_text(pg)
        shot(pg, f"warmup_sidebar_done_{width}", width=width)
        pg.context.close()
