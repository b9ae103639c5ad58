"""How many browser sessions one address, and all of them, may hold open on this process.

The counts and the heartbeat that tells a tab really there from an idle socket live in
:mod:`detox_core.deployment.presence`; this module asks them at the top of every page run and
says why a session is refused. Two hundred sessions opened by one client once made another
visitor's Live scoring take two minutes and left the server 420 MB larger, and each session
of the Corpus page took about 13 MB while many started at once.

- An address holding :func:`detox_core.config.max_sessions_per_address` live sessions (or
  :data:`~detox_core.deployment.presence.UNCONFIRMED_PER_ADDRESS` whose pages have not beaten
  yet) is told so; it gets in as soon as one of its tabs closes.
- A process holding :func:`detox_core.config.max_sessions` sessions is full; visitors may
  take all but a reserve, which the Annotate page (a new annotator) may take too, and a
  signed-in organizer always gets in (a valid sign-in cookie, or the sign-in form shown
  with the message). Behind the deployment's nginx, the message drops the cookie that pins
  the browser to this process and reloads once, so that the browser lands on the least
  busy one.

Sessions already admitted are not turned away (their own state says so, also after an
idle spell or a reconnection), except a tab that gave its place to a newcomer in a full
process (:data:`~detox_core.deployment.presence.YIELD_IDLE_S` without a run, or
:data:`~detox_core.deployment.presence.HOARD_IDLE_S` where its address holds many places; its address
holding the most), which is told so. A tab told the process is full queues: it reloads by
itself every few seconds, and gets a place in its turn.
"""

from __future__ import annotations

import threading

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from detox_core import config
from detox_core.deployment import deploy, presence
from detox_core.deployment.addresses import UNKNOWN
from detox_core.deployment.presence import IDLE_S, SessionCounter  # noqa: F401 - the counter's names, here too
from detox_core.deployment import runs
from detox_core.deployment.runs import RunShare
from detox_core.ui.app import auth
from detox_core.ui.components import source

#: Session state key: this session was admitted (it is never turned away after).
_ADMITTED = "_visitor_admitted"


def _is_active(session_id: str) -> bool:
    try:
        return runtime.get_instance().is_active_session(session_id) is not False
    except Exception:  # noqa: BLE001 - no runtime (a test): count it as live
        return True


_counter: SessionCounter | None = None
_counter_lock = threading.Lock()


def session_counter() -> SessionCounter:
    """The counter of this server process (also read by the beat route, outside any page
    run). Pages beat where this process serves the app's own routes."""
    global _counter
    with _counter_lock:
        if _counter is None:
            _counter = SessionCounter(config.max_sessions_per_address(), _is_active, max_total=config.max_sessions(),
                                      heartbeat=lambda: auth.cookie_route() is not None)
        return _counter


_BEAT_JS = source("heartbeat.js")
_BEAT = st.components.v2.component("detox_heartbeat", js=_BEAT_JS)


def _beat_url() -> str | None:
    """The beat route's path (beside the cookie route), where this process serves it."""
    route = auth.cookie_route()
    return None if route is None else route.rsplit("/", 1)[0] + "/" + presence.BEAT_ROUTE_NAME


def _render_heartbeat(token: str | None) -> None:
    """The script that tells the server this tab is there (draws nothing)."""
    url = _beat_url()
    if url is None or token is None:
        return
    with st.sidebar:
        _BEAT(data={"url": url, "token": token, "every": presence.BEAT_S}, key="detox_heartbeat",
              on_lost_change=lambda: None)


def _forget_process() -> None:
    """Behind the deployment's nginx, drop the cookie that pins this browser to this full
    process (:data:`detox_core.deployment.deploy.COOKIE`): its next load goes to the least busy one."""
    try:
        pinned = deploy.COOKIE in st.context.cookies
    except Exception:  # noqa: BLE001 - no request context
        pinned = False
    if pinned:
        # The cookie dropped, and one reload (at most once a minute): the proxy sends it to
        # the least busy process, instead of back to this full one.
        st.html(f'''<script>document.cookie = "{deploy.COOKIE}=; Path=/; Max-Age=0; SameSite=Lax";
            const last = Number(sessionStorage.getItem("detoxMovedAt") || 0);
            if (Date.now() - last > 60000) {{ sessionStorage.setItem("detoxMovedAt", String(Date.now()));
                                              location.reload(); }}</script>''',
                unsafe_allow_javascript=True, width=1)


_runs: RunShare | None = None
#: The address each running page run took a turn for, by the run's thread (released when the
#: run ends, or before a long job). Kept here, not in the session's state: the run may be
#: stopped (a rerun, a closed tab) between taking the turn and writing anything, and a tab's
#: next run may start on a new thread while the last one is still ending.
_turns: dict[int, str] = {}
#: Loopback clients with no proxy in front: a person on the server's own machine.
_THIS_MACHINE = frozenset({"127.0.0.1", "::1"})


def run_share() -> RunShare:
    """The turns of this process's page runs, per address (:mod:`detox_core.deployment.runs`)."""
    global _runs
    with _counter_lock:
        if _runs is None:
            _runs = RunShare(config.runs_per_address())
        return _runs


