"""Which browser sessions are really there: admission by address and process, with a heartbeat.

Every open tab is a session of one app process: its page state, its reruns, its share of
the processor and memory. Sessions are admitted within limits (see
:mod:`detox_core.ui.app.visitors` for the messages): per client address
(:func:`detox_core.config.max_sessions_per_address`), per process
(:func:`detox_core.config.max_sessions`), of which :data:`RESERVE_SHARE` is kept for the
Annotate page (a new annotator of an open project gets in when visitors have filled the
rest) and a signed-in organizer always gets in.

A WebSocket that ran a page once and then sat idle used to count for 15 minutes, and one
rerun renewed it: 102 such sockets from 3 addresses locked a process for as long as the
attacker liked. Where the server serves the app's own routes (the launcher,
:mod:`detox_core.ui.app.asgi`), the page therefore **beats**: a small script posts the
session's random beat token every :data:`BEAT_S` seconds (a background tab at least once
a minute, as browsers allow). A session counts only while it beats: a new one has
:data:`GRACE_S` seconds to send its first beat, and a session whose page has not beaten for
:data:`DROP_S` seconds no longer counts and its WebSocket is closed by the sweeper (a real
browser that slept reconnects to the same session and beats again). One address may hold
at most :data:`UNCONFIRMED_PER_ADDRESS` sessions that have not beaten yet, so sockets that
run no script cost their sender a place each for half a minute, no more. Under a plain
``streamlit run app.py`` (no routes, no beats) a session counts until it closes or sits
without a rerun for :data:`IDLE_S`.

Beats alone do not hold a full process, though: the token is sent to the page, so a script
can beat as well as a browser (5 addresses x 20 scripted tabs held all 100 places of a
process for as long as they liked). When a newcomer finds the process full, the address that
holds the most places, more than the newcomer's address would after it, gives up its tab
that has gone longest without a run (no drawing, no click: counted from the end of its last
run) if that is :data:`YIELD_IDLE_S` or more (never an organizer's, nor a place kept for
annotators): the newcomer takes the place, and that tab is told why when it
runs again, and closed by the sweeper. Places thus spread over the addresses that want them
(a fair share each), a scripted tab that never runs loses its place to the first newcomer,
and a person who is using the app keeps theirs. An address that holds at least
:data:`HOARD_SHARE` of the visitors' places gives up a tab idle for only
:data:`HOARD_IDLE_S` (scripted tabs held all the places and the first newcomers waited up to
two minutes).

Newcomers a full process refused **queue**, by address, in the order they came: their page
tries again by itself every few seconds, and while an address waits, a place that frees (or
is given up) goes to the address that has waited longest among those holding the fewest
places, not to whichever tab asks first (a script topping up the places that free). An address whose page has not tried again for
:data:`WAIT_KEEP_S` leaves the queue.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from detox_core.deployment.addresses import UNKNOWN

#: Without heartbeats: a session that has not run for this long no longer counts (seconds).
IDLE_S = 900.0
#: The page posts a beat this often (seconds).
BEAT_S = 20.0
#: A session whose page has not beaten for this long no longer counts, and is closed
#: (seconds; browsers run a background tab's timers at least once a minute).
DROP_S = 100.0
#: A new session's time to send its first beat (seconds).
GRACE_S = 30.0
#: Sessions of one address that have not beaten yet, at most.
UNCONFIRMED_PER_ADDRESS = 8
#: A full process lets a newcomer in by taking the place of a tab that has not run (drawn,
#: or been clicked) for this long, of the address holding the most places (seconds).
YIELD_IDLE_S = 120.0
#: An address holding at least this share of a process's visitor places (and at least
#: :data:`HOARD_MIN` of them) gives up a tab idle for :data:`HOARD_IDLE_S` instead.
HOARD_SHARE = 0.1
HOARD_MIN = 4
HOARD_IDLE_S = 30.0
#: A waiting address whose page has not tried again for this long leaves the queue (seconds;
#: the "full" page reloads itself every 8-12 s, a new session each time, and behind a proxy a
#: retry may reach another process). An abandoned wait keeps a freed place empty this long at most.
WAIT_KEEP_S = 30.0
#: The share of a process's sessions kept for the Annotate page and organizers.
RESERVE_SHARE = 0.2
#: The beat route's name, beside the cookie route (``<base>/_detox/beat``).
BEAT_ROUTE_NAME = "beat"
#: Longest beat token accepted (characters).
MAX_TOKEN_CHARS = 64


@dataclass
class _Session:
    client: str
    started: float
    last_run: float
    token: str
    last_beat: float | None = None
    reserve: bool = False  # admitted into the places kept for the Annotate page
    vip: bool = False  # a signed-in organizer's, over the process's limit


class SessionCounter:
    """The live sessions of each client address, of one process.

    Args:
        max_per_client: sessions one address may hold (0 = no limit).
        is_active: whether a session id is still connected (Streamlit's runtime).
        clock: seconds, monotonic (a parameter for tests).
        max_total: sessions of every address together (0 = no limit); visitors may hold
            all but ``reserve`` of them.
        reserve: places only the Annotate page and organizers may take (default
            :data:`RESERVE_SHARE` of ``max_total``).
        heartbeat: whether pages beat (the app's routes are served); without, sessions
            count until :data:`IDLE_S` without a rerun.
    """

    def __init__(self, max_per_client: int, is_active: Callable[[str], bool] = lambda _sid: True,
                 clock: Callable[[], float] = time.monotonic, max_total: int = 0, reserve: int | None = None,
                 heartbeat: Callable[[], bool] = lambda: False) -> None:
        self.max_per_client, self.is_active, self.clock = max_per_client, is_active, clock
        self.max_total = max_total
        self.reserve = int(max_total * RESERVE_SHARE) if reserve is None else reserve
        self.heartbeat = heartbeat
        self._seen: dict[str, _Session] = {}
        self._tokens: dict[str, str] = {}  # beat token -> session id
        self._dropped: dict[str, float] = {}  # sessions no longer counted for not beating
        self._yielded: dict[str, float] = {}  # sessions that gave their place to a newcomer
        self._yield_closed: set[str] = set()  # of them, those the sweeper has closed
        # address refused for want of a place -> (first try, last try)
        self._waiting: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ liveness

    def _live(self, s: _Session, now: float, beating: bool) -> bool:
        if not beating:
            return now - s.last_run < IDLE_S
        if s.last_beat is None:
            return now - s.started < GRACE_S
        # A tab that has beaten may also show itself by a rerun: behind a proxy its beats can
        # reach another process (its browser's cookie moved with another tab), and the page
        # then asks its own process for a rerun about once a minute.
        return now - max(s.last_beat, s.last_run) < DROP_S

    def _prune(self, now: float) -> None:
        beating = self.heartbeat()
        gone = [sid for sid, s in self._seen.items() if not (self._live(s, now, beating) and self.is_active(sid))]
        for sid in gone:
            self._tokens.pop(self._seen.pop(sid).token, None)
            if beating:
                self._dropped[sid] = now  # still connected, maybe: the sweeper closes it at once
        while len(self._dropped) > 10_000:
            self._dropped.pop(next(iter(self._dropped)))

    # ------------------------------------------------------------------ admission

    def admit(self, client: str, session_id: str, vip: bool = False, admitted: bool = False,
              reserved: bool = False) -> bool:
        """Whether ``session_id`` of ``client`` may run (and records that it ran).

        ``vip``: a signed-in organizer, admitted over :attr:`max_total` (not over the
        address's limit). ``reserved``: a session of the Annotate page, which may take the
        reserve. ``admitted``: the session was admitted before (its own state says so), and
        goes on whatever the counts, also after an idle spell or a reconnection, unless it
        gave its place to a newcomer (:meth:`yielded`)."""
        now = self.clock()
        with self._lock:
            if (s := self._seen.get(session_id)) is not None:
                s.last_run = now
                s.vip |= vip  # an organizer who signed in since: never asked to give the place up
                return True
            if session_id in self._yielded and not vip:
                return False
            if not admitted:
                self._prune(now)
                # An unknown client (no connection's address) is let through only where pages do
                # not beat (a test harness, a script); served by the launcher, it is held to the
                # limits like an address (every unknown one together).
                if client != UNKNOWN or self.heartbeat():
                    if self._address_refusal(client) is not None:
                        return False
                    limit = self.max_total if reserved else self.max_total - self.reserve
                    if self.max_total and not vip:
                        visitors_full = len(self._seen) >= max(self.max_total - self.reserve, 1)
                        free = max(limit, 1) - len(self._seen)
                        # Waiting visitors cannot take the places kept for annotators: an Annotate
                        # tab taking one of those is ahead of no one.
                        ahead = 0 if reserved and visitors_full else self._ahead(client, now)
                        # Full, or what is free is for addresses that waited longer: wait in turn.
                        if free <= ahead and (ahead or not self._make_room(client, now)):
                            self._waiting[client] = (self._waiting.get(client, (now,))[0], now)
                            while len(self._waiting) > 10_000:
                                self._waiting.pop(next(iter(self._waiting)))
                            return False
                        self._waiting.pop(client, None)
            in_reserve = bool(self.max_total and not vip and not admitted and reserved
                              and len(self._seen) >= self.max_total - self.reserve)
            self._dropped.pop(session_id, None)
            token = secrets.token_urlsafe(24)
            self._seen[session_id] = _Session(client, now, now, token, reserve=in_reserve, vip=vip)
            self._tokens[token] = session_id
            return True

    def _ahead(self, client: str, now: float) -> int:
        """Addresses ahead of ``client`` in the queue: waiting longer, and holding no more places
        than ``client`` (a newcomer goes before a holder's next tab; the queue pruned of addresses
        that stopped trying; under the lock)."""
        # Kept by address across the page's own reloads (each a new session): a reload keeps the turn.
        for other in [c for c, (_first, last) in self._waiting.items() if now - last > WAIT_KEEP_S]:
            del self._waiting[other]
        if not self._waiting or list(self._waiting) == [client]:
            return 0
        held: dict[str, int] = {}
        for s in self._seen.values():
            held[s.client] = held.get(s.client, 0) + 1
        mine, places = self._waiting.get(client, (now,))[0], held.get(client, 0)
        return sum(1 for c, (first, _last) in self._waiting.items()
                   if c != client and first < mine and held.get(c, 0) <= places)

    def _make_room(self, client: str, now: float) -> bool:
        """Free a place for a newcomer of ``client`` in a full process: the longest-idle tab
        (no run for :data:`YIELD_IDLE_S`, or :data:`HOARD_IDLE_S` for an address holding
        :data:`HOARD_SHARE` of the places) of the address holding the most places, if that is
        more than ``client`` would hold with this one (under the lock)."""
        hoard = max(HOARD_MIN, int(self.visitor_places() * HOARD_SHARE))
        held: dict[str, list[tuple[str, _Session]]] = {}
        for sid, s in self._seen.items():
            # Organizers keep their places, and so do the places kept for annotators.
            if not s.vip and not s.reserve and s.client != UNKNOWN:
                held.setdefault(s.client, []).append((sid, s))
        mine = len(held.get(client, []))
        for other, sessions in sorted(held.items(), key=lambda kv: -len(kv[1])):
            if len(sessions) <= mine + 1:
                return False  # nobody holds more than a fair share against this address
            wait = HOARD_IDLE_S if len(sessions) >= hoard else YIELD_IDLE_S
            idle = [(sid, s) for sid, s in sessions if now - s.last_run >= wait]
            if idle:
                sid, s = min(idle, key=lambda x: x[1].last_run)
                self._tokens.pop(self._seen.pop(sid).token, None)
                self._yielded[sid] = now
                while len(self._yielded) > 10_000:
                    self._yield_closed.discard(next(iter(self._yielded)))
                    self._yielded.pop(next(iter(self._yielded)))
                return True
        return False

    def ran(self, session_id: str) -> None:
        """A run of the session ended (a long scoring run is not idle: see :data:`YIELD_IDLE_S`)."""
        with self._lock:
            if (s := self._seen.get(session_id)) is not None:
                s.last_run = self.clock()

    def yielded(self, session_id: str) -> bool:
        """Whether the session gave its place to a newcomer (it sat idle in a full process)."""
        with self._lock:
            return session_id in self._yielded

    def holders(self) -> list[tuple[str, int, int]]:
        """(address, sessions, of them idle for :data:`YIELD_IDLE_S`) of each address, most first."""
        with self._lock:
            now = self.clock()
            self._prune(now)
            counts: dict[str, list[int]] = {}
            for s in self._seen.values():
                c = counts.setdefault(s.client, [0, 0])
                c[0] += 1
                c[1] += now - s.last_run >= YIELD_IDLE_S
            return sorted(((a, n, idle) for a, (n, idle) in counts.items()), key=lambda x: -x[1])

    def waiting(self) -> int:
        """Addresses waiting for a place (the queue)."""
        with self._lock:
            now = self.clock()
            return sum(1 for _first, last in self._waiting.values() if now - last <= WAIT_KEEP_S)

    def in_reserve(self, session_id: str) -> bool:
        """Whether the session took one of the places kept for the Annotate page (it may run
        that page only, while visitors fill the rest)."""
        with self._lock:
            s = self._seen.get(session_id)
            return bool(s and s.reserve)

    def visitor_places(self) -> int:
        """Sessions visitors may hold (0: no limit)."""
        return max(self.max_total - self.reserve, 1) if self.max_total else 0

    def refusal(self, client: str) -> str:
        """Why a new session of ``client`` would be refused now: ``"address"`` (its own
        limit, or too many of its sessions not yet beating) or ``"full"``."""
        with self._lock:
            self._prune(self.clock())
            return self._address_refusal(client) or "full"

    def _address_refusal(self, client: str) -> str | None:
        """``"address"`` or ``"unconfirmed"`` when ``client``'s own sessions stop a new one
        (the counts pruned; under the lock)."""
        mine = [s for s in self._seen.values() if s.client == client]
        if self.max_per_client and len(mine) >= self.max_per_client:
            return "address"
        if self.heartbeat() and sum(s.last_beat is None for s in mine) >= UNCONFIRMED_PER_ADDRESS:
            return "unconfirmed"
        return None

    # ------------------------------------------------------------------ heartbeats

    def token(self, session_id: str) -> str | None:
        """The beat token of an admitted session (its page posts it)."""
        with self._lock:
            s = self._seen.get(session_id)
            return s.token if s else None

    def beat(self, token: str) -> bool:
        """A beat of the page of ``token``; False for a token of no live session."""
        if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS:
            return False
        with self._lock:
            sid = self._tokens.get(token)
            if sid is None or (s := self._seen.get(sid)) is None:
                return False
            s.last_beat = self.clock()
            return True

    def to_close(self, session_ids: list[str], first_seen: dict[str, float]) -> list[str]:
        """Of the connected ``session_ids``, those to close: with heartbeats on, sessions
        whose page stopped beating (:data:`DROP_S`) or never beat (:data:`GRACE_S`), and
        connections that never ran a page (first seen by the sweeper ``2 * GRACE_S`` ago;
        ``first_seen`` is the sweeper's memory, updated here)."""
        if not self.heartbeat():
            return []
        now = self.clock()
        out = []
        with self._lock:
            for sid in session_ids:
                s = self._seen.get(sid)
                if s is None and sid in self._dropped:
                    out.append(sid)  # counted no more for not beating
                elif s is None and sid in self._yielded:
                    if sid not in self._yield_closed:  # once: a reconnected tab is then told why, not closed again
                        self._yield_closed.add(sid)
                        out.append(sid)
                elif s is None:  # never ran a page: its first run may wait on a busy server, so twice the grace
                    if now - first_seen.setdefault(sid, now) >= 2 * GRACE_S:
                        out.append(sid)
                elif not self._live(s, now, True):
                    out.append(sid)
            connected = set(session_ids)
            for sid in [sid for sid in first_seen if sid not in connected]:
                del first_seen[sid]  # closed meanwhile
            for sid in [sid for sid in self._dropped if sid not in connected]:
                del self._dropped[sid]
        return out

    # ------------------------------------------------------------------ counts

    def live(self, client: str) -> int:
        with self._lock:
            self._prune(self.clock())
            return sum(1 for s in self._seen.values() if s.client == client)

    def total(self) -> int:
        with self._lock:
            self._prune(self.clock())
            return len(self._seen)
