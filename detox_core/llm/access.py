"""Who may spend the organizers' LLM judge: organizers always, visitors only when allowed.

A run of the judge sends requests that the endpoint's owner pays for. One Live scoring
action of an anonymous visitor used to send 31-51 requests (~100k prompt characters), and
a shared link did it again for every viewer. So, by default, only organizers (and the
CLI, and library calls) run it; the organizers may open it to visitors, with a limit of
requests per address per hour and a daily cap for all visitors together (in requests,
and in dollars when the endpoint's prices are set).

The app marks a visitor's run with :func:`visitor_run`; :meth:`LLMJudge.judge
<detox_core.llm.runner.LLMJudge.judge>` asks :func:`charge` before it sends anything,
with the requests it is about to send (answers in the cache are free) and their
estimated cost. The app keeps the counts in its database (:class:`SharedVisitorAllowance`),
so every app process behind the proxy counts the same requests: an address gets its hourly
requests once, not once per process. The library's default (the CLI, a notebook) counts in
memory. The limits themselves are each process's: ``secrets.toml``, or an organizer's
change in the sidebar of the process it was made on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields
from typing import Any

from sqlalchemy import Column, Float, Index, Integer, MetaData, String, Table, delete, func, insert, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from detox_core.db import upgrade, writer
from detox_core.errors import DetoxInputError, ScorerUnavailableError

log = logging.getLogger(__name__)

#: Seconds in the windows of the limits.
HOUR_S, DAY_S = 3600.0, 86400.0


class JudgeLimitError(ScorerUnavailableError):
    """A visitor's run the judge's limits refuse (nothing was sent)."""


@dataclass(frozen=True)
class VisitorPolicy:
    """Whether visitors may run the LLM judge, and within which limits.

    Attributes:
        visitors: visitors may run it (off by default: organizers only).
        requests_per_hour: requests one address may send in an hour.
        daily_requests: requests all visitors together may send in a day.
        daily_usd: dollars all visitors together may spend in a day (estimated from
            the endpoint's prices; None = no dollar cap, the request cap still holds).
    """

    visitors: bool = False
    requests_per_hour: int = 100
    daily_requests: int = 1000
    daily_usd: float | None = 1.0

    def validate(self) -> "VisitorPolicy":
        if self.requests_per_hour < 0 or self.daily_requests < 0 or (self.daily_usd is not None and self.daily_usd < 0):
            raise DetoxInputError("the LLM judge's visitor limits cannot be negative")
        return self

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> "VisitorPolicy":
        """From ``[llm_judge]`` keys ``visitors``, ``visitor_requests_per_hour``,
        ``visitor_daily_requests``, ``visitor_daily_usd``."""
        kw: dict[str, Any] = {}
        for f in fields(cls):
            key = f.name if f.name == "visitors" else f"visitor_{f.name}"
            if key not in values or values[key] in (None, ""):
                continue
            raw = values[key]
            try:
                if f.name == "visitors":
                    kw[f.name] = raw if isinstance(raw, bool) else str(raw).strip().lower() in {"1", "true", "yes", "on"}
                elif f.name == "daily_usd":
                    kw[f.name] = float(raw)
                else:
                    kw[f.name] = int(raw)
            except (TypeError, ValueError):
                raise DetoxInputError(f"LLM judge setting {key} must be a number, got {raw!r}") from None
        return cls(**kw).validate()


def check(p: VisitorPolicy, requests: int, cost: float | None, used_hour: int, used_day: int,
          spent_day: float) -> None:
    """Refuse a visitor's run of ``requests`` (costing ``cost``) that would pass a limit,
    given what the address sent in the last hour and all visitors in the last day."""
    if used_hour + requests > p.requests_per_hour:
        raise JudgeLimitError(
            f"This run needs {requests:,} LLM judge requests; visitors may send {p.requests_per_hour:,} an "
            f"hour from one address and yours sent {used_hour:,}. Score fewer pairs, or wait.")
    if used_day + requests > p.daily_requests:
        raise JudgeLimitError(
            f"The visitors' LLM judge requests for today are used up ({used_day:,} of {p.daily_requests:,}); "
            f"this run needs {requests:,}. Try again tomorrow, or choose another metric preset.")
    if p.daily_usd is not None and cost is not None and spent_day + cost > p.daily_usd:
        raise JudgeLimitError(
            f"The visitors' LLM judge budget for today is spent (${spent_day:.2f} of ${p.daily_usd:.2f}; "
            f"this run would cost about ${cost:.2f}). Try again tomorrow, or choose another metric preset.")


class VisitorAllowance:
    """The visitors' spending of one server process."""

    def __init__(self, policy: VisitorPolicy | None = None, clock: Callable[[], float] = time.time) -> None:
        self.policy = policy or VisitorPolicy()
        self.clock = clock
        self._by_client: dict[str, deque[tuple[float, int]]] = {}
        self._all: deque[tuple[float, int, float]] = deque()  # (time, requests, dollars)
        self._lock = threading.Lock()

    def set_policy(self, policy: VisitorPolicy) -> None:
        with self._lock:
            self.policy = policy.validate()

    def charge(self, client: str, requests: int, cost: float | None) -> None:
        """Count a visitor's run of ``requests`` requests costing ``cost`` dollars, or
        refuse it whole (nothing is counted then).

        Raises:
            JudgeLimitError: visitors may not run the judge, or the run would pass a limit.
        """
        p = self.policy
        if not p.visitors:
            raise JudgeLimitError("The LLM judge of this server is for its organizers: each run is paid for. "
                                  "Choose another metric preset, or ask the organizers.")
        if requests <= 0:
            return
        now = self.clock()
        with self._lock:
            mine = self._by_client.setdefault(client, deque())
            while mine and mine[0][0] <= now - HOUR_S:
                mine.popleft()
            while self._all and self._all[0][0] <= now - DAY_S:
                self._all.popleft()
            check(p, requests, cost, used_hour=sum(n for _t, n in mine), used_day=sum(n for _t, n, _c in self._all),
                  spent_day=sum(c for _t, _n, c in self._all))
            mine.append((now, requests))
            self._all.append((now, requests, cost or 0.0))
            if len(self._by_client) > 10_000:
                self._by_client = {k: v for k, v in self._by_client.items() if v and v[-1][0] > now - HOUR_S}

    def refund(self, client: str, requests: int, cost: float | None) -> None:
        """Give back what a charged run did not send (a run reserves its worst case, every
        question re-asked, and returns the rest when it ends)."""
        if requests <= 0 and not cost:
            return
        now = self.clock()
        with self._lock:
            self._by_client.setdefault(client, deque()).append((now, -max(requests, 0)))
            self._all.append((now, -max(requests, 0), -max(cost or 0.0, 0.0)))

    def used(self, client: str) -> dict[str, Any]:
        """What ``client`` and all visitors have sent: requests in the last hour from the
        address, requests and dollars today (for the visitor's page)."""
        now = self.clock()
        with self._lock:
            hour = sum(n for t, n in self._by_client.get(client, ()) if t > now - HOUR_S)
            day = [(n, c) for t, n, c in self._all if t > now - DAY_S]
        return {"hour": hour, "requests_today": sum(n for n, _ in day), "usd_today": sum(c for _, c in day)}

    def state(self) -> dict[str, Any]:
        """Today's visitor requests and dollars (for the organizers' sidebar)."""
        now = self.clock()
        with self._lock:
            day = [(n, c) for t, n, c in self._all if t > now - DAY_S]
        return {**asdict(self.policy), "requests_today": sum(n for n, _ in day), "usd_today": sum(c for _, c in day)}


_meta = MetaData()
visitor_spend = Table(
    "judge_visitor_spend", _meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),  # seconds since the epoch
    Column("client", String(200), nullable=False),
    Column("requests", Integer, nullable=False),
    Column("usd", Float, nullable=False),
    Index("ix_judge_visitor_spend_client_at", "client", "at"),
    Index("ix_judge_visitor_spend_at", "at"),
)
#: The PostgreSQL advisory lock around one visitor charge (check, then count).
_CHARGE_LOCK = 0x6A75646765  # "judge"


