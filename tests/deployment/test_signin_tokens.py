"""Sign-in tokens: valid, expired, tampered, under another key or password, revoked."""

from __future__ import annotations

import os
import stat

import pytest

from detox_core.deployment.signin_tokens import SignInTokens


@pytest.fixture
def tokens(tmp_path, monkeypatch) -> SignInTokens:
    monkeypatch.delenv("DETOX_SESSION_SECRET", raising=False)
    return SignInTokens(tmp_path / "sessions", lifetime_s=3600)


def test_a_token_signs_in_its_role_until_it_expires(tokens):
    token = tokens.issue("organizer", "pw", now=1_000_000)
    assert tokens.verify(token, "pw", now=1_000_100) == "organizer"
    assert tokens.verify(token, "pw", now=1_000_000 + 3600) is None  # expired
    assert "pw" not in token and "organizer" not in token.split(".")[1]


def test_a_tampered_or_foreign_token_signs_nobody_in(tokens, tmp_path):
    token = tokens.issue("organizer", "pw")
    payload, mac = token.split(".")
    forged = SignInTokens(tmp_path / "other").issue("organizer", "pw")  # another server's secret
    assert tokens.verify(forged, "pw") is None
    assert tokens.verify(payload + "." + mac[:-1] + ("0" if mac[-1] != "0" else "1"), "pw") is None
    assert tokens.verify(payload[:-2] + "xx." + mac, "pw") is None
    for junk in (None, "", "a.b.c", "not a token", "x" * 5000, "e30." + "0" * 64):
        assert tokens.verify(junk, "pw") is None


def test_a_changed_password_ends_every_session(tokens):
    token = tokens.issue("organizer", "old")
    assert tokens.verify(token, "old") == "organizer"
    assert tokens.verify(token, "new") is None


def test_signing_out_revokes_the_token_in_every_process(tokens, tmp_path):
    token = tokens.issue("organizer", "pw")
    other_process = SignInTokens(tmp_path / "sessions")  # the same data folder, a fresh object
    assert other_process.verify(token, "pw") == "organizer"
    assert tokens.revoke(token, "pw")
    assert tokens.verify(token, "pw") is None and other_process.verify(token, "pw") is None
    assert tokens.verify(tokens.issue("organizer", "pw"), "pw") == "organizer"  # a new sign-in works
    assert not tokens.revoke("forged.token", "pw")


def test_the_server_secret_is_shared_and_private(tokens, tmp_path):
    token = tokens.issue("organizer", "pw")
    secret = tmp_path / "sessions" / "secret"
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600 and len(secret.read_bytes()) == 32
    assert SignInTokens(tmp_path / "sessions").verify(token, "pw") == "organizer"


def test_the_secret_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_SESSION_SECRET", "shared by every host")
    token = SignInTokens(tmp_path / "a").issue("organizer", "pw")
    assert SignInTokens(tmp_path / "b").verify(token, "pw") == "organizer"
    assert not (tmp_path / "a" / "secret").exists()


# ---------------------------------------------------------------------- cookie tickets

def test_a_ticket_is_redeemed_once_for_its_action(tokens, tmp_path):
    token = tokens.issue("organizer", "pw")
    ticket = tokens.ticket("set", token, "203.0.113.7")
    assert token not in ticket and len(ticket) >= 32
    # The folder names tickets by their hash: a listing gives nothing to redeem.
    assert not any(ticket in p.name or token in p.name for p in (tmp_path / "sessions" / "tickets").iterdir())
    # Another process of the deployment (same folder) redeems it; then nobody can.
    other = SignInTokens(tmp_path / "sessions")
    assert other.redeem(ticket, "203.0.113.7") == ("set", token)
    assert tokens.redeem(ticket, "203.0.113.7") is None and other.redeem(ticket, "203.0.113.7") is None
    assert tokens.redeem(tokens.ticket("clear")) == ("clear", "")


def test_a_ticket_sent_from_another_address_redeems_nothing_and_is_spent(tokens):
    ticket = tokens.ticket("set", "the token", "203.0.113.7")
    assert tokens.redeem(ticket, "198.51.100.9") is None  # a script sent it to its own server
    assert tokens.redeem(ticket, "203.0.113.7") is None


def test_an_expired_forged_or_foreign_ticket_redeems_nothing(tokens, tmp_path):
    ticket = tokens.ticket("set", "t", now=1_000_000)
    assert tokens.redeem(ticket, now=1_000_000 + 61) is None
    real = tokens.ticket("set", "t")
    assert tokens.redeem(real[:-1] + ("A" if real[-1] != "A" else "B")) is None
    assert SignInTokens(tmp_path / "elsewhere").redeem(tokens.ticket("set", "t")) is None
    for junk in (None, "", "../secret", "x" * 300, "a b", "é" * 40, 42):
        assert tokens.redeem(junk) is None
    with pytest.raises(ValueError):
        tokens.ticket("steal", "t")


def test_a_ticket_raced_by_many_threads_is_redeemed_once(tokens, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    ticket = tokens.ticket("set", "the token")
    readers = [SignInTokens(tmp_path / "sessions") for _ in range(16)]
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(lambda r: r.redeem(ticket, ""), readers))
    assert got.count(("set", "the token")) == 1 and got.count(None) == 15


def test_tickets_never_redeemed_are_pruned(tokens, tmp_path):
    folder = tmp_path / "sessions" / "tickets"
    tokens.ticket("set", "a", now=1_000_000)
    old = next(folder.iterdir())
    os.utime(old, (1_000_000, 1_000_000))
    tokens.ticket("set", "b")
    assert not old.exists() and len(list(folder.iterdir())) == 1
    assert stat.S_IMODE(next(folder.iterdir()).stat().st_mode) == 0o600
