"""The organizer's Annotation projects page in the browser: who is kept out and why, the
annotators in people's words, and the export buttons whole at 1400 and 800 px."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from detox_core.annotation.controls import Control
from detox_core.annotation.store import AnnotationStore, Settings
from tests.e2e.util import CHROMIUM, cut_off_controls, no_exception, shot, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


def _project(store: AnnotationStore, name: str) -> None:
    pairs = pd.DataFrame({"system": "s", "idx": range(8), "input": [f"ты дурак {i}" for i in range(8)],
                          "output": [f"ты не прав {i}" for i in range(8)]})
    exam = [Control("toxicity", f"экзамен {i}", float(i % 2)) for i in range(10)]
    p = store.create_project(name, ["toxicity"], pairs, exam=exam,
                             settings=Settings(training=False, overlap=1, page_size=4, controls_per_page=0,
                                               min_page_seconds=0))
    golden = store.items(p.id, kind="exam").set_index("item")["golden"]
    for who, right in (("Anna", 10), ("Boris", 10), ("Nina", 6)):
        ann = store.join(p.access_code, who)
        page = store.exam(ann.id)
        store.submit_exam(ann.id, {i.id: golden[i.id] if k < right else 1 - golden[i.id]
                                   for k, i in enumerate(page.items)})
    for who in ("Anna", "Boris"):
        ann_id = int(store.annotators(p.id).set_index("name").loc[who, "id"])
        page = store.next_page(ann_id, "toxicity")
        store.submit_page(ann_id, page.assignment_id, {i.id: float(k % 2) for k, i in enumerate(page.items)})


@pytest.mark.parametrize("width", [1400, 800])
def test_organizer_sees_who_is_kept_out_and_the_export_buttons_whole(server, browser, db_url, width):
    name = f"organizer-{width}"
    _project(AnnotationStore(db_url), name)
    ctx = browser.new_context(viewport={"width": width, "height": 1100})
    page = ctx.new_page()
    try:
        page.goto(server + "/annotation_projects")
        wait_idle(page, 120)
        page.get_by_role("combobox", name="Project").click()
        page.get_by_role("option", name=name).click()
        wait_idle(page, 120)
        no_exception(page)
        body = page.inner_text("body")
        assert "Not admitted, banned or refused · 1" in body
        assert "α cannot be computed: each item has one answer" in body and "not enough answers yet" not in body
        assert "Let back in" in body
        assert not cut_off_controls(page)
        shot(page, f"annotation_progress_{width}", 2400, width=width)
        page.set_viewport_size({"width": width, "height": 1100})
        # A new password for an annotator: shown once, and the form says it signs their tabs out.
        page.get_by_text("Set an annotator's password").click()
        wait_idle(page, 120)
        # The run may start late on a busy machine, and a click that lands while the form is being
        # drawn again is lost: press again (the newest password is the one shown) until it shows.
        for attempt in range(3):
            page.get_by_role("button", name="Set a new password").click()
            try:
                page.get_by_text("New password of Anna").wait_for(timeout=60_000)
                break
            except PlaywrightTimeout:
                assert attempt < 2, "no new password was shown after three presses"
                wait_idle(page, 120)
        wait_idle(page, 120)
        no_exception(page)
        body = page.inner_text("body")
        assert "New password of Anna" in body and "is signed out" in body
        assert not cut_off_controls(page)
        page.get_by_text("New password of Anna").scroll_into_view_if_needed()
        shot(page, f"annotation_new_password_{width}", 1100, width=width)
        page.get_by_role("tab", name="Results").click()
        wait_idle(page, 120)
        no_exception(page)
        export = page.get_by_role("button", name="Export (humaneval_textdetox_ru schema, CSV)")
        assert export.is_visible()
        problems = cut_off_controls(page)
        assert not problems, problems  # the export buttons' labels are whole
        shot(page, f"annotation_results_{width}", 1600, width=width)
    finally:
        ctx.close()
