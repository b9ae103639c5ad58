"""The server's cookie route (detox_core.ui.app.asgi): a one-time ticket sets the organizer's
sign-in cookie HttpOnly, SameSite=Strict, Secure over https; anything else sets nothing."""

from __future__ import annotations

import asyncio

import pytest
from starlette.requests import Request

from detox_core.deployment.signin_tokens import COOKIE, SignInTokens
from detox_core.ui.app import asgi


@pytest.fixture
def tokens(tmp_path, monkeypatch) -> SignInTokens:
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DETOX_SESSION_SECRET", raising=False)
    return SignInTokens()


def post(body: bytes, scheme: str = "http", headers: dict[str, str] | None = None, peer: str = "127.0.0.1"):
    chunks = [body[i:i + 64] for i in range(0, len(body), 64)] or [b""]

    async def receive():
        chunk = chunks.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    scope = {"type": "http", "method": "POST", "path": "/_detox/session", "scheme": scheme,
             "server": ("127.0.0.1", 80), "client": (peer, 50000), "query_string": b"", "root_path": "",
             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]}
    return asyncio.run(asgi.session_cookie(Request(scope, receive)))


def set_cookie(response) -> str:
    return "; ".join(v.decode() for k, v in response.raw_headers if k == b"set-cookie")


def test_a_ticket_sets_the_cookie_httponly_strict_once(tokens):
    token = tokens.issue("organizer", "pw")
    ticket = tokens.ticket("set", token, "127.0.0.1")
    response = post(ticket.encode(), headers={"Origin": "http://127.0.0.1:8501", "Host": "127.0.0.1:8501",
                                               "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 204
    cookie = set_cookie(response)
    assert f"{COOKIE}={token}" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Path=/" in cookie and f"Max-Age={tokens.lifetime_s}" in cookie and "Secure" not in cookie
    assert response.headers["cache-control"] == "no-store"
    again = post(ticket.encode())  # replayed: refused, no cookie
    assert again.status_code == 403 and not set_cookie(again)


def test_over_https_the_cookie_is_secure(tokens):
    for scheme, headers in (("https", {}), ("http", {"X-Forwarded-Proto": "https"})):
        response = post(tokens.ticket("set", "tok", "127.0.0.1").encode(), scheme, headers)
        assert response.status_code == 204 and "Secure" in set_cookie(response)


def test_signing_out_clears_the_cookie(tokens):
    response = post(tokens.ticket("clear", "", "127.0.0.1").encode())
    cookie = set_cookie(response)
    assert response.status_code == 204 and f'{COOKIE}=""' in cookie and "Max-Age=0" in cookie
    assert "HttpOnly" in cookie


@pytest.mark.parametrize("body", [b"", b"not a ticket", b"\xff\xfe" * 20, b"A" * 43, b"x" * 100_000])
def test_anything_but_a_live_ticket_sets_nothing(tokens, body):
    response = post(body)
    assert response.status_code in (403, 413) and not set_cookie(response)
    assert (response.status_code == 413) == (len(body) > asgi.MAX_BODY)


def test_the_route_and_the_cookie_follow_the_base_url_path(tokens, monkeypatch):
    from streamlit import config as st_config

    assert asgi.route_path() == "/_detox/session"
    monkeypatch.setattr(st_config, "get_option",
                        lambda name: "/team/app/" if name == "server.baseUrlPath" else None)
    assert asgi.route_path() == "/team/app/_detox/session"
    cookie = set_cookie(post(tokens.ticket("set", "tok", "127.0.0.1").encode()))
    assert "Path=/team/app/" in cookie  # not sent to the host's other apps


def test_a_ticket_from_another_site_or_address_sets_nothing(tokens):
    for headers, peer in (({"Origin": "https://evil.example", "Host": "127.0.0.1:8501"}, "127.0.0.1"),
                          ({"Sec-Fetch-Site": "cross-site"}, "127.0.0.1"),
                          ({}, "198.51.100.9"),  # sent by a script to a server of its own, which asks from there
                          ({"X-Forwarded-For": "198.51.100.9"}, "127.0.0.1")):  # through the proxy, from elsewhere
        response = post(tokens.ticket("set", "tok", "127.0.0.1").encode(), headers=headers, peer=peer)
        assert response.status_code == 403 and not set_cookie(response), (headers, peer)
    # Through the proxy from the address that signed in: set.
    ticket = tokens.ticket("set", "tok", "203.0.113.7")
    assert post(ticket.encode(), headers={"X-Forwarded-For": "203.0.113.7"}).status_code == 204


def test_tls_before_the_proxy_can_ask_for_a_secure_cookie(tokens, monkeypatch):
    monkeypatch.setenv("DETOX_SECURE_COOKIE", "1")
    assert "Secure" in set_cookie(post(tokens.ticket("set", "tok", "127.0.0.1").encode()))


def test_without_the_launcher_a_sign_in_holds_for_the_tab(monkeypatch):
    from detox_core.ui.app import auth

    monkeypatch.setattr(asgi, "_serving", False)
    assert auth.cookie_route() is None and "in this tab" in auth.signed_in_caption()
    monkeypatch.setattr(asgi, "_serving", True)
    assert auth.cookie_route() == "/_detox/session" and "12 hours" in auth.signed_in_caption()


@pytest.mark.parametrize("route", ["session_cookie", "beat"])
def test_a_client_that_hangs_up_midway_gets_a_short_answer_and_no_traceback(tokens, route, caplog):
    """A cut-off beat used to log a 3.7 KB traceback (42 MB of logs in 20 s from one address)."""
    async def receive():
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "POST", "path": f"/_detox/{route}", "scheme": "http",
             "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 50000), "query_string": b"", "root_path": "",
             "headers": []}
    with caplog.at_level("DEBUG"):
        response = asyncio.run(getattr(asgi, route)(Request(scope, receive)))
    assert response.status_code == 400
    assert not [r for r in caplog.records if r.exc_info]
