"""Who may spend the organizers' LLM judge: organizers always, visitors only when allowed.

A run of the judge sends requests that the endpoint's owner pays for. One Live scoring
action of an anonymous visitor used to send 31-51 requests (~100k prompt characters), and
a shared link did it again for every viewer. So, by default, only organizers (and the
CLI, and library calls) run it; the organizers may open it to visitors, with a limit of
requests per address per hour and a daily cap for all visitors together (in requests,
and in dollars when the endpoint's prices are set).

The app marks a visitor's run with :func:`visitor_run`; :meth:`LLMJudge.judge
<detox_core.judge.runner.LLMJudge.judge>` asks :func:`charge` before it sends anything,
with the requests it is about to send (answers in the cache are free) and their
estimated cost. Counts are kept per server process, in memory.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields
from typing import Any

from detox_core.errors import DetoxInputError, ScorerUnavailableError

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
            used_hour = sum(n for _t, n in mine)
            used_day = sum(n for _t, n, _c in self._all)
            spent_day = sum(c for _t, _n, c in self._all)
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
            mine.append((now, requests))
            self._all.append((now, requests, cost or 0.0))
            if len(self._by_client) > 10_000:
                self._by_client = {k: v for k, v in self._by_client.items() if v and v[-1][0] > now - HOUR_S}

    def state(self) -> dict[str, Any]:
        """Today's visitor requests and dollars (for the organizers' sidebar)."""
        now = self.clock()
        with self._lock:
            day = [(n, c) for t, n, c in self._all if t > now - DAY_S]
        return {**asdict(self.policy), "requests_today": sum(n for n, _ in day), "usd_today": sum(c for _, c in day)}


_ALLOWANCE = VisitorAllowance()
_visitor: ContextVar[str | None] = ContextVar("llm_judge_visitor", default=None)


def allowance() -> VisitorAllowance:
    """The allowance of this server process."""
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


def charge(requests: int, cost: float | None) -> None:
    """Called by the judge before it sends ``requests`` requests: free outside a visitor's
    run, else counted or refused (:class:`JudgeLimitError`)."""
    client = _visitor.get()
    if client is not None:
        _ALLOWANCE.charge(client, requests, cost)
