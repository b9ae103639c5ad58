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
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

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
            if account is None:
                return
            a = self._accounts.pop(account, None) or _Account()
            self._accounts[account] = a
            a.known.pop(client, None)
            a.known[client] = now
            while len(a.known) > MAX_KNOWN_PER_ACCOUNT:
                a.known.popitem(last=False)
            a.next_try.pop(client, None)
            while len(self._accounts) > MAX_TRACKED:
                self._accounts.popitem(last=False)
