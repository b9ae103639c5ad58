"""AppTests of "Suggest with the LLM" on Live scoring, against a local chat-completions
server (tests/llm/fake_llm.py): the rewrites join the typed candidates and are scored at
once, labelled; a visitor is offered it only where the organizers opted visitors in; no
endpoint is one sentence; a server that fails or is slow is one warning and the page
still scores what was typed; markup in the answer stays text."""

from __future__ import annotations

import html
import re

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.llm import access
from detox_core.llm.access import VisitorPolicy, allowance
from detox_core.llm.settings import set_server_settings
from tests.app.helpers import run
from tests.e2e.util import free_port
from tests.llm.fake_llm import MARKUP_MARK, REFUSE_MARK, SLOW_MARK, FakeLLM

LIVE = str(PROJECT_ROOT / "pages" / "live_scoring.py")
BUTTON = "Suggest with the LLM"


@pytest.fixture
def endpoint(no_endpoint, monkeypatch):
    with FakeLLM() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("DETOX_LLM_MODEL", "rewrite-model")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-live-secret")
        set_server_settings(price_in=1.0, price_out=2.0)
        yield server


@pytest.fixture
def visitor(monkeypatch):
    """A shared deployment (an organizer password) seen by a visitor who is not signed in."""
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "s3cret-organizer")
    monkeypatch.setattr(access, "_ALLOWANCE", access.VisitorAllowance())  # no other test's requests counted
    yield allowance()


def page(text: str = "ты дебил, иди отсюда", typed: str = "ты неправ, иди отсюда") -> AppTest:
    at = AppTest.from_file(LIVE, default_timeout=90)
    at.session_state["live_input"] = text
    at.session_state["live_candidates"] = typed
    return run(at)


def buttons(at: AppTest) -> dict:
    return {b.label: b for b in at.button}


def ask(at: AppTest, n: int = 3) -> AppTest:
    at.selectbox(key="live_llm_n").set_value(n)
    buttons(at)[BUTTON].click()
    return run(at)


