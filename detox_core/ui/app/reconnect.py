"""A tab that lost its app process says so once it runs on another one.

Behind a proxy with several app processes (``deploy/``), a browser's session lives in one
process. When that process stops (a crash, a restart, an update), the page's WebSocket
reconnects through the proxy to another process, which knows nothing of the tab: it
starts a new session and draws the page afresh. Without a word the person would find a
form emptied or be asked to sign in again, and wonder what they lost.

Each process has a random token. A small component in every page keeps the token of the
process that drew the page in the browser tab's memory (not in storage: a reload starts
afresh and is not a reconnect); when a page is drawn by a process with another token in
the same tab, the browser reports it and the page says that it reconnected, what was kept
(everything stored: submitted annotation pages, stored submissions and scores; an
annotator's sign-in, which the tab holds: :mod:`detox_core.ui.app.tab_session`) and
what must be given again (what was only on the page).
"""

from __future__ import annotations

import secrets
import time

import streamlit as st
from detox_core.ui.components import source

#: This process, as the browser sees it (random: nothing about the machine).
PROCESS_TOKEN = secrets.token_hex(8)
_STATE = "_reconnected_at"
_SEEN = "_reconnect_seen"

_JS = source("reconnect.js")

_COMPONENT = st.components.v2.component("detox_reconnect", js=_JS)

NOTICE = ("**Reconnected.** The server process this tab was on stopped, so the tab now runs on another "
          "one. Everything saved is kept: submitted annotation pages, stored submissions and scores, "
          "settings, and an annotator's sign-in in this tab. What was only on the page (answers not yet "
          "submitted, a form, an upload) must be given again.")


def render_reconnect_notice() -> None:
    """At the top of the page: the notice after a reconnect to another process (until
    dismissed); and the component that notices one (in the sidebar; it draws nothing).

    A slow process (loaded, just started) may take seconds to reach the component: the tab
    asks for a drawing again after 1, 2, 4 and then every 8 seconds, not every second (each
    request cancels the run in progress), and the move waits in the component's state until
    a run reads it (the next run reads it where a request cancelled the one it arrived in)."""
    with st.sidebar:
        result = _COMPONENT(data={"process": PROCESS_TOKEN}, key="detox_reconnect",
                            on_moved_change=lambda: None, on_redraw_change=lambda: None)
    moved = result.get("moved") if result is not None else None
    # A move is shown once: a new one (another value) shows the notice again after a Dismiss.
    if moved and moved != st.session_state.get(_SEEN):
        st.session_state[_SEEN] = moved
        st.session_state[_STATE] = time.time()
    if st.session_state.get(_STATE):
        with st.container():
            st.info(NOTICE, icon=":material/sync:")
            if st.button("Dismiss", key="reconnect_dismiss", icon=":material/close:"):
                st.session_state.pop(_STATE, None)
                st.rerun()
