"""Page runs of one client address take turns: a few at once, the others wait in order.

Each tab's page run is a thread of the app process, and the threads of one process share
one interpreter lock: twenty tabs of one address opening, joining and reopening as fast as
they are answered (a flood of made-up annotators) each took a twentieth of the process, and
an honest annotator's page save went from 0.3 s to 3.9 s median (one process, two cores;
``benchmarks/bench_live_attacks.py``). Counting sessions and throttling joins do not help
there: every refusal is a page run too.

So at most :func:`detox_core.config.runs_per_address` runs of one address (the key the other
per-address limits use: IPv6 by /64) go at a time; the address's next runs wait, first come
first served, for up to :data:`WAIT_S` seconds each, and then go anyway (a person's third tab
is slowed, never refused: their own long job in two other tabs must not lock them out). An
address's tabs thus take at most that many turns of the interpreter beside everybody else's,
and a flood of runs from one address waits mostly on itself. A long job (a whole submission
scored) gives its turn back when it starts. The runs of a signed-in organizer, of a signed-in
annotator (joins take turns), of a person on the server's own machine (loopback, no proxy)
and of an unknown client (a test harness) do not take turns.

The total work is the same: runs that would have shared the interpreter twenty ways run a
few at a time, so a classroom behind one address gets its pages in about the time it would
have anyway, in order.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

#: Longest wait of one run for its address's turn (seconds); then it runs anyway.
WAIT_S = 10.0


class RunShare:
    """Turns of the page runs of each client address, in one process.

    Args:
        per_address: runs of one address at a time (0 = no limit).
        clock: seconds, monotonic (a parameter for tests).
    """

    def __init__(self, per_address: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_address, self.clock = per_address, clock
        self._cond = threading.Condition()
        self._running: dict[str, int] = {}
        self._queue: dict[str, deque[object]] = {}

    def acquire(self, client: str, wait_s: float = WAIT_S, blocking: bool = True) -> bool:
        """Take a turn for ``client``: True once it has one (then :meth:`release` it),
        False when ``wait_s`` passed first (or at once, without ``blocking``): run without one."""
        if self.per_address <= 0:
            return False
        ticket = object()
        with self._cond:
            queue = self._queue.setdefault(client, deque())
            queue.append(ticket)
            deadline = self.clock() + wait_s
            try:
                while not (queue[0] is ticket and self._running.get(client, 0) < self.per_address):
                    left = deadline - self.clock()
                    if not blocking or left <= 0:
                        return False
                    self._cond.wait(min(left, 1.0))
                self._running[client] = self._running.get(client, 0) + 1
                return True
            finally:
                queue.remove(ticket)
                if not queue:
                    del self._queue[client]
                self._cond.notify_all()

    def release(self, client: str) -> None:
        with self._cond:
            left = self._running.get(client, 0) - 1
            if left > 0:
                self._running[client] = left
            else:
                self._running.pop(client, None)
            self._cond.notify_all()

    def running(self, client: str) -> int:
        with self._cond:
            return self._running.get(client, 0)

    def waiting(self, client: str) -> int:
        with self._cond:
            return len(self._queue.get(client, ()))
