"""Roles of a shared-task deployment, in the browser: visitors see the public pages,
organizers sign in and see everything."""

from __future__ import annotations

import re

import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.util import CHROMIUM, ORGANIZER_PASSWORD, SHOTS, no_exception, start_app, stop_app, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]

PUBLIC = ["Corpus", "Live scoring", "Leaderboard", "Annotate"]
ORGANIZER_ONLY = ["Submissions", "Compare systems", "Human vs automatic", "Annotation projects"]


@pytest.fixture(scope="module")
def deployed(data_root, db_url):
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url,
                           "DETOX_ORGANIZER_PASSWORD": ORGANIZER_PASSWORD})
    yield url
    stop_app(proc)


def open_sidebar(page) -> None:
    """Open the sidebar where a narrow screen starts with it collapsed."""
    button = page.locator('[data-testid="stExpandSidebarButton"]')
    if button.count() and button.is_visible():
        button.click()
        wait_idle(page)


def nav(page) -> list[str]:
    return [t.strip() for t in page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()]


@pytest.mark.parametrize("width", [1400, 800])
def test_visitor_sees_public_pages_and_organizer_signs_in(deployed, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.goto(deployed + "/")
    page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=120_000)
    wait_idle(page)
    no_exception(page)
    open_sidebar(page)
    shown = " ".join(nav(page))
    assert all(p in shown for p in PUBLIC) and not any(p in shown for p in ORGANIZER_ONLY)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"roles_visitor_{width}.png"))
    # An organizer page's address does not open it for a visitor: it refuses.
    page.goto(deployed + "/submissions")
    page.get_by_text("This page is for the organizers of this task").wait_for(timeout=60_000)
    assert page.get_by_role("button", name="Score the upload").count() == 0
    page.goto(deployed + "/annotation_projects")
    page.get_by_label("Organizer password", exact=True).wait_for(timeout=60_000)
    assert page.get_by_role("tab", name="Progress").count() == 0
    # Sign in from the sidebar: the organizer's pages appear.
    page.goto(deployed + "/")
    page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    open_sidebar(page)
    page.get_by_text("Organizer sign-in").click()
    page.get_by_label("Organizer password", exact=True).fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("Wrong password.").wait_for(timeout=30_000)
    wait_idle(page)
    # One wrong password: the next try waits a second; a try sooner is told so and sent again.
    signed_in, too_soon = page.get_by_text("Signed in as organizer"), page.get_by_text(re.compile(r"Wait \d+ s before the next try"))
    deadline = time.monotonic() + 60
    while True:
        page.get_by_label("Organizer password", exact=True).fill(ORGANIZER_PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        expect(signed_in.or_(too_soon).first).to_be_visible(timeout=30_000)
        wait_idle(page)
        if signed_in.count():
            break
        assert time.monotonic() < deadline, "the organizer password is still refused a minute after a wrong one"
    shown = " ".join(nav(page))
    assert all(p in shown for p in PUBLIC + ORGANIZER_ONLY)
    page.locator('[data-testid="stSidebarNav"] a', has_text="Annotation projects").click()
    page.get_by_role("heading", name="Annotation projects", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    no_exception(page)
    assert page.get_by_role("tab", name="Progress").count() == 1 or "No project yet" in page.inner_text("body")
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"roles_organizer_{width}.png"))
    page.close()
