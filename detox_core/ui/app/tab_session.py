"""An annotator stays signed in in their browser: through a reload, in a second tab, and
through a reconnect to another app process when the one the tab was on stops (``deploy/``).

A Streamlit session lives in one process's memory; a reload, a new tab or a move to
another process starts a new one, which would ask the annotator to join again. After
joining, the server hands the tab a signed, expiring token
(:class:`detox_core.deployment.signin_tokens.SignInTokens`, role
``annotator:<id>:<project>:<digest of name and password>``, under the server's secret that
every process of a deployment shares); the tab keeps it in ``sessionStorage`` (kept over a
reload). A new tab of the same browser asks the open tabs of this app for it over a
``BroadcastChannel`` (same origin, same browser only) and signs that annotator in too; once
every tab is closed, nothing is kept (a browser may bring a closed tab back with its
storage, so on a shared computer *Leave* is the way out). Every run checks the token
(revoked, expired, a new password set by an organizer, or no longer that annotator: signed
out).

*Leave* revokes the token in every process, removes it from the tab, and tells the other
tabs of the browser (``{"left": who}``, :func:`who`: a digest naming the annotator, no
secret): each tab signed in as that annotator drops its token and its pages' answers and
signs its session out at once, saying why. The token holds ids, a digest and times, no
name or password.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import streamlit as st

from detox_core.annotation.store import Annotator
from detox_core.deployment.signin_tokens import SignInTokens
from detox_core.ui.components import source

_JS = source("tab_session.js")

_COMPONENT = st.components.v2.component("detox_tab_session", js=_JS)
_TOKEN = re.compile(r"^[A-Za-z0-9_\-]+\.[0-9a-f]{64}$")
#: The key annotator tokens are signed under, beside the server's secret (organizers'
#: tokens are signed under their password, so neither verifies as the other).
_KEY = "detox-annotator-tab"


def _role(annotator: Annotator) -> str:
    """The token's role: the annotator's id, project and a digest of their name and of their
    password's digest, so that a token never passes for someone else (an id reused after a
    project was deleted), and a new password set by an organizer (someone else had it)
    signs every tab of that annotator out."""
    digest = hashlib.sha256(f"{annotator.name}\x00{annotator.password_digest}".encode("utf-8")).hexdigest()[:16]
    return f"annotator:{int(annotator.id)}:{int(annotator.project_id)}:{digest}"


def issue(tokens: SignInTokens, annotator: Annotator) -> str:
    """A token for this tab of ``annotator``."""
    return tokens.issue(_role(annotator), _KEY)


def claimed(tokens: SignInTokens, token: object) -> int | None:
    """The annotator id a tab's token claims, if the server made it and it is neither
    expired nor revoked (then check it with :func:`holds`)."""
    if not isinstance(token, str) or not _TOKEN.match(token):
        return None
    role = tokens.verify(token, _KEY)
    if role is None or not re.fullmatch(r"annotator:\d{1,18}:\d{1,18}:[0-9a-f]{16}", role):
        return None
    return int(role.split(":")[1])


def holds(tokens: SignInTokens, token: object, annotator: Annotator) -> bool:
    """Whether ``token`` is a valid token of ``annotator`` (their id, project and name)."""
    # The role names the id, the project and the name and password digests: one check.
    return isinstance(token, str) and bool(_TOKEN.match(token)) and tokens.verify(token, _KEY) == _role(annotator)


def who(annotator: Annotator) -> str:
    """A name of ``annotator`` for the tabs of a browser to tell one another who left: a
    digest of the token's role, no secret in it."""
    return hashlib.sha256(_role(annotator).encode("utf-8")).hexdigest()[:24]


def revoke(tokens: SignInTokens, token: str | None) -> None:
    if token:
        tokens.revoke(token, _KEY)


def tab_session(key: str, *, keep: str | None = None, keep_who: str | None = None, forget: bool = False,
                left: str | None = None, on_token: Callable[[str], None] | None = None,
                on_left: Callable[[], None] | None = None) -> None:
    """Draw nothing; in the tab: store ``keep`` (the token of annotator ``keep_who``, handed
    to a new tab of the browser that asks; ``on_left`` runs before the next run when
    another tab says that annotator left), remove the token (``forget``, telling the other
    tabs that annotator ``left``), or, with ``on_token``, send the tab's token back, or one
    an open tab of the browser holds (``on_token`` gets it before the next run)."""
    def sent() -> None:
        value = (st.session_state.get(key) or {}).get("token")
        if on_token is not None and isinstance(value, str):
            on_token(value)

    def gone() -> None:
        value = (st.session_state.get(key) or {}).get("left")
        if on_left is not None and isinstance(value, str) and value == keep_who:
            on_left()

    _COMPONENT(data={"keep": keep, "who": keep_who, "forget": forget, "left": left,
                     "restore": on_token is not None}, key=key, on_token_change=sent, on_left_change=gone)
