"""How many browser sessions one address may hold open on this server process.

Every open tab is a session: its page state, its reruns and its share of the processor.
Two hundred sessions opened by one client made another visitor's Live scoring take two
minutes and left the server 420 MB larger. A session from an address that already holds
:func:`detox_core.config.max_sessions_per_address` live sessions is answered with a short
message and does no work; it is admitted as soon as one of that address's sessions
closes (a closed tab ends its session within a minute or so) or sits idle for
:data:`IDLE_S`. Sessions already admitted are never turned away (their own state says
so, also after an idle spell or a reconnection).

Many addresses together (a crowd, a botnet) are held by a second limit,
:func:`detox_core.config.max_sessions` sessions per process: each session of the Corpus
page took about 13 MB while many started at once, and 200 from 200 addresses took a
process past 2 GB. A session over it is answered the
same way, except a signed-in organizer's (a valid sign-in cookie, or the sign-in form
shown with the message), which always gets in. Behind the deployment's nginx, the message
also drops the cookie that pins the browser to this process, so that a reload goes to the
least busy one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from detox_core import config
from detox_core.server import deploy
from detox_core.server.addresses import UNKNOWN
from detox_core.ui.app import auth

#: A session that has not run for this long no longer counts (seconds).
IDLE_S = 900.0
#: Session state key: this session was admitted (it is never turned away after).
_ADMITTED = "_visitor_admitted"


class SessionCounter:
    """The live sessions of each client address.

    Args:
        max_per_client: sessions one address may hold (0 = no limit).
        is_active: whether a session id is still connected (Streamlit's runtime).
        clock: seconds, monotonic (a parameter for tests).
        max_total: sessions of every address together (0 = no limit).
    """

    def __init__(self, max_per_client: int, is_active: Callable[[str], bool] = lambda _sid: True,
                 clock: Callable[[], float] = time.monotonic, max_total: int = 0) -> None:
        self.max_per_client, self.is_active, self.clock = max_per_client, is_active, clock
        self.max_total = max_total
        self._seen: dict[str, tuple[str, float]] = {}  # session id -> (client, last run)
        self._lock = threading.Lock()

    def admit(self, client: str, session_id: str, vip: bool = False, admitted: bool = False) -> bool:
        """Whether ``session_id`` of ``client`` may run (and records that it ran).
        ``vip``: a signed-in organizer, admitted over :attr:`max_total` (not over the
        address's limit). ``admitted``: the session was admitted before (its own state
        says so), and goes on whatever the counts, also after an idle spell or a
        reconnection."""
        now = self.clock()
        with self._lock:
            if session_id in self._seen or admitted:
                self._seen[session_id] = (client, now)
                return True
            self._seen = {sid: (c, t) for sid, (c, t) in self._seen.items()
                          if now - t < IDLE_S and self.is_active(sid)}
            live = sum(1 for c, _t in self._seen.values() if c == client)
            if self.max_per_client and client != UNKNOWN and live >= self.max_per_client:
                return False
            if self.max_total and not vip and client != UNKNOWN and len(self._seen) >= self.max_total:
                return False
            self._seen[session_id] = (client, now)
            return True

    def live(self, client: str) -> int:
        with self._lock:
            return sum(1 for c, _t in self._seen.values() if c == client)

    def total(self) -> int:
        with self._lock:
            return len(self._seen)


def _is_active(session_id: str) -> bool:
    try:
        return runtime.get_instance().is_active_session(session_id) is not False
    except Exception:  # noqa: BLE001 - no runtime (a test): count it as live
        return True


@st.cache_resource(show_spinner=False)
def session_counter() -> SessionCounter:
    """The counter of this server process."""
    return SessionCounter(config.max_sessions_per_address(), _is_active, max_total=config.max_sessions())


def _forget_process() -> None:
    """Behind the deployment's nginx, drop the cookie that pins this browser to this full
    process (:data:`detox_core.server.deploy.COOKIE`): its next load goes to the least busy one."""
    try:
        pinned = deploy.COOKIE in st.context.cookies
    except Exception:  # noqa: BLE001 - no request context
        pinned = False
    if pinned:
        st.html(f'<script>document.cookie = "{deploy.COOKIE}=; Path=/; Max-Age=0; SameSite=Lax";</script>',
                unsafe_allow_javascript=True, width=1)


def admit_session() -> None:
    """Stop this run with a message when its address holds too many sessions already."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    counter, client = session_counter(), auth.client_id()
    if counter.admit(client, ctx.session_id, admitted=bool(st.session_state.get(_ADMITTED))):
        st.session_state[_ADMITTED] = True
        return
    if not (counter.max_per_client and counter.live(client) >= counter.max_per_client):
        # The process is full, not the address: a signed-in organizer still gets in.
        if not auth.is_open() and auth.is_organizer() and counter.admit(client, ctx.session_id, vip=True):
            st.session_state[_ADMITTED] = True
            return
        sessions = f"{counter.max_total} open session" + ("s" if counter.max_total != 1 else "")
        st.error(f"**This server is full for now.** It keeps at most {sessions}, and they "
                 "are all taken. Reload this page in a minute or two (a closed tab frees its place within a "
                 "minute).", icon=":material/group_off:")
        _forget_process()
        if not auth.is_open():
            st.caption("Organizers of this task always get in:")
            auth.organizer_sign_in("full_server_login")
        st.stop()
    st.error(f"**Too many open tabs from your address.** This server keeps at most {counter.max_per_client} "
             "sessions per address, and yours has them all. Close some tabs of this app and reload this one.",
             icon=":material/tab_close:")
    st.stop()
