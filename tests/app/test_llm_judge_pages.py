"""AppTests of the llm-judge preset in the pages: without an endpoint the picker says what
to set and nothing is scored; with one (a local chat-completions server) Live scoring
shows the judge's scores and what the requests cost."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.llm.settings import set_server_settings
from tests.app.helpers import run
from tests.llm.fake_llm import FakeLLM

LIVE = str(PROJECT_ROOT / "pages" / "live_scoring.py")


def live(at: AppTest) -> AppTest:
    at.session_state["live_input"] = "ты дебил, иди отсюда"
    at.session_state["live_candidates"] = "ты неправ, иди отсюда"
    return at


def test_without_an_endpoint_the_picker_says_what_to_set_and_nothing_is_scored(trained, no_endpoint):
    at = run(live(AppTest.from_file(LIVE, default_timeout=60)))
    at.segmented_control(key="preset").set_value("LLM judge")
    run(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "no endpoint" in warnings and "OPENAI\\_BASE\\_URL" in warnings and "secrets.toml" in warnings
    assert not at.error  # said once, by the picker, not again as a scoring error
    assert not at.metric  # never a made-up score


def test_live_scoring_with_a_server_shows_the_judges_scores_and_the_cost(trained, no_endpoint, monkeypatch):
    with FakeLLM() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("DETOX_LLM_MODEL", "judge-model")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-page-secret")
        set_server_settings(price_in=1.0, price_out=2.0)
        at = run(live(AppTest.from_file(LIVE, default_timeout=60)))
        at.segmented_control(key="preset").set_value("LLM judge")
        run(at)
        assert not at.warning or all("no endpoint" not in w.value for w in at.warning)
        values = {m.label: m.value for m in at.metric}
        assert values["STA"] in {"1.00", "0.50", "0.00"} and values["SIM"] in {"1.00", "0.00"}
        usage = " ".join(c.value for c in at.caption if "LLM judge" in c.value)
        assert "answered now" in usage and "$" in usage
        asked = server.stats.requests
        # One rewrite: toxicity and meaning of the pair, fluency of the input and of the rewrite; the
        # input is not judged against itself (a comparative STA needs no "P(neutral) of the input").
        assert asked == 4
        assert not any("P(neutral) of the input" in c.value for c in at.caption)
        run(at)  # a rerun is served by the cache
        assert server.stats.requests == asked
        page = " ".join(str(e.value) for e in [*at.caption, *at.markdown, *at.warning, *at.error])
        assert "sk-page-secret" not in page


def test_organizers_set_the_endpoint_and_the_key_is_never_shown(tiny_data, no_endpoint):
    at = run(AppTest.from_file(str(PROJECT_ROOT / "tests" / "app" / "llm_judge_harness.py"), default_timeout=60))
    assert any("Not configured" in c.value for c in at.sidebar.caption)
    at.sidebar.text_input(key="llmj_base_url").input("http://user:pw@127.0.0.1:9/v1")
    at.sidebar.text_input(key="llmj_model").input("judge-model")
    at.sidebar.text_input(key="llmj_key").input("sk-form-secret")
    at.sidebar.number_input(key="llmj_price_in").set_value(0.5)
    at.sidebar.number_input(key="llmj_price_out").set_value(1.5)
    at.sidebar.button[0].click()  # the form's submit button
    run(at)
    shown = " ".join(c.value for c in at.sidebar.caption)
    assert "127.0.0.1" in shown and "key set" in shown and "judge-model" in shown and "$0.5 / $1.5" in shown
    assert "sk-form-secret" not in shown and "pw@" not in shown  # neither the key nor the URL's credentials
    # Applying again with the key field empty keeps the key.
    at.sidebar.button[0].click()
    run(at)
    from detox_core.llm.settings import resolve

    assert resolve().endpoint.key == "sk-form-secret"


def test_submissions_scored_by_the_judge_show_what_the_run_cost(tiny_data, no_endpoint, monkeypatch):
    with FakeLLM() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("DETOX_LLM_MODEL", "judge-model")
        set_server_settings(price_in=1.0, price_out=2.0)
        at = run(AppTest.from_file(str(PROJECT_ROOT / "pages" / "submissions.py"), default_timeout=60))
        at.segmented_control(key="sub_preset").set_value("LLM judge")
        run(at)
        at.selectbox(key="sub_shipped").set_value("copy")
        run(at)
        next(b for b in at.button if b.label == "Score this output").click()
        run(at)
        assert at.success and "scored and stored" in at.success[0].value
        usage = [c.value for c in at.caption if c.value.startswith("LLM judge:")]
        assert len(usage) == 1 and "answered now" in usage[0] and "$" in usage[0]
        assert server.stats.requests > 0


@pytest.fixture
def visitor(monkeypatch):
    """A shared deployment (an organizer password) seen by a visitor who is not signed in."""
    from detox_core.db import default_url, make_engine
    from detox_core.llm import access
    from detox_core.llm.access import VisitorPolicy, allowance, share

    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "s3cret-organizer")
    before, policy = allowance(), allowance().policy
    # The visitors' counts kept in this test's own database: the app shares the allowance once
    # per process (a cached resource), so without this an earlier test's requests would count here.
    monkeypatch.setattr(access, "_ALLOWANCE", before)
    share(make_engine(default_url())).set_policy(VisitorPolicy())
    yield allowance()
    before.set_policy(policy)


def test_a_visitor_is_not_offered_the_paid_judge_and_a_link_naming_it_sends_nothing(
        trained, no_endpoint, visitor, monkeypatch):
    with FakeLLM() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("DETOX_LLM_MODEL", "judge-model")
        at = live(AppTest.from_file(LIVE, default_timeout=60))
        at.query_params["preset"] = "LLM judge"  # a shared link
        run(at)
        picker = at.segmented_control(key="preset")
        assert "LLM judge" not in picker.options and picker.value != "LLM judge"
        assert any("for the organizers of this server" in c.value for c in at.caption)
        assert at.metric  # scored with what visitors may run
        assert server.stats.requests == 0
        # The sidebar tells a visitor whether they may run it, not where it runs.
        side = run(AppTest.from_file(str(PROJECT_ROOT / "tests" / "app" / "llm_judge_harness.py"), default_timeout=60))
        shown = " ".join(c.value for c in side.sidebar.caption)
        assert "For the organizers of this server" in shown
        assert "127.0.0.1" not in shown and "judge-model" not in shown and not side.sidebar.text_input


def test_visitors_let_in_by_the_organizers_are_held_to_their_limits(trained, no_endpoint, visitor, monkeypatch):
    from detox_core.llm.access import VisitorPolicy

    visitor.set_policy(VisitorPolicy(visitors=True, requests_per_hour=9, daily_requests=100, daily_usd=None))
    with FakeLLM() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("DETOX_LLM_MODEL", "judge-model")
        at = run(live(AppTest.from_file(LIVE, default_timeout=60)))
        at.segmented_control(key="preset").set_value("LLM judge")
        run(at)
        assert {m.label for m in at.metric} >= {"STA", "SIM"} and server.stats.requests == 4
        # A run reserves two requests a question (an unreadable answer is asked again) and got
        # back the four it did not send. Another rewrite needs 3 more questions: up to 6
        # requests, and 4 + 6 > 9 an hour. The page says what is left before the run.
        at.session_state["live_candidates"] = "ты не прав"
        run(at)
        shown = " ".join(c.value for c in at.caption)
        assert "9 requests an hour from your address (5 left)" in shown and "100 a day for all visitors (96 left)" in shown
        errors = " ".join(e.value for e in [*at.error, *at.warning])
        assert "visitors may send 9 an hour from one address" in errors
        assert server.stats.requests == 4  # refused before anything was sent


def test_changing_only_the_base_url_does_not_send_the_key_to_the_new_host(tiny_data, no_endpoint):
    from detox_core.llm.settings import resolve

    harness = str(PROJECT_ROOT / "tests" / "app" / "llm_judge_harness.py")
    at = run(AppTest.from_file(harness, default_timeout=60))
    at.sidebar.text_input(key="llmj_base_url").input("https://judge.example.org/v1")
    at.sidebar.text_input(key="llmj_model").input("judge-model")
    at.sidebar.text_input(key="llmj_key").input("sk-form-secret")
    at.sidebar.button[0].click()
    run(at)
    assert resolve().endpoint.key == "sk-form-secret"
    at.sidebar.text_input(key="llmj_base_url").input("https://judge.example.org/v2")  # same host: kept
    at.sidebar.button[0].click()
    run(at)
    assert resolve().endpoint.key == "sk-form-secret"
    at.sidebar.text_input(key="llmj_base_url").input("https://collector.example.net/v1")  # another host
    at.sidebar.button[0].click()
    run(at)
    assert resolve().endpoint.key == ""
    assert any("not kept for the new one" in w.value for w in at.sidebar.warning)


def test_the_environment_key_stays_with_its_own_host(no_endpoint, monkeypatch):
    from detox_core.llm.settings import resolve

    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("DETOX_LLM_MODEL", "m")
    assert resolve().endpoint.key == "sk-env"
    set_server_settings(base_url="https://elsewhere.example.net/v1")
    assert resolve().endpoint.key == ""
    set_server_settings(base_url="https://api.openai.com/v2")
    assert resolve().endpoint.key == "sk-env"
    # The CLI's explicit base URL is its user's choice.
    set_server_settings()
    assert resolve(base_url="http://127.0.0.1:8000/v1").endpoint.key == "sk-env"
