"""Sign-in throttling: delays, per-client and global lockouts, on a fake clock."""

from __future__ import annotations

from detox_core.ui.throttle import LoginThrottle


def make():
    now = [0.0]
    return LoginThrottle(clock=lambda: now[0]), now


def test_each_failure_doubles_the_wait_of_that_client_only():
    t, now = make()
    assert t.wait_s("a") == 0
    t.failed("a")
    assert t.wait_s("a") == 1 and t.wait_s("b") == 0
    now[0] += 1
    t.failed("a")
    assert t.wait_s("a") == 2


def test_sixty_fast_tries_are_mostly_refused_and_the_lock_ends():
    t, now = make()
    checked = 0
    for _ in range(60):  # 60 tries in 11 s
        if t.wait_s("a") == 0:
            checked += 1
            t.failed("a")
        now[0] += 11 / 60
    assert checked <= 5
    while checked < 5:  # whoever waits out each delay reaches the fifth failure
        now[0] += t.wait_s("a")
        t.failed("a")
        checked += 1
    now[0] += 100
    assert t.wait_s("a") > 0  # locked for 15 minutes
    now[0] += 900
    assert t.wait_s("a") == 0
    t.succeeded("a")
    assert t.wait_s("a") == 0


def test_many_clients_together_lock_every_sign_in():
    t, now = make()
    for k in range(30):
        t.failed(f"client-{k}")
    assert t.wait_s("a-new-one") > 0
    now[0] += 301
    assert t.wait_s("a-new-one") == 0
