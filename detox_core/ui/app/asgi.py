"""The app as an ASGI application: Streamlit's server plus the route that sets the
organizer's sign-in cookie, and the route where pages beat.

A Streamlit page can only reach the browser through its scripts, and a cookie a script
writes is a cookie any script of the page can read. So the launcher
(:mod:`detox_core.ui.app.serve`: ``make run``, ``python -m detox_core serve``, every process of
a deployment) serves ``app.py`` through this module's :data:`app`, a ``st.App`` with one
route of its own, :data:`SESSION_ROUTE` (``POST``, under ``server.baseUrlPath``):

- the page posts a one-time ticket (:meth:`detox_core.deployment.signin_tokens.SignInTokens.ticket`),
  which the server redeems once, within a minute, for a request of the page's own origin
  (``Origin``, ``Sec-Fetch-Site``) from the client address that signed in (the same
  address the sign-in throttle sees, :func:`detox_core.deployment.addresses.client_address`): a ticket
  that a script sends elsewhere redeems nothing there;
- the answer sets the cookie ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no
  other site's request carries it), ``Secure`` when the page is served over https (the
  connection's scheme, ``X-Forwarded-Proto`` from the proxy in front, or
  ``DETOX_SECURE_COOKIE=1`` where TLS ends before that proxy), with the app's path
  (``server.baseUrlPath``, else ``/``), for the token's lifetime; or clears it on signing
  out.

Beside it, ``_detox/beat`` (``POST``): each page posts its session's beat token there every
20 seconds, and a sweeper task of the server closes the WebSockets of sessions whose pages
stopped beating, so that idle sockets do not hold the places of people
(:mod:`detox_core.deployment.presence`).

A plain ``streamlit run app.py`` has neither route: the sign-in then holds for the tab
only (:func:`serving` is False there), no cookie is written at all, and sessions count
until they close or sit idle for 15 minutes.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

import streamlit as st
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.routing import Route
from streamlit import config as st_config
from streamlit import runtime

from detox_core import config
from detox_core.config import app_root
from detox_core.deployment import presence
from detox_core.deployment.addresses import client_address, client_key
from detox_core.deployment.memory import release_free_memory
from detox_core.deployment.signin_tokens import COOKIE, SignInTokens
from detox_core.ui.app import visitors

log = logging.getLogger(__name__)

#: The cookie route's path below ``server.baseUrlPath``.
SESSION_ROUTE = "_detox/session"
#: A ticket is a few dozen characters: a longer body is refused unread.
MAX_BODY = 256


def app_path() -> str:
    """The app's path on its host: ``/`` or ``/<server.baseUrlPath>/``."""
    base = str(st_config.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/" if base else "/"


def route_path() -> str:
    """The cookie route's absolute path, with the server's ``baseUrlPath``."""
    return app_path() + SESSION_ROUTE


_serving = False


def serving() -> bool:
    """Whether this process serves the cookie route: its :data:`app` is running. Read
    without importing this module (importing it builds the app) by
    :func:`detox_core.ui.app.auth.cookie_route`."""
    return _serving


@asynccontextmanager
async def _lifespan(_app):
    global _serving
    _serving = True
    sweeper = asyncio.create_task(_sweep_forever(), name="detox-session-sweeper")
    try:
        yield None
    finally:
        _serving = False
        sweeper.cancel()


_last_count: int | None = None  # connected sessions after the last sweep
#: How often the sweeper closes the sessions whose pages stopped beating (seconds).
SWEEP_S = 10.0


async def _sweep_forever() -> None:
    """Close, every :data:`SWEEP_S`, the WebSockets of sessions that are not really there
    (:meth:`detox_core.deployment.presence.SessionCounter.to_close`)."""
    first_seen: dict[str, float] = {}
    while True:
        await asyncio.sleep(SWEEP_S)
        try:
            await sweep(first_seen)
        except Exception:  # never let the sweeper die; the log has why
            log.exception("session sweeper")


async def sweep(first_seen: dict[str, float]) -> int:
    """One sweep; returns how many sessions it closed."""
    if not runtime.exists():
        return 0
    # Streamlit keeps its sessions in a private manager; a Streamlit that moved it: no sweep.
    manager = getattr(runtime.get_instance(), "_session_mgr", None)
    if manager is None or not hasattr(manager, "list_active_sessions"):
        return 0
    active = {info.session.id: info for info in manager.list_active_sessions()}
    closed = 0
    for sid in visitors.session_counter().to_close(list(active), first_seen):
        socket = getattr(active[sid].client, "_websocket", None)
        if socket is None:
            continue
        try:
            await socket.close(code=1001)  # "going away": a real browser reconnects at once
            closed += 1
        except Exception as err:  # noqa: BLE001 - closed meanwhile
            log.debug("session %s was closed meanwhile (%s)", sid, err)
            continue
    if closed:
        log.info("closed %d session(s) whose pages did not beat", closed)
    # Sessions ended (closed here, or their tabs closed): their memory back to the system.
    global _last_count
    if _last_count is not None and len(active) - closed < _last_count:
        await run_in_threadpool(release_free_memory)
    _last_count = len(active) - closed
    return closed


async def _small_body(request, limit: int) -> bytes | Response:
    """The request's body, or the answer when there is none to read: 413 past ``limit``
    bytes, 400 to a client that hung up midway (which reads nothing: a cut-off beat used to
    log a 3.7 KB traceback, 42 MB of logs in 20 s from one address; now nothing is logged)."""
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                return Response("too long", status_code=413, headers={"Cache-Control": "no-store"})
    except ClientDisconnect:
        return Response(status_code=400, headers={"Cache-Control": "no-store"})
    return body


async def beat(request):
    """``POST`` a session's beat token: 204 when it is a live session's, 404 when not (the
    page then asks for a rerun, which admits it again); 403 from another site, 413 for a
    body over :data:`detox_core.deployment.presence.MAX_TOKEN_CHARS`."""
    headers = {"Cache-Control": "no-store"}
    body = await _small_body(request, presence.MAX_TOKEN_CHARS)
    if isinstance(body, Response):
        return body
    if not _same_origin(request):
        return Response("not from this site", status_code=403, headers=headers)
    token = body.decode("ascii", errors="replace").strip()
    known = visitors.session_counter().beat(token)
    return Response(status_code=204 if known else 404, headers=headers)


def _https(request) -> bool:
    if request.url.scheme == "https" or config.secure_cookie():
        return True
    # Behind the deployment's nginx: the scheme the browser used. A client that sends the
    # header itself over http gets a cookie its browser then keeps off http: no gain.
    forwarded = request.headers.get("x-forwarded-proto", "")
    return forwarded.split(",")[0].strip().lower() == "https"


def _same_origin(request) -> bool:
    """The request comes from a page of this very host (a browser's fetch says so)."""
    if request.headers.get("sec-fetch-site", "same-origin") != "same-origin":
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser's cross-site request: they all send Origin with a POST
    return urlsplit(origin).netloc.lower() == request.headers.get("host", "").lower()


def _client(request) -> str:
    peer = request.client.host if request.client else None
    return client_key(client_address(peer, request.headers.getlist("x-forwarded-for")))  # as auth.client_id


async def session_cookie(request):
    """``POST`` a ticket: 204 with the cookie set or cleared; 403 for a ticket that is
    unknown, used, expired, malformed, from another address or another site; 413 for a
    body over :data:`MAX_BODY`."""
    headers = {"Cache-Control": "no-store"}
    body = await _small_body(request, MAX_BODY)
    if isinstance(body, Response):
        return body
    try:
        ticket = body.decode("ascii").strip()
    except UnicodeDecodeError:
        return Response("not a ticket", status_code=403, headers=headers)
    if not _same_origin(request):
        return Response("not from this site", status_code=403, headers=headers)
    tokens = SignInTokens()
    redeemed = await run_in_threadpool(tokens.redeem, ticket, _client(request))
    if redeemed is None:
        return Response("unknown, used or expired ticket", status_code=403, headers=headers)
    action, token = redeemed
    response = Response(status_code=204, headers=headers)
    options = {"path": app_path(), "httponly": True, "samesite": "strict", "secure": _https(request)}
    if action == "set":
        response.set_cookie(COOKIE, token, max_age=tokens.lifetime_s, **options)
    else:
        response.delete_cookie(COOKIE, **options)
    return response


def build_app():
    """The ``st.App`` serving ``app.py`` with the cookie route."""
    beat_path = route_path().rsplit("/", 1)[0] + "/" + presence.BEAT_ROUTE_NAME
    return st.App(app_root() / "app.py", lifespan=_lifespan,
                  routes=[Route(route_path(), session_cookie, methods=["POST"]),
                          Route(beat_path, beat, methods=["POST"])])


def __getattr__(name: str):
    """``app``: what the launcher hands to uvicorn (``detox_core.ui.app.asgi:app``), built on
    first use, after Streamlit has read its options (``server.baseUrlPath`` among them)."""
    if name == "app":
        value = build_app()
        globals()["app"] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
