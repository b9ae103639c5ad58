"""An annotator stays signed in in their browser tab: through a reload, and through a
reconnect to another app process when the one the tab was on stops (``deploy/``).

A Streamlit session lives in one process's memory; a reload or a move to another process
starts a new one, which would ask the annotator to join again. After joining, the server
hands the tab a signed, expiring token (:class:`detox_core.server.sessions.SessionTokens`, role
``annotator:<id>:<project>:<digest of name and password>``, under the server's secret that
every process of a deployment shares); the tab keeps it in ``sessionStorage``: this tab
only (another tab, or another person at the same computer in another tab, is not signed
in); a browser may bring it back with a closed tab it reopens, so on a shared computer
*Leave* is the way out. A new session whose tab holds a token signs that annotator in
again, and every run checks it (revoked, expired, a new password set by an organizer, or
no longer that annotator: signed out). *Leave* revokes the token in every process and
removes it from the tab. The token holds ids, a digest and times, no name or password.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import streamlit as st

from detox_core.annotation.store import Annotator
from detox_core.server.sessions import SessionTokens

_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  const KEY = "detox_annotator";
  try {
    if (data.forget) {
      // Signed out: the token goes, and so do the answers of the pages that were open (the
      // annotation page's copy, "detox-ap:..."), which the next person at this tab must not find.
      sessionStorage.removeItem(KEY);
      for (let i = sessionStorage.length - 1; i >= 0; i--) {
        const k = sessionStorage.key(i);
        if (k && k.startsWith("detox-ap:")) sessionStorage.removeItem(k);
      }
    }
    if (data.keep) sessionStorage.setItem(KEY, data.keep);
    if (data.restore) {
      const token = sessionStorage.getItem(KEY);
      if (token) setTriggerValue("token", token);
    }
  } catch (err) {
    // Storage refused (a private window's policy): the annotator joins again after a reload.
  }
}
"""

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


def issue(tokens: SessionTokens, annotator: Annotator) -> str:
    """A token for this tab of ``annotator``."""
    return tokens.issue(_role(annotator), _KEY)


def claimed(tokens: SessionTokens, token: object) -> int | None:
    """The annotator id a tab's token claims, if the server made it and it is neither
    expired nor revoked (then check it with :func:`holds`)."""
    if not isinstance(token, str) or not _TOKEN.match(token):
        return None
    role = tokens.verify(token, _KEY)
    if role is None or not re.fullmatch(r"annotator:\d{1,18}:\d{1,18}:[0-9a-f]{16}", role):
        return None
    return int(role.split(":")[1])


def holds(tokens: SessionTokens, token: object, annotator: Annotator) -> bool:
    """Whether ``token`` is a valid token of ``annotator`` (their id, project and name)."""
    # The role names the id, the project and the name and password digests: one check.
    return isinstance(token, str) and bool(_TOKEN.match(token)) and tokens.verify(token, _KEY) == _role(annotator)


def revoke(tokens: SessionTokens, token: str | None) -> None:
    if token:
        tokens.revoke(token, _KEY)


def tab_session(key: str, *, keep: str | None = None, forget: bool = False,
                on_token: Callable[[str], None] | None = None) -> None:
    """Draw nothing; in the tab: store ``keep``, remove the token (``forget``), or, with
    ``on_token``, send the stored token back (``on_token`` gets it before the next run)."""
    def sent() -> None:
        value = (st.session_state.get(key) or {}).get("token")
        if on_token is not None and isinstance(value, str):
            on_token(value)

    _COMPONENT(data={"keep": keep, "forget": forget, "restore": on_token is not None}, key=key,
               on_token_change=sent)
