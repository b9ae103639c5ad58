"""Page runs of one address take turns: a flood from one address waits on itself, not on
everybody else, and a person's own tabs are slowed, never locked out."""

from __future__ import annotations

import threading
import time

import pytest

from detox_core.deployment.runs import RunShare


def test_an_address_runs_two_at_a_time_and_others_are_not_held_up():
    share = RunShare(2)
    assert share.acquire("203.0.113.7") and share.acquire("203.0.113.7")
    assert not share.acquire("203.0.113.7", blocking=False)  # its third run waits
    assert share.acquire("198.51.100.2", blocking=False)  # another address's run goes at once
    share.release("203.0.113.7")
    assert share.acquire("203.0.113.7", blocking=False)  # a turn freed: the next run of the address goes
    assert share.running("203.0.113.7") == 2 and share.running("198.51.100.2") == 1


def test_waiting_runs_go_in_the_order_they_came():
    share = RunShare(1)
    assert share.acquire("203.0.113.7")
    order, started = [], []

    def run(k: int) -> None:
        started.append(k)
        assert share.acquire("203.0.113.7", wait_s=30)
        order.append(k)
        share.release("203.0.113.7")

    threads = []
    for k in range(5):
        t = threading.Thread(target=run, args=(k,))
        t.start()
        threads.append(t)
        while share.waiting("203.0.113.7") < k + 1:  # each waits before the next comes
            time.sleep(0.01)
    share.release("203.0.113.7")
    for t in threads:
        t.join(timeout=30)
    assert order == [0, 1, 2, 3, 4]
    assert share.running("203.0.113.7") == 0 and share.waiting("203.0.113.7") == 0


def test_a_run_that_waited_too_long_goes_anyway_and_holds_no_turn():
    now = [0.0]
    share = RunShare(1, clock=lambda: now[0])
    assert share.acquire("203.0.113.7")
    ticker = threading.Thread(target=lambda: [time.sleep(0.05) or now.__setitem__(0, now[0] + 1) for _ in range(40)])
    ticker.start()
    t0 = time.monotonic()
    assert not share.acquire("203.0.113.7", wait_s=5)  # five "seconds" of the clock, then on without a turn
    assert time.monotonic() - t0 < 10
    ticker.join()
    assert share.running("203.0.113.7") == 1 and share.waiting("203.0.113.7") == 0


def test_no_limit_takes_no_turns():
    share = RunShare(0)
    assert not any(share.acquire("203.0.113.7", blocking=False) for _ in range(50))
    assert share.running("203.0.113.7") == 0


def test_twenty_runs_of_one_address_leave_another_address_its_share():
    """Twenty busy runs of one address and one run of another: with turns the other's run
    shares the interpreter with two of them, not twenty (measured as the busy runs going at
    once while it works)."""
    share = RunShare(2)
    at_once, busy, lock = [], [0], threading.Lock()
    stop = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            if share.acquire("203.0.113.7", wait_s=30):
                with lock:
                    busy[0] += 1
                time.sleep(0.01)
                with lock:
                    busy[0] -= 1
                share.release("203.0.113.7")

    threads = [threading.Thread(target=flood) for _ in range(20)]
    for t in threads:
        t.start()
    for _ in range(50):
        assert share.acquire("198.51.100.2", blocking=False)
        with lock:
            at_once.append(busy[0])
        share.release("198.51.100.2")
        time.sleep(0.005)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert max(at_once) <= 2


def test_the_turns_are_a_setting(monkeypatch):
    from detox_core import config
    from detox_core.errors import DetoxInputError

    assert config.runs_per_address() == config.DEFAULT_RUNS_PER_ADDRESS
    monkeypatch.setenv("DETOX_RUNS_PER_ADDRESS", "4")
    assert config.runs_per_address() == 4
    monkeypatch.setenv("DETOX_RUNS_PER_ADDRESS", "two")
    with pytest.raises(DetoxInputError, match="DETOX_RUNS_PER_ADDRESS"):
        config.runs_per_address()
