"""An organizer stays signed in across a reload and a new tab (a signed, expiring cookie
that the server sets HttpOnly: no script of the page reads it), until signing out, which
also stops a copy of the cookie from working. Started with a plain ``streamlit run``
(no cookie route), a sign-in holds for its tab and no cookie is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_roles import nav, open_sidebar
from tests.e2e.util import CHROMIUM, ORGANIZER_PASSWORD, SHOTS, no_exception, start_app, stop_app, wait_idle

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def deployed(data_root, db_url, tmp_path_factory):
    # Its own data folder for the sessions' secret would change nothing here; the server's
    # secret lives in the data folder, shared by its processes.
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url,
                           "DETOX_ORGANIZER_PASSWORD": ORGANIZER_PASSWORD}, launcher=True)
    yield url
    stop_app(proc)


@pytest.fixture(scope="module")
def plain(data_root, db_url):
    proc, url = start_app({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url,
                           "DETOX_ORGANIZER_PASSWORD": ORGANIZER_PASSWORD})
    yield url
    stop_app(proc)


def open_corpus(page, url: str) -> None:
    page.goto(url + "/corpus")
    page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=120_000)
    wait_idle(page)
    open_sidebar(page)


def sign_in_from_the_sidebar(page, url: str, caption: str = "Signed in as organizer") -> None:
    """Open Corpus on ``url``, send the organizer password from the sidebar and wait for ``caption``."""
    open_corpus(page, url)
    page.get_by_text("Organizer sign-in").click()
    page.get_by_label("Organizer password", exact=True).fill(ORGANIZER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text(caption).wait_for(timeout=30_000)
    wait_idle(page)
    assert signed_in(page)
    no_exception(page)


def signed_in(page) -> bool:
    return "Annotation projects" in " ".join(nav(page))


@pytest.mark.parametrize("width", [1400, 800])
def test_the_sign_in_survives_a_reload_and_a_new_tab_until_sign_out(deployed, browser, width):
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    open_corpus(page, deployed)
    assert not signed_in(page)
    page.get_by_text("Organizer sign-in").click()
    page.get_by_label("Organizer password", exact=True).fill(ORGANIZER_PASSWORD)
    with page.expect_response(lambda r: r.url.endswith("/_detox/session"), timeout=60_000) as answer:
        page.get_by_role("button", name="Sign in").click()
    assert answer.value.status == 204
    page.get_by_text("Signed in as organizer").wait_for(timeout=30_000)
    wait_idle(page)
    cookie = next((c for c in context.cookies() if c["name"] == "detox_signin"), None)
    assert cookie is not None and cookie["sameSite"] == "Strict" and ORGANIZER_PASSWORD not in cookie["value"]
    assert cookie["httpOnly"] and not cookie["secure"]  # served over http here
    assert "detox_signin" not in page.evaluate("document.cookie")  # no script of the page reads it
    # A reload, and a new tab of the same browser: still signed in.
    page.reload()
    page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    open_sidebar(page)
    page.get_by_text("Signed in as organizer").wait_for(timeout=30_000)
    assert signed_in(page)
    no_exception(page)
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"signed_in_after_reload_{width}.png"))
    tab = context.new_page()
    open_corpus(tab, deployed)
    tab.get_by_text("Signed in as organizer").wait_for(timeout=30_000)
    tab.goto(deployed + "/annotation_projects")
    tab.get_by_role("heading", name="Annotation projects", exact=True).wait_for(timeout=60_000)
    wait_idle(tab)
    assert tab.get_by_label("Organizer password", exact=True).count() == 0
    tab.close()
    # Sign out: the cookie is cleared, a reload is signed out, and a copy of the old cookie
    # (taken before signing out) signs nobody in.
    with page.expect_response(lambda r: r.url.endswith("/_detox/session"), timeout=60_000) as answer:
        page.get_by_role("button", name="Sign out").click()
    assert answer.value.status == 204
    wait_idle(page)
    assert not any(c["name"] == "detox_signin" and c["value"] for c in context.cookies())
    page.reload()
    page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    open_sidebar(page)
    assert not signed_in(page)
    context.close()
    thief = browser.new_context(viewport={"width": width, "height": 1000})
    thief.add_cookies([{k: cookie[k] for k in ("name", "value", "domain", "path")}])
    stolen = thief.new_page()
    open_corpus(stolen, deployed)
    assert not signed_in(stolen) and "Signed in as organizer" not in stolen.inner_text("body")
    thief.close()


def test_without_cookies_the_sign_in_still_works_for_the_tab(deployed, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.route("**/_detox/session", lambda route: route.abort())  # the cookie never arrives
    page = context.new_page()
    sign_in_from_the_sidebar(page, deployed)
    context.close()


@pytest.mark.parametrize("width", [1400, 800])
def test_a_plain_streamlit_run_keeps_the_sign_in_to_its_tab(plain, browser, width):
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    sign_in_from_the_sidebar(page, plain, "Signed in as organizer in this tab")
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"signed_in_tab_only_{width}.png"))
    assert not any(c["name"] == "detox_signin" for c in context.cookies())
    page.reload()
    page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    open_sidebar(page)
    assert not signed_in(page)
    context.close()