def take_turn() -> None:
    """Wait while this address's other tabs run (a few at a time, in order; ``app.py`` calls
    it once the session is admitted). Organizers, signed-in annotators (their saves must not
    queue behind a colleague's long job at the same address; joins still take turns), a person
    on the server's own machine and unknown clients do not wait; a wait longer than a moment
    is said on the page."""
    if get_script_run_ctx() is None or (not auth.is_open() and auth.is_organizer()):
        return
    if st.session_state.get("ann_id") is not None:
        return
    client = auth.client_id()
    if client == UNKNOWN or client in _THIS_MACHINE:
        return
    share = run_share()
    if share.per_address <= 0:
        return
    if share.acquire(client, blocking=False):
        _held(client)
        return
    note = st.empty()
    note.caption(f"Your connection's other tabs are running: this one runs in its turn (at most "
                 f"{share.per_address} at a time).")
    if share.acquire(client, wait_s=runs.WAIT_S):
        _held(client)  # before anything that a stopped run would cut short
    note.empty()


def _held(client: str) -> None:
    with _counter_lock:
        earlier = _turns.pop(threading.get_ident(), None)
        _turns[threading.get_ident()] = client
    if earlier is not None:  # a run of this thread that ended without giving it back
        run_share().release(earlier)


def give_back_turn() -> None:
    """Before a long job of this run (a whole submission scored): the address's turn goes
    to its next run now, not when the job ends, so its other tabs do not wait on it."""
    with _counter_lock:
        client = _turns.pop(threading.get_ident(), None)
    if client is not None:
        run_share().release(client)


def session_ran() -> None:
    """The end of a page run (``app.py``): the session's place counts from here as idle,
    and its address's turn goes to the next run waiting."""
    give_back_turn()
    if (ctx := get_script_run_ctx()) is not None:
        session_counter().ran(ctx.session_id)


def admit_session(reserved: bool = False) -> None:
    """Stop this run with a message when its address or this process holds too many
    sessions already; an admitted session's page beats (:mod:`detox_core.deployment.presence`).
    ``reserved``: the Annotate page, which may take the places kept for new annotators."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    counter, client = session_counter(), auth.client_id()
    organizer = not auth.is_open() and auth.is_organizer()
    if counter.admit(client, ctx.session_id, vip=organizer,
                     admitted=bool(st.session_state.get(_ADMITTED)), reserved=reserved):
        st.session_state[_ADMITTED] = True
        _render_heartbeat(counter.token(ctx.session_id))
        if reserved or not counter.in_reserve(ctx.session_id) or (not auth.is_open() and auth.is_organizer()):
            return
        # A place kept for new annotators runs the Annotate page only, while visitors fill the rest.
        st.error(f"**This server is full for visitors for now.** It keeps {counter.visitor_places()} sessions for "
                 "visitors, all taken, and a few more for annotators: this tab may open **Annotate** only. Reload "
                 "this page in a minute or two.", icon=":material/group_off:")
        st.stop()
    if counter.yielded(ctx.session_id):
        # It sat without a run while the process was full, and its address held the most places.
        st.info("**This tab gave its place to a newcomer.** The server was full, your address held the most of its "
                "places, and this tab had not been used for a while. Reload this page to get back in: you get a "
                "place as soon as one frees.", icon=":material/event_seat:")
        st.stop()
    why = counter.refusal(client)
    if why == "full":
        # The process is full, not the address: a signed-in organizer still gets in.
        if not auth.is_open() and auth.is_organizer() and counter.admit(client, ctx.session_id, vip=True):
            st.session_state[_ADMITTED] = True
            _render_heartbeat(counter.token(ctx.session_id))
            return
        places = counter.max_total if reserved else counter.visitor_places()
        sessions = f"{places} open session" + ("s" if places != 1 else "") + ("" if reserved else " for visitors")
        st.error(f"**This server is full for now.** It keeps at most {sessions}, and they are all taken. You "
                 "are in the queue: this tab tries again by itself every few seconds and gets a place in its turn "
                 "(a closed or unused tab frees one).", icon=":material/group_off:")
        # In turn: the process gives a place that frees to the address that has waited longest.
        # Not while an organizer types the password below.
        st.html("<script>(function retry(ms) { setTimeout(() => { const typing = document.activeElement?.tagName "
                "=== 'INPUT' || [...document.querySelectorAll('input')].some(i => i.value); "
                "typing ? retry(4000) : location.reload(); }, ms); })(8000 + Math.random() * 4000);</script>",
                unsafe_allow_javascript=True, width=1)
        _forget_process()
        if not auth.is_open():
            st.caption("Organizers of this task always get in:")
            auth.organizer_sign_in("full_server_login")
        st.stop()
    if why == "unconfirmed":
        # Many people behind one address opening the app at the same moment (a lab): this tab
        # tries again by itself a few seconds later, when the others have shown their pages.
        st.error("**Many tabs from your address are opening at this moment.** This one tries again in a few "
                 "seconds.", icon=":material/hourglass_top:")
        st.html("<script>setTimeout(() => location.reload(), 4000 + Math.random() * 4000);</script>",
                unsafe_allow_javascript=True, width=1)
        st.stop()
    st.error(f"**Too many open tabs from your address.** This server keeps at most {counter.max_per_client} "
             "sessions per address, and yours has them all. Close some tabs of this app and reload this one.",
             icon=":material/tab_close:")
    st.stop()