class SharedVisitorAllowance(VisitorAllowance):
    """The visitors' spending of every app process sharing the app's database (table
    ``judge_visitor_spend``): a charge checks and counts in one transaction that the
    processes take in turn. Where the database cannot be used, the process's own counts
    decide (logged), never no limit.

    Args:
        engine: the app's database.
        policy: this process's limits.
        clock: seconds since the epoch (a parameter for tests).
    """

    def __init__(self, engine: Engine, policy: VisitorPolicy | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(policy, clock)
        self.engine = engine
        self._ready = False
        self._pruned = 0.0

    def _table(self) -> None:
        if not self._ready:
            upgrade(self.engine, _meta)
            self._ready = True

    def charge(self, client: str, requests: int, cost: float | None) -> None:
        p = self.policy
        if not p.visitors or requests <= 0:
            super().charge(client, requests, cost)  # the refusal to visitors, or nothing to count
            return
        now, col = self.clock(), visitor_spend.c
        try:
            self._table()
            with writer(self.engine).begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _CHARGE_LOCK})
                used_hour = conn.execute(select(func.coalesce(func.sum(col.requests), 0))
                                         .where(col.client == client[:200], col.at > now - HOUR_S)).scalar_one()
                used_day, spent_day = conn.execute(select(func.coalesce(func.sum(col.requests), 0),
                                                          func.coalesce(func.sum(col.usd), 0.0))
                                                   .where(col.at > now - DAY_S)).one()
                check(p, requests, cost, int(used_hour), int(used_day), float(spent_day))  # a refusal rolls back
                conn.execute(insert(visitor_spend).values(at=now, client=client[:200], requests=requests,
                                                          usd=cost or 0.0))
                if now - self._pruned > 600:
                    self._pruned = now
                    conn.execute(delete(visitor_spend).where(col.at < now - DAY_S))
        except SQLAlchemyError as err:
            log.warning("LLM judge allowance: the database could not be used (%s); this process's counts decide",
                        type(err).__name__)
            super().charge(client, requests, cost)

    def refund(self, client: str, requests: int, cost: float | None) -> None:
        if requests <= 0 and not cost:
            return
        try:
            self._table()
            with writer(self.engine).begin() as conn:
                conn.execute(insert(visitor_spend).values(at=self.clock(), client=client[:200],
                                                          requests=-max(requests, 0), usd=-max(cost or 0.0, 0.0)))
        except SQLAlchemyError as err:
            log.warning("LLM judge allowance: the database could not be used (%s); the refund is this process's",
                        type(err).__name__)
            super().refund(client, requests, cost)

    def used(self, client: str) -> dict[str, Any]:
        now, col = self.clock(), visitor_spend.c
        try:
            self._table()
            with self.engine.connect() as conn:
                hour = conn.execute(select(func.coalesce(func.sum(col.requests), 0))
                                    .where(col.client == client[:200], col.at > now - HOUR_S)).scalar_one()
                n, usd = conn.execute(select(func.coalesce(func.sum(col.requests), 0),
                                             func.coalesce(func.sum(col.usd), 0.0)).where(col.at > now - DAY_S)).one()
        except SQLAlchemyError:
            return super().used(client)
        return {"hour": int(hour), "requests_today": int(n), "usd_today": float(usd)}

    def state(self) -> dict[str, Any]:
        now, col = self.clock(), visitor_spend.c
        try:
            self._table()
            with self.engine.connect() as conn:
                n, usd = conn.execute(select(func.coalesce(func.sum(col.requests), 0),
                                             func.coalesce(func.sum(col.usd), 0.0)).where(col.at > now - DAY_S)).one()
        except SQLAlchemyError:
            return super().state()
        return {**asdict(self.policy), "requests_today": int(n), "usd_today": float(usd)}


