"""Sign-in throttling: wrong passwords cost time and lock the door, without blocking.

A failed sign-in makes the next try from the same client wait (1, 2, 4 … seconds, at
most 60); five failures within 15 minutes lock that client out for 15 minutes, and 30
failures from all clients together within 15 minutes lock every password sign-in for 5
minutes (an attacker can change addresses). A refused try is answered at once with the
time to wait: no thread sleeps, so other users of the server never wait for an attacker.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Client:
    failures: deque[float] = field(default_factory=deque)
    next_try: float = 0.0
    locked_until: float = 0.0


class LoginThrottle:
    """Counts failed sign-ins per client and overall.

    Args:
        max_failures: failures of one client within ``window_s`` that lock it.
        lock_s: how long a locked client waits.
        global_failures / global_lock_s: the same for all clients together.
        clock: seconds, monotonic (a parameter for tests).
    """

    def __init__(self, max_failures: int = 5, window_s: float = 900, lock_s: float = 900,
                 global_failures: int = 30, global_lock_s: float = 300, max_delay_s: float = 60,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_failures, self.window_s, self.lock_s = max_failures, window_s, lock_s
        self.global_failures, self.global_lock_s, self.max_delay_s = global_failures, global_lock_s, max_delay_s
        self.clock = clock
        self._clients: dict[str, _Client] = {}
        self._all: deque[float] = deque()
        self._global_until = 0.0
        self._lock = threading.Lock()

    def wait_s(self, client: str) -> float:
        """Seconds ``client`` must wait before its password is checked (0 = go ahead)."""
        now = self.clock()
        with self._lock:
            c = self._clients.get(client)
            waits = [self._global_until - now]
            if c is not None:
                waits += [c.locked_until - now, c.next_try - now]
            return max(0.0, *waits)

    def failed(self, client: str) -> None:
        """Record a wrong password of ``client``."""
        now = self.clock()
        with self._lock:
            if len(self._clients) > 10_000:  # bounded: forget clients whose window passed
                self._clients = {k: v for k, v in self._clients.items()
                                 if v.failures and v.failures[-1] > now - self.window_s}
            c = self._clients.setdefault(client, _Client())
            c.failures.append(now)
            while c.failures and c.failures[0] <= now - self.window_s:
                c.failures.popleft()
            c.next_try = now + min(2.0 ** (len(c.failures) - 1), self.max_delay_s)
            if len(c.failures) >= self.max_failures:
                c.locked_until = now + self.lock_s
            self._all.append(now)
            while self._all and self._all[0] <= now - self.window_s:
                self._all.popleft()
            if len(self._all) >= self.global_failures:
                self._global_until = now + self.global_lock_s

    def succeeded(self, client: str) -> None:
        """A right password: the client's failures are forgotten."""
        with self._lock:
            self._clients.pop(client, None)
