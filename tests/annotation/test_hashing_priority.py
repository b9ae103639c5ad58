"""Password hashes run on the process's hashing threads, at a lower priority than the pages:
a flood of joins under new names (a script adding a fake annotator a second) takes the cores
the pages leave idle, not an honest annotator's page saves (issue 58 item 5;
``benchmarks/bench_live_attacks.py --attacks new-names --hashing both``)."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from detox_core.annotation import passwords
from detox_core.errors import DetoxInputError


@pytest.fixture()
def fresh_pool(monkeypatch):
    """The hashing threads started afresh for this test (they read the setting once)."""
    monkeypatch.setattr(passwords, "_POOL", None)
    yield
    if passwords._POOL is not None:
        passwords._POOL.shutdown(wait=True)


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


class _Hasher:
    """The real hasher, noting (thread id, niceness) of every hash and check (``seen``); or,
    with ``hash``, that function instead of argon2's."""

    def __init__(self, hash=None) -> None:  # noqa: A002
        self.real, self.seen, self.fake = passwords.PasswordHasher(), [], hash

    def __getattr__(self, name):
        return getattr(self.real, name)

    def hash(self, secret, salt=None):  # noqa: A003
        self.seen.append((threading.get_native_id(), _niceness()))
        return self.fake(secret, salt) if self.fake else self.real.hash(secret, salt=salt)

    def verify(self, stored, secret):
        self.seen.append((threading.get_native_id(), _niceness()))
        return self.real.verify(stored, secret)


def _spy(monkeypatch) -> list[tuple[int, int]]:
    """(thread id, niceness) of every argon2 call, made through the real hasher."""
    hasher = _Hasher()
    monkeypatch.setattr(passwords, "_HASHER", hasher)
    return hasher.seen


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own niceness is Linux's")
def test_hashes_and_checks_run_below_the_pages_priority(monkeypatch, fresh_pool):
    monkeypatch.delenv("DETOX_HASHING_NICE", raising=False)
    seen = _spy(monkeypatch)
    stored = passwords.hash_secret("olgas-own-pw")
    assert passwords.check_secret("olgas-own-pw", stored)
    assert not passwords.check_secret("not-olgas-pw", stored)
    upgraded = passwords.hash_secret("olgas-own-pw", replacing=stored)
    assert passwords.password_id(upgraded) == passwords.password_id(stored)  # the same password, still
    caller = (threading.get_native_id(), _niceness())
    assert len(seen) == 4
    for tid, nice in seen:
        assert tid != caller[0], "a hash ran on the page's own thread"
        assert nice == min(19, caller[1] + 10), f"a hash ran at niceness {nice}, the page at {caller[1]}"
    assert _niceness() == caller[1]  # the caller's priority is untouched


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own niceness is Linux's")
def test_niceness_zero_hashes_at_the_pages_priority(monkeypatch, fresh_pool):
    monkeypatch.setenv("DETOX_HASHING_NICE", "0")
    seen = _spy(monkeypatch)
    passwords.hash_secret("olgas-own-pw")
    assert [nice for _tid, nice in seen] == [_niceness()]


def test_no_more_hashes_at_once_than_the_hashing_threads(monkeypatch, fresh_pool):
    """Thirty joins at once would take 2 GB (64 MiB each) and every core: they wait their turn."""
    monkeypatch.setattr(passwords, "hashing_threads", lambda: 2)
    running, most = 0, 0
    lock = threading.Lock()

    def slow_hash(secret, salt=None):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return f"$argon2id$fake${secret}"

    monkeypatch.setattr(passwords, "_HASHER", _Hasher(slow_hash))
    results: list[str] = []
    threads = [threading.Thread(target=lambda k=k: results.append(passwords.hash_secret(f"pw-{k}")))
               for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(f"$argon2id$fake$pw-{k}" for k in range(12))
    assert most == 2


def test_one_hashing_thread_per_four_cores(monkeypatch):
    for cores, threads in ((1, 1), (2, 1), (4, 1), (8, 2), (64, 16)):
        monkeypatch.setattr(os, "cpu_count", lambda cores=cores: cores)
        assert passwords.hashing_threads() == threads


@pytest.mark.parametrize("value", ["ten", "-1", "20"])
def test_a_hashing_niceness_that_cannot_be_read_stops_the_app(monkeypatch, fresh_pool, value):
    from detox_core.ui.app.settings_check import settings_problem

    monkeypatch.setenv("DETOX_HASHING_NICE", value)
    assert "DETOX_HASHING_NICE" in settings_problem(files=[])
    with pytest.raises(DetoxInputError, match="DETOX_HASHING_NICE"):  # and a join says why, not a broken pool
        passwords.hash_secret("olgas-own-pw")
