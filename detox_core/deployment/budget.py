"""Time budgets per client address: what one address may take of a shared engine in an hour.

Embedding texts for Find similar holds the engine that every session's searches and the
embedded preset's scores use: 800 texts cost 87 CPU-seconds on a two-core machine. A
visitor's address may therefore use :class:`TimeBudget`'s seconds within any hour; a build
that would pass them is refused with the time left, and what a build took is charged when
it ends. The counts are the process's own (a deployment's processes each give an address
its budget).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

#: The window of a budget (seconds).
HOUR_S = 3600.0
#: Addresses remembered at most (the least recently charged are forgotten first).
MAX_TRACKED = 10_000


class TimeBudget:
    """Seconds of a shared engine each client address may use within an hour.

    Args:
        seconds_per_hour: the budget of one address.
        clock: seconds, monotonic (a parameter for tests).
    """

    def __init__(self, seconds_per_hour: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds_per_hour, self.clock = float(seconds_per_hour), clock
        self._spent: OrderedDict[str, deque[tuple[float, float]]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[tuple[float, float]]:
        spent = self._spent.get(client)
        if spent is None:
            return deque()
        while spent and spent[0][0] <= now - HOUR_S:
            spent.popleft()
        return spent

    def left(self, client: str) -> float:
        """Seconds ``client`` may still use this hour."""
        with self._lock:
            used = sum(s for _t, s in self._recent(client, self.clock()))
        return max(self.seconds_per_hour - used, 0.0)

    def charge(self, client: str, seconds: float) -> None:
        """Count ``seconds`` used by ``client`` now (a negative number gives back what a
        booking counted beyond what was used)."""
        if seconds == 0:
            return
        now = self.clock()
        with self._lock:
            spent = self._spent.pop(client, None) or deque()
            spent.append((now, float(seconds)))
            self._spent[client] = spent
            while len(self._spent) > MAX_TRACKED:
                self._spent.popitem(last=False)