def titles(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**Rewrite ")]


def shown(at: AppTest) -> str:
    return " ".join(str(e.value) for e in [*at.caption, *at.markdown, *at.warning, *at.error, *at.info])


def test_an_organizers_endpoint_suggests_rewrites_scored_beside_the_typed_one(trained, endpoint):
    at = ask(page(), 3)
    lines = at.session_state["live_candidates"].split("\n")
    assert lines[0] == "ты неправ, иди отсюда" and len(lines) == 4 and all("дебил" not in ln for ln in lines)
    assert len([m for m in at.metric if m.label == "J"]) == 4  # scored at once, with the typed one
    heads = titles(at)
    assert "suggested by" not in heads[0] and all("suggested by the LLM" in t for t in heads[1:])
    info = [c.value for c in at.caption if c.value.startswith("**LLM rewrites:**")]
    assert len(info) == 1 and "`textdetox-rewrite@1#" in info[0] and "RUSSE-2022 train" in info[0]
    assert "1 request" in info[0] and "\\$" in info[0]
    assert endpoint.stats.requests == 1
    run(at)  # a rerun asks nothing again
    assert endpoint.stats.requests == 1
    assert not at.warning and not at.error
    assert "sk-live-secret" not in shown(at)
    # The box holds at most 10: asking for more than there is room for asks for fewer.
    at.session_state["live_candidates"] = "\n".join(f"вариант {k}" for k in range(9))
    run(at)
    ask(at, 5)
    assert len(at.session_state["live_candidates"].split("\n")) == 10 and not at.error


def test_without_an_endpoint_one_sentence_and_no_warning(trained, no_endpoint):
    at = page()
    assert buttons(at)[BUTTON].disabled
    notes = [c.value for c in at.caption if "No LLM endpoint is set" in c.value]
    assert len(notes) == 1 and "LLM judge" in notes[0]
    assert not at.warning and not at.error and len([m for m in at.metric if m.label == "J"]) == 1


def test_a_visitor_is_not_offered_it_unless_the_organizers_opted_visitors_in(trained, endpoint, visitor):
    at = page()
    assert BUTTON not in buttons(at) and not [s for s in at.selectbox if s.key == "live_llm_n"]
    assert at.metric and endpoint.stats.requests == 0
    visitor.set_policy(VisitorPolicy(visitors=True, requests_per_hour=5, daily_requests=100, daily_usd=None))
    at = ask(page(), 2)
    assert len(at.session_state["live_candidates"].split("\n")) == 3 and endpoint.stats.requests == 1
    assert "limits the organizers set" in buttons(at)[BUTTON].help
    assert "127.0.0.1" not in shown(at) and "rewrite-model" not in shown(at)


def test_a_visitors_rewrites_count_against_the_limits_the_organizers_set(trained, endpoint, visitor):
    """The button runs before the page's body: the visitor's request is still charged (one
    an hour here), so the third click sends nothing and says why."""
    page()  # the first run reads the server's settings
    visitor.set_policy(VisitorPolicy(visitors=True, requests_per_hour=1, daily_requests=100, daily_usd=None))
    at = ask(page(), 1)
    assert endpoint.stats.requests == 1 and visitor.state()["requests_today"] == 1
    for _ in range(2):
        at.session_state["live_candidates"] = "ты неправ, иди отсюда"
        at = ask(at, 1)
    assert endpoint.stats.requests == 1
    assert at.warning and "127.0.0.1" not in shown(at)


def test_a_server_that_is_down_is_one_warning_and_the_typed_rewrite_still_scores(trained, no_endpoint, monkeypatch,
                                                                                 visitor):
    visitor.set_policy(VisitorPolicy(visitors=True, requests_per_hour=5, daily_requests=100, daily_usd=None))
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")  # nothing listens there
    monkeypatch.setenv("DETOX_LLM_MODEL", "rewrite-model")
    at = ask(page(), 3)
    assert len(at.warning) == 1 and "could not be reached" in at.warning[0].value
    assert "127.0.0.1" not in at.warning[0].value  # a visitor is not told where the endpoint is
    assert not at.error and len([m for m in at.metric if m.label == "J"]) == 1
    assert at.session_state["live_candidates"] == "ты неправ, иди отсюда"
    run(at)  # said once
    assert not at.warning


def test_a_slow_server_is_cut_off_by_the_timeout(trained, endpoint):
    set_server_settings(timeout=0.5, price_in=1.0, price_out=2.0)  # the judge's own timeout bounds the page's
    at = ask(page(f"ты дебил {SLOW_MARK}"), 2)
    assert len(at.warning) == 1 and "did not answer within 0.5 s" in at.warning[0].value
    assert len([m for m in at.metric if m.label == "J"]) == 1


def test_a_refusal_is_said_and_adds_nothing(trained, endpoint):
    at = ask(page(f"ты дебил {REFUSE_MARK}"), 3)
    assert len(at.warning) == 1 and "declined to rewrite" in at.warning[0].value
    assert at.session_state["live_candidates"] == "ты неправ, иди отсюда"


def test_markup_in_the_answer_reaches_the_page_as_text(trained, endpoint):
    """The one test of an LLM's markup on the page (the rewriter keeps it as text:
    tests/rewriters/test_llm.py; the page's escaping: tests/ui/test_render.py)."""
    at = ask(page(f"ты дебил {MARKUP_MARK}"), 3)
    assert "<script>alert(1)</script> quiet" in at.session_state["live_candidates"].split("\n")
    raw = "".join(m.value for m in at.markdown)
    assert "<script" not in raw and "<b>" not in raw  # escaped, never markup
    visible = html.unescape(re.sub(r"<[^>]+>", "", raw))
    assert "<script>alert(1)</script> quiet" in visible and "<b>bold</b> words" in visible
    assert "**stars** here" in visible  # the stars shown, not made bold
