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
from dataclasses import dataclass, field

from sqlalchemy import Column, Float, Index, Integer, MetaData, String, Table, delete, false, insert, or_, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from detox_core.db import upgrade

log = logging.getLogger(__name__)

#: Addresses and accounts remembered at most (each table).
MAX_TRACKED = 10_000
#: Addresses remembered per account as having signed in to it.
MAX_KNOWN_PER_ACCOUNT = 64


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
        clock: seconds, monotonic (a parameter for tests).
    """

    def __init__(self, max_failures: int = 5, window_s: float = 900, lock_s: float = 900,
                 max_delay_s: float = 60, account_failures: int = 20, account_slow_s: float = 30,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_failures, self.window_s, self.lock_s = max_failures, window_s, lock_s
        self.max_delay_s, self.account_failures, self.account_slow_s = max_delay_s, account_failures, account_slow_s
        self.clock = clock
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
        now = self.clock()
        with self._lock:
            waits = [0.0]
            c = self._clients.get(client)
            if c is not None:
                waits += [c.locked_until - now, c.next_try - now]
            a = self._accounts.get(account) if account is not None else None
            if a is not None and client not in a.known and self._recent(a.failures, now) >= self.account_failures:
                waits.append(a.next_try.get(client, 0.0) - now)
            return max(waits)

    def failed(self, client: str, account: str | None = None) -> None:
        """Record a wrong password (or a made-up access code) of ``client``."""
        now = self.clock()
        with self._lock:
            c = self._clients.pop(client, None) or _Client()
            self._clients[client] = c  # most recent last
            self._recent(c.failures, now)
            c.failures.append(now)
            c.next_try = now + min(2.0 ** (len(c.failures) - 1), self.max_delay_s)
            if len(c.failures) >= self.max_failures:
                c.locked_until = now + self.lock_s
            while len(self._clients) > MAX_TRACKED:
                self._clients.popitem(last=False)
            if account is None:
                return
            a = self._accounts.pop(account, None) or _Account()
            self._accounts[account] = a
            self._recent(a.failures, now)
            a.failures.append(now)
            if len(a.failures) >= self.account_failures:
                a.next_try[client] = now + self.account_slow_s
                if len(a.next_try) > MAX_TRACKED:
                    a.next_try = {k: v for k, v in a.next_try.items() if v > now}
            while len(self._accounts) > MAX_TRACKED:
                self._accounts.popitem(last=False)

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
    Column("ok", Integer, nullable=False),  # 1: a right password; 0: a wrong one or a made-up code
    Index("ix_signin_events_client_at", "client", "at"),
    Index("ix_signin_events_account_at", "account", "at"),
)
#: How long an address that signed in to an account stays known to it (seconds).
KNOWN_S = 90 * 24 * 3600
#: The most sign-ins one check reads back (an account guessed from very many addresses).
MAX_REPLAYED = 5_000


def _key(text: str) -> str:
    """An address or account as stored: itself, or past 160 characters its SHA-256."""
    return text if len(text) <= 160 else "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


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
            return self._replay(client, account, now).wait_s(client, account)
        except SQLAlchemyError as err:
            log.warning("sign-in throttle: the database could not be read (%s); this process's counts are used",
                        type(err).__name__)
            return self.local.wait_s(client, account)

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

    def _replay(self, client: str, account: str | None, now: float) -> LoginThrottle:
        self._table()
        client, account = _key(client), None if account is None else _key(account)
        ev = signin_events.c
        mine = or_(ev.client == client, ev.account == account if account is not None else false())
        with self.engine.connect() as conn:
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
            (replay.succeeded if ok else replay.failed)(who, what)
        at[0] = now
        if known:
            replay.knows(client, account, at=known[0])
        return replay

    def _record(self, client: str, account: str | None, ok: bool) -> None:
        now = self.clock()
        try:
            self._table()
            with self.engine.begin() as conn:
                conn.execute(insert(signin_events).values(at=now, client=_key(client),
                                                          account=None if account is None else _key(account),
                                                          ok=int(ok)))
                if now - self._pruned > 60:  # what can no longer matter goes, about once a minute
                    self._pruned = now
                    ev = signin_events.c
                    conn.execute(delete(signin_events).where(
                        or_(ev.at < now - KNOWN_S, (ev.ok == 0) & (ev.at < now - self.horizon_s))))
        except SQLAlchemyError as err:
            log.warning("sign-in throttle: the database could not be written (%s); this process's counts are used",
                        type(err).__name__)


@dataclass
class JoinGuard:
    """Annotators' joins: a throttle that punishes guessing, not typos.

    Only two failures count: a wrong password for a name that exists in the project
    (someone may be guessing it) and an access code no project has (someone may be guessing
    codes). A short password, a refused name, a closed project are said and cost nothing.

    - Per (address, name): five wrong passwords for one name from one address lock that
      name, from that address, for 15 minutes (1, 2, 4, 8 s between the first ones). The
      others behind the same address (a lab behind one NAT) join as before.
    - Per address: :data:`ADDRESS_FAILURES` counted failures within 15 minutes (over every
      name and code) stop the address's joins for 15 minutes; each costs at most
      :data:`ADDRESS_DELAY_S` seconds before then.
    - Per name, from every address: :class:`LoginThrottle`'s account rule (20 wrong passwords
      from several addresses slow the addresses the name never joined from).

    Args:
        pair: the throttle of (address, name) pairs, with the name's account rule.
        address: the throttle of whole addresses (its thresholds: :meth:`address_rules`).
    """

    pair: LoginThrottle | SharedLoginThrottle
    address: LoginThrottle | SharedLoginThrottle

    #: Counted failures of one address (every name and code) that stop its joins.
    ADDRESS_FAILURES = 20
    #: The longest wait of an address between two counted failures before then.
    ADDRESS_DELAY_S = 4.0

    @classmethod
    def address_rules(cls) -> dict:
        return {"max_failures": cls.ADDRESS_FAILURES, "max_delay_s": cls.ADDRESS_DELAY_S}

    @staticmethod
    def keys(client: str, code: str, name_key: str) -> tuple[str, str, str]:
        """(pair key, address key, account key) of a join."""
        code = code.strip().lower()
        return f"annotator:{client}:{name_key}", f"annotator-address:{client}", f"annotator:{code}:{name_key}"

    def wait(self, client: str, code: str, name_key: str) -> tuple[float, str]:
        """Seconds to wait before this join is tried (0: go ahead), and what is slowed:
        ``"name"`` (this name from this address) or ``"address"`` (every join from it)."""
        pair, address, account = self.keys(client, code, name_key)
        by_address = self.address.wait_s(address)
        by_name = self.pair.wait_s(pair, account)
        return (by_name, "name") if by_name > 0 and by_name >= by_address else (by_address, "address")

    def failed(self, client: str, code: str, name_key: str, kind: str) -> None:
        """A counted failure: ``kind`` "password" (a wrong password for an existing name)
        or "code" (an unknown access code)."""
        pair, address, account = self.keys(client, code, name_key)
        if kind == "password":
            self.pair.failed(pair, account)
        self.address.failed(address)

    def succeeded(self, client: str, code: str, name_key: str) -> None:
        pair, _address, account = self.keys(client, code, name_key)
        self.pair.succeeded(pair, account)
