"""An annotator stays signed in in their browser tab: through a reload, and through a
reconnect to another app process when the one the tab was on stops (``deploy/``).

A Streamlit session lives in one process's memory; a reload or a move to another process
starts a new one, which would ask the annotator to join again. After joining, the server
hands the tab a signed, expiring token (:class:`detox_core.sessions.SessionTokens`,
role ``annotator:<id>``, under the server's secret that every process of a deployment
shares); the tab keeps it in ``sessionStorage``: this tab only (another tab, or another
person at the same computer in another tab, is not signed in), gone when the tab closes.
A new session whose tab holds a token signs that annotator in again. *Leave* revokes the
token in every process and removes it from the tab. The token holds an id and times, no
name or password.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

from detox_core.sessions import SessionTokens

_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  const KEY = "detox_annotator";
  try {
    if (data.forget) sessionStorage.removeItem(KEY);
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


def issue(tokens: SessionTokens, annotator_id: int) -> str:
    """A token for this tab of annotator ``annotator_id``."""
    return tokens.issue(f"annotator:{int(annotator_id)}", _KEY)


def annotator_of(tokens: SessionTokens, token: object) -> int | None:
    """The annotator a tab's token names, if it is valid (not tampered, expired or revoked)."""
    if not isinstance(token, str) or not _TOKEN.match(token):
        return None
    role = tokens.verify(token, _KEY)
    if role is None or not re.fullmatch(r"annotator:\d{1,18}", role):
        return None
    return int(role.split(":")[1])


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
