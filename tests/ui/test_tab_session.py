"""An annotator's tab token (detox_core.ui.widgets.tab_session): only the server makes one,
it names one annotator, and Leave ends it in every process."""

from __future__ import annotations

from detox_core.sessions import SessionTokens
from detox_core.ui.widgets import tab_session


def test_a_token_names_its_annotator_and_nothing_else_passes(tmp_path):
    tokens = SessionTokens(tmp_path)
    token = tab_session.issue(tokens, 42)
    assert tab_session.annotator_of(tokens, token) == 42
    payload, mac = token.split(".")
    assert tab_session.annotator_of(tokens, f"{payload}.{'0' * 64}") is None  # tampered
    assert tab_session.annotator_of(tokens, "42") is None and tab_session.annotator_of(tokens, None) is None
    assert tab_session.annotator_of(tokens, {"token": token}) is None  # not a string from the browser
    # An organizer's token is not an annotator's, and an annotator's is not an organizer's.
    organizer = tokens.issue("organizer", "the-organizer-password")
    assert tab_session.annotator_of(tokens, organizer) is None
    assert tokens.verify(token, "the-organizer-password") is None
    # Another server (another secret) does not accept it.
    assert tab_session.annotator_of(SessionTokens(tmp_path / "other"), token) is None


def test_leave_revokes_the_token_for_every_process(tmp_path):
    first, second = SessionTokens(tmp_path), SessionTokens(tmp_path)  # two processes, one data folder
    token = tab_session.issue(first, 7)
    assert tab_session.annotator_of(second, token) == 7
    tab_session.revoke(first, token)
    assert tab_session.annotator_of(second, token) is None
    tab_session.revoke(first, None)  # nothing to revoke: no error


def test_an_expired_token_signs_nobody_in(tmp_path):
    tokens = SessionTokens(tmp_path, lifetime_s=60)
    old = tokens.issue("annotator:5", tab_session._KEY, now=0)
    assert tab_session.annotator_of(tokens, old) is None
