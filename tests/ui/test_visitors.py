"""Sessions per client address: one client cannot fill the server with tabs."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.ui.app.visitors import IDLE_S, SessionCounter


def test_an_address_holds_at_most_its_sessions_and_others_are_not_affected():
    now = [0.0]
    closed: set[str] = set()
    c = SessionCounter(3, is_active=lambda sid: sid not in closed, clock=lambda: now[0])
    assert all(c.admit("203.0.113.7", f"s{k}") for k in range(3))
    assert not c.admit("203.0.113.7", "s3")  # the fourth tab of the same address
    assert c.admit("198.51.100.2", "other")  # another visitor
    assert c.admit("203.0.113.7", "s1")  # an admitted session goes on running
    closed.add("s0")  # a tab closed: its place is free
    assert c.admit("203.0.113.7", "s3")
    now[0] += IDLE_S + 1  # idle sessions stop counting
    assert all(c.admit("203.0.113.7", f"t{k}") for k in range(3))
    assert c.live("203.0.113.7") == 3


def test_two_hundred_sessions_of_one_client_keep_forty(monkeypatch):
    c = SessionCounter(40)
    admitted = sum(c.admit("203.0.113.7", f"s{k}") for k in range(200))
    assert admitted == 40


def test_the_app_answers_an_address_over_its_limit_with_a_message_and_no_page(tiny_data, monkeypatch):
    import detox_core.ui.app.auth as auth
    import detox_core.ui.app.visitors as visitors

    counter = SessionCounter(2)
    counter.admit("203.0.113.7", "tab-1")
    counter.admit("203.0.113.7", "tab-2")
    monkeypatch.setattr(visitors, "session_counter", lambda: counter)
    monkeypatch.setattr(auth, "client_id", lambda: "203.0.113.7")
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert "Too many open tabs from your address" in at.error[0].value
    assert not at.title and not at.dataframe  # no page work done
    monkeypatch.setattr(auth, "client_id", lambda: "198.51.100.2")
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert at.title[0].value == "Corpus"


def test_the_limit_is_a_setting(monkeypatch):
    import pytest

    from detox_core import config
    from detox_core.errors import DetoxInputError

    monkeypatch.setenv("DETOX_MAX_SESSIONS_PER_ADDRESS", "5")
    assert config.max_sessions_per_address() == 5
    monkeypatch.setenv("DETOX_MAX_SESSIONS_PER_ADDRESS", "many")
    with pytest.raises(DetoxInputError, match="DETOX_MAX_SESSIONS_PER_ADDRESS"):
        config.max_sessions_per_address()
    monkeypatch.delenv("DETOX_MAX_SESSIONS_PER_ADDRESS")
    assert config.max_sessions_per_address() == 40


def test_many_addresses_together_stop_at_the_process_limit_but_an_organizer_gets_in():
    closed: set[str] = set()
    c = SessionCounter(40, is_active=lambda sid: sid not in closed, max_total=5)
    admitted = [c.admit(f"198.51.100.{k}", f"s{k}") for k in range(8)]
    assert admitted == [True] * 5 + [False] * 3 and c.total() == 5
    assert c.admit("198.51.100.1", "s1")  # an admitted session goes on
    assert c.admit("203.0.113.9", "organizer", vip=True) and c.total() == 6
    closed.update({"s0", "s2"})  # two tabs closed: two places
    assert c.admit("198.51.100.6", "s6") and not c.admit("198.51.100.7", "s7")
    assert SessionCounter(40).admit("x", "y")  # 0: no limit
    # A session admitted long ago (idle, reconnected) is never turned away.
    assert c.admit("198.51.100.8", "s-old", admitted=True)


def test_the_app_says_the_server_is_full_and_does_no_page_work(tiny_data, monkeypatch):
    import detox_core.ui.app.auth as auth
    import detox_core.ui.app.visitors as visitors

    counter = SessionCounter(40, max_total=2)
    counter.admit("198.51.100.1", "tab-1")
    counter.admit("198.51.100.2", "tab-2")
    monkeypatch.setattr(visitors, "session_counter", lambda: counter)
    monkeypatch.setattr(auth, "client_id", lambda: "203.0.113.7")
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "a password")
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert "This server is full for now" in at.error[0].value and "at most 2 open sessions" in at.error[0].value
    assert not at.title and not at.dataframe
    # The message has the organizer's sign-in form: the right password gets in.
    at.text_input(key="full_server_login_password").input("a password")
    at.button[0].click().run()
    assert not at.exception and at.title[0].value == "Corpus"
    # Admitted: it stays in, whatever the counts.
    at.run()
    assert at.title[0].value == "Corpus"


def test_the_process_limit_is_a_setting(monkeypatch):
    import pytest

    from detox_core import config
    from detox_core.errors import DetoxInputError

    monkeypatch.delenv("DETOX_MAX_SESSIONS", raising=False)
    assert config.max_sessions() == 100
    monkeypatch.setenv("DETOX_MAX_SESSIONS", "0")
    assert config.max_sessions() == 0
    monkeypatch.setenv("DETOX_MAX_SESSIONS", "-3")
    with pytest.raises(DetoxInputError, match="DETOX_MAX_SESSIONS"):
        config.max_sessions()