_ALLOWANCE: VisitorAllowance = VisitorAllowance()
_visitor: ContextVar[str | None] = ContextVar("llm_judge_visitor", default=None)


def allowance() -> VisitorAllowance:
    """The allowance of this server process (shared by the processes once the app called
    :func:`share`)."""
    return _ALLOWANCE


def share(engine: Engine) -> VisitorAllowance:
    """From now on, count the visitors' requests in ``engine``'s database, with the limits
    this process has now (the app calls it once per process)."""
    global _ALLOWANCE
    if not (isinstance(_ALLOWANCE, SharedVisitorAllowance) and _ALLOWANCE.engine is engine):
        _ALLOWANCE = SharedVisitorAllowance(engine, _ALLOWANCE.policy)
    return _ALLOWANCE


@contextmanager
def visitor_run(client: str) -> Iterator[None]:
    """Runs of the judge inside are a visitor's (from address ``client``): charged, or
    refused, by :func:`charge`."""
    token = _visitor.set(client)
    try:
        yield
    finally:
        _visitor.reset(token)


def mark(client: str | None) -> None:
    """From now on in this thread, runs of the judge are visitor ``client``'s (None: an
    organizer's). The app calls it at the top of every page run."""
    _visitor.set(client)


def visitor() -> str | None:
    """The visitor this run is for (None: an organizer, the CLI, a library call)."""
    return _visitor.get()


def charge(requests: int, cost: float | None) -> str | None:
    """Called by the judge before it sends at most ``requests`` requests (re-asks
    included): free outside a visitor's run, else counted or refused
    (:class:`JudgeLimitError`). Returns the visitor charged (None: nobody), for
    :func:`refund`."""
    client = _visitor.get()
    if client is not None:
        allowance().charge(client, requests, cost)
    return client


def refund(client: str | None, requests: int, cost: float | None) -> None:
    """After a charged run: give back the requests (and dollars) it reserved but did not send."""
    if client is not None:
        allowance().refund(client, requests, cost)
