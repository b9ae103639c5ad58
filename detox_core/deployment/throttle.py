"""Sign-in throttling: wrong passwords cost time, per address and per account, and
never lock out the right password from elsewhere.

Per client address: a failed sign-in makes the next try from the same address wait (1,
2, 4 … seconds, at most 60); five failures within 15 minutes lock that address out for
15 minutes. That stops one address guessing; it does not stop anyone else.

Per account (the organizer password; an annotator's name in a project): many failures
from many addresses within 15 minutes (20) mean someone is guessing that account from
several addresses. Then an address that has not signed in to the account before may try
it once every 30 seconds, and an address that has signed in to it before is not slowed
at all. The right person therefore gets in at once from a known address and within 30
seconds from a new one, while a guesser's rate stays bounded. There is no lock shared by
every client: earlier, 30 wrong passwords or made-up access codes from anywhere locked
every sign-in of the server, the organizer's and every annotator's, for 5 minutes.

A refused try is answered at once with the time to wait: no thread sleeps, so other users
of the server never wait for an attacker. Memory is bounded: the least recently failing
addresses and accounts are forgotten first.

Every app process of a deployment sees the same counts (:class:`SharedLoginThrottle`): the
sign-ins are kept in the app's database, so an address that spreads its guesses over the
processes behind the proxy (the proxy's cookie picks the process, and a guesser can set it)
gets five guesses in all, not five per process. Where the database cannot be read, each
process falls back to its own counts (logged), never to no throttle.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sqlalchemy import Column, Float, Index, Integer, MetaData, String, Table, delete, false, insert, or_, select, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from detox_core.db import upgrade, writer

log = logging.getLogger(__name__)

#: Addresses and accounts remembered at most (each table).
MAX_TRACKED = 10_000
#: Addresses remembered per account as having signed in to it.
MAX_KNOWN_PER_ACCOUNT = 64
#: The wait of a try while as many as lock the address are still being checked (seconds):
#: they lock it only once they have failed, so people behind one address joining together
#: are told to try again in a moment, not in 15 minutes.
PENDING_RETRY_S = 2.0


@dataclass
class _Client:
    failures: deque[float] = field(default_factory=deque)
    next_try: float = 0.0
    locked_until: float = 0.0


@dataclass
class _Account:
    failures: deque[float] = field(default_factory=deque)
    known: OrderedDict[str, float] = field(default_factory=OrderedDict)  # address -> last sign-in
    next_try: dict[str, float] = field(default_factory=dict)  # address -> earliest next try


#: How a reserved try ended (:meth:`LoginThrottle.settle`): the right password; a wrong one
#: (or a made-up code), which stays counted; or nothing to count (a refused name, a short
#: password), which is taken back.
OK, FAILED, VOID = "ok", "failed", "void"


@dataclass(frozen=True)
class Attempt:
    """A try reserved before its password is checked (:meth:`LoginThrottle.reserve`). It
    counts toward the lock until it is settled, so tries that arrive together are counted
    together: the sixth of 60 simultaneous guesses is refused, not checked."""

    client: str
    account: str | None
    at: float
    #: its row in ``signin_events`` (:class:`SharedLoginThrottle`); None: this process's counts only
    row: int | None = None
    #: the address's next try and lock before this one (restored if it is taken back)
    next_before: float = 0.0
    locked_before: float = 0.0


class LoginThrottle:
    """Counts failed sign-ins per client address and per account.

    Args:
        max_failures: failures of one address within ``window_s`` that lock it.
        lock_s: how long a locked address waits.
        max_delay_s: the longest wait after one failure.
        account_failures: failures of one account (from any addresses) within
            ``window_s`` that slow it for addresses it does not know.
        account_slow_s: the time between two tries of a slowed account from one new
            address.
        delay_pending: whether a try under way (:meth:`reserve`) already delays the next
            (default: only once it failed, so people behind one address are not slowed by
            each other's checks).
        clock: seconds, monotonic (a parameter for tests).
    """

    def __init__(self, max_failures: int = 5, window_s: float = 900, lock_s: float = 900,
                 max_delay_s: float = 60, account_failures: int = 20, account_slow_s: float = 30,
                 delay_pending: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_failures, self.window_s, self.lock_s = max_failures, window_s, lock_s
        self.max_delay_s, self.account_failures, self.account_slow_s = max_delay_s, account_failures, account_slow_s
        self.delay_pending, self.clock = delay_pending, clock
        self._clients: OrderedDict[str, _Client] = OrderedDict()
        self._accounts: OrderedDict[str, _Account] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, failures: deque[float], now: float) -> int:
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        return len(failures)

    def wait_s(self, client: str, account: str | None = None) -> float:
        """Seconds ``client`` must wait before its password for ``account`` is checked
        (0 = go ahead). ``account`` None: a sign-in that names no known account."""
        with self._lock:
            return self._wait(client, account, self.clock())

    def _wait(self, client: str, account: str | None, now: float) -> float:
        waits = [0.0]
        c = self._clients.get(client)
        if c is not None:
            waits += [c.locked_until - now, c.next_try - now]
            if self._recent(c.failures, now) >= self.max_failures and c.locked_until <= now:
                waits.append(PENDING_RETRY_S)  # the limit reached by tries still being checked
        a = self._accounts.get(account) if account is not None else None
        if a is not None and client not in a.known and self._recent(a.failures, now) >= self.account_failures:
            waits.append(a.next_try.get(client, 0.0) - now)
        return max(waits)

    def reserve(self, client: str, account: str | None = None, force: bool = False) -> tuple[float, Attempt | None]:
        """Check the wait and, where there is none, count this try, in one step: ``(0,
        attempt)`` to check the password and then :meth:`settle` the attempt, or ``(seconds
        to wait, None)``. A try being checked counts toward the limit (while five are under
        way, a sixth is told to try again in :data:`PENDING_RETRY_S`), but sets no delay and
        no lock until it has failed, so people behind one address who join at the same
        moment are not slowed by each other. ``force``: count it without
        checking (the shared throttle already did)."""
        now = self.clock()
        with self._lock:
            if not force and (wait := self._wait(client, account, now)) > 0:
                return wait, None
            c = self._clients.get(client)
            before = (c.next_try, c.locked_until) if c else (0.0, 0.0)
            self._failed(client, account, now, pending=True)
            return 0.0, Attempt(client, account, now, next_before=before[0], locked_before=before[1])

    def pending(self, client: str, account: str | None = None) -> None:
        """Count a try whose password is being checked (a replayed reservation)."""
        with self._lock:
            self._failed(client, account, self.clock(), pending=True)

    def settle(self, attempt: Attempt, outcome: str) -> None:
        """How a reserved try ended: :data:`OK`, :data:`FAILED` (stays counted, and now
        delays the next try) or :data:`VOID` (taken back)."""
        if outcome == OK:
            self.succeeded(attempt.client, attempt.account)
            return
        if outcome not in (FAILED, VOID):
            raise ValueError(f"unknown outcome {outcome!r}")
        with self._lock:
            if outcome == FAILED:
                if (c := self._clients.get(attempt.client)) is not None:
                    self._recent(c.failures, self.clock())
                    self._lock_if_due(c, attempt.at)
                self._delay(attempt.client, attempt.account, attempt.at)
            else:
                self._take_back(attempt)

    def _take_back(self, attempt: Attempt) -> None:
        if (c := self._clients.get(attempt.client)) is not None and attempt.at in c.failures:
            c.failures.remove(attempt.at)
            if not c.failures or c.failures[-1] < attempt.at:  # no later try set these since
                c.next_try = attempt.next_before
                if len(c.failures) < self.max_failures:
                    c.locked_until = attempt.locked_before
        a = self._accounts.get(attempt.account) if attempt.account is not None else None
        if a is not None and attempt.at in a.failures:
            a.failures.remove(attempt.at)

    def failed(self, client: str, account: str | None = None) -> None:
        """Record a wrong password (or a made-up access code) of ``client``."""
        with self._lock:
            self._failed(client, account, self.clock())

    def _lock_if_due(self, c: _Client, at: float) -> None:
        if len(c.failures) >= self.max_failures:
            c.locked_until = max(c.locked_until, at + self.lock_s)

    def _delay(self, client: str, account: str | None, at: float) -> None:
        """The waits after a failure at ``at``: of the address (1, 2, 4 ... s) and, for an
        account under attack, of this address on it."""
        if (c := self._clients.get(client)) is not None:
            c.next_try = max(c.next_try, at + min(2.0 ** (max(len(c.failures), 1) - 1), self.max_delay_s))
        a = self._accounts.get(account) if account is not None else None
        if a is not None and len(a.failures) >= self.account_failures:
            a.next_try[client] = max(a.next_try.get(client, 0.0), at + self.account_slow_s)
            if len(a.next_try) > MAX_TRACKED:
                a.next_try = {k: v for k, v in a.next_try.items() if v > at}

    def _failed(self, client: str, account: str | None, now: float, pending: bool = False) -> None:
        c = self._clients.pop(client, None) or _Client()
        self._clients[client] = c  # most recent last
        self._recent(c.failures, now)
        c.failures.append(now)
        if not pending:
            self._lock_if_due(c, now)
        while len(self._clients) > MAX_TRACKED:
            self._clients.popitem(last=False)
        if account is not None:
            a = self._accounts.pop(account, None) or _Account()
            self._accounts[account] = a
            self._recent(a.failures, now)
            a.failures.append(now)
            while len(self._accounts) > MAX_TRACKED:
                self._accounts.popitem(last=False)
        if not pending or self.delay_pending:
            self._delay(client, account, now)

    def succeeded(self, client: str, account: str | None = None) -> None:
        """A right password: the address's failures are forgotten, and the account knows
        the address (it is not slowed when the account is under attack)."""
        now = self.clock()
        with self._lock:
            self._clients.pop(client, None)
            if account is not None:
                self._know(client, account, now)

    def knows(self, client: str, account: str, at: float | None = None) -> None:
        """Remember that ``client`` signed in to ``account`` (at ``at``), its failures kept."""
        with self._lock:
            self._know(client, account, self.clock() if at is None else at)

    def _know(self, client: str, account: str, at: float) -> None:
        a = self._accounts.pop(account, None) or _Account()
        self._accounts[account] = a
        a.known.pop(client, None)
        a.known[client] = at
        while len(a.known) > MAX_KNOWN_PER_ACCOUNT:
            a.known.popitem(last=False)
        a.next_try.pop(client, None)
        while len(self._accounts) > MAX_TRACKED:
            self._accounts.popitem(last=False)


_meta = MetaData()
signin_events = Table(
    "signin_events", _meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),  # seconds since the epoch: every process's clock
    Column("client", String(200), nullable=False),
    Column("account", String(300), nullable=True),
    # 1: a right password; 0: a wrong one or a made-up code; -1 (PENDING): reserved, its
    # password being checked (counted as a failure meanwhile)
    Column("ok", Integer, nullable=False),
    Index("ix_signin_events_client_at", "client", "at"),
    Index("ix_signin_events_account_at", "account", "at"),
)
#: How long an address that signed in to an account stays known to it (seconds).
KNOWN_S = 90 * 24 * 3600
#: The most sign-ins one check reads back (an account guessed from very many addresses).
MAX_REPLAYED = 5_000


#: ``signin_events.ok`` of a try reserved and not yet settled.
PENDING = -1


def _lock_id(key: str) -> int:
    """The PostgreSQL advisory lock of an address or account (a signed 64-bit number)."""
    return int.from_bytes(hashlib.sha256(b"signin:" + key.encode("utf-8")).digest()[:8], "big", signed=True)


def _key(text: str) -> str:
    """An address or account as stored: itself, or past 160 characters its SHA-256."""
    return text if len(text) <= 160 else "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _opt_key(text: str | None) -> str | None:
    return None if text is None else _key(text)


class SharedLoginThrottle:
    """:class:`LoginThrottle`'s rules over the sign-ins of every app process, kept in the
    app's database (table ``signin_events``).

    A check reads the sign-ins that can still matter (those of the address, and of the
    account, within the window and the lock) and replays them through a
    :class:`LoginThrottle`, so both give the same answers. Each process also keeps its own
    counts, used when the database cannot be read.

    Args:
        engine: the app's database.
        clock: seconds since the epoch (shared by the processes; a parameter for tests).
        **rules: :class:`LoginThrottle`'s thresholds.
    """

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time, **rules) -> None:
        self.engine, self.clock, self.rules = engine, clock, rules
        self.local = LoginThrottle(clock=lambda: self.clock(), **rules)
        self.horizon_s = self.local.window_s + self.local.lock_s
        self._pruned = 0.0
        self._ready = False

    def _table(self) -> None:
        """Create the table on first use (again after a failure: the database may be back)."""
        if not self._ready:
            upgrade(self.engine, _meta)
            self._ready = True

    def wait_s(self, client: str, account: str | None = None) -> float:
        now = self.clock()
        try:
            self._table()
            with self.engine.connect() as conn:
                return self._replay(conn, client, account, now).wait_s(_key(client), _opt_key(account))
        except SQLAlchemyError as err:
            log.warning("sign-in throttle: the database could not be read (%s); this process's counts are used",
                        type(err).__name__)
            return self.local.wait_s(client, account)

    def reserve(self, client: str, account: str | None = None) -> tuple[float, Attempt | None]:
        """:meth:`LoginThrottle.reserve` over every process: the wait is read and the try
        stored (as :data:`PENDING`) in one transaction that holds the address's and the
        account's lock (PostgreSQL's advisory locks; SQLite's write lock), so simultaneous
        tries from any processes are counted one after another."""
        now = self.clock()
        try:
            self._table()
            with writer(self.engine).begin() as conn:
                if conn.dialect.name == "postgresql":
                    for key in sorted({_key(client), _opt_key(account)} - {None}):
                        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _lock_id(key)})
                wait = self._replay(conn, client, account, now).wait_s(_key(client), _opt_key(account))
                if wait > 0:
                    return wait, None
                row = conn.execute(insert(signin_events).values(
                    at=now, client=_key(client), account=_opt_key(account), ok=PENDING)).inserted_primary_key[0]
                self._prune(conn, now)
        except SQLAlchemyError as err:
            log.warning("sign-in throttle: the database could not be used (%s); this process's counts are used",
                        type(err).__name__)
            return self.local.reserve(client, account)
        _, held = self.local.reserve(client, account, force=True)
        return 0.0, replace(held, row=row)

    def settle(self, attempt: Attempt, outcome: str) -> None:
        """:meth:`LoginThrottle.settle` over every process: the reserved row becomes a right
        or a wrong password, or is deleted (:data:`VOID`)."""
        self.local.settle(attempt, outcome)
        if attempt.row is None:
            return
        try:
            with self.engine.begin() as conn:
                rows = signin_events.c.id == attempt.row
                conn.execute(delete(signin_events).where(rows) if outcome == VOID else
                             signin_events.update().where(rows).values(ok=int(outcome == OK)))
        except SQLAlchemyError as err:  # the try stays counted as pending: a failure (fails closed)
            log.warning("sign-in throttle: a try could not be settled (%s)", type(err).__name__)

    def failed(self, client: str, account: str | None = None) -> None:
        self.local.failed(client, account)
        self._record(client, account, ok=False)

    def succeeded(self, client: str, account: str | None = None) -> None:
        self.local.succeeded(client, account)
        self._record(client, account, ok=True)

    def forget(self) -> None:
        """Forget every sign-in, of every process (all addresses and accounts start afresh)."""
        self.local = LoginThrottle(clock=lambda: self.clock(), **self.rules)
        self._table()
        with self.engine.begin() as conn:
            conn.execute(delete(signin_events))

    def _replay(self, conn: Connection, client: str, account: str | None, now: float) -> LoginThrottle:
        client, account = _key(client), _opt_key(account)
        ev = signin_events.c
        mine = or_(ev.client == client, ev.account == account if account is not None else false())
        rows = conn.execute(select(ev.at, ev.client, ev.account, ev.ok)
                            .where(ev.at > now - self.horizon_s, mine)
                            .order_by(ev.id.desc()).limit(MAX_REPLAYED)).all()
        known = account is not None and conn.execute(
            select(ev.at).where(ev.ok == 1, ev.client == client, ev.account == account, ev.at > now - KNOWN_S)
            .order_by(ev.id.desc()).limit(1)).first()
        at = [now]
        replay = LoginThrottle(clock=lambda: at[0], **self.rules)
        for when, who, what, ok in reversed(rows):
            at[0] = when
            {1: replay.succeeded, PENDING: replay.pending}.get(ok, replay.failed)(who, what)
        at[0] = now
        if known:
            replay.knows(client, account, at=known[0])
        return replay

    def _record(self, client: str, account: str | None, ok: bool) -> None:
        now = self.clock()
        try:
            self._table()
            with self.engine.begin() as conn:
                conn.execute(insert(signin_events).values(at=now, client=_key(client), account=_opt_key(account),
                                                          ok=int(ok)))
                self._prune(conn, now)
        except SQLAlchemyError as err:
            log.warning("sign-in throttle: the database could not be written (%s); this process's counts are used",
                        type(err).__name__)

    def _prune(self, conn: Connection, now: float) -> None:
        if now - self._pruned > 60:  # what can no longer matter goes, about once a minute
            self._pruned = now
            ev = signin_events.c
            conn.execute(delete(signin_events).where(
                or_(ev.at < now - KNOWN_S, (ev.ok != 1) & (ev.at < now - self.horizon_s))))
