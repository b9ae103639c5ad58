"""Sign-in throttling: delays, per-address lockouts and slowed accounts, on a fake clock."""

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


def test_many_addresses_failing_lock_nobody_else():
    """30 wrong passwords or made-up access codes from anywhere used to lock every sign-in
    of the server for 5 minutes; now they cost only the addresses that sent them."""
    t, now = make()
    for k in range(30):
        t.failed(f"client-{k}")  # made-up access codes: no account
        t.failed(f"client-{k}b", "organizer")  # wrong organizer passwords
    assert t.wait_s("annotator-at-home") == 0
    assert t.wait_s("client-0") > 0  # the guessers wait


def test_an_account_under_attack_lets_the_right_person_in():
    t, now = make()
    t.succeeded("organizer-office", "organizer")
    for k in range(40):  # guessed from 40 addresses
        t.failed(f"guesser-{k}", "organizer")
    # From the address that signed in before: at once.
    assert t.wait_s("organizer-office", "organizer") == 0
    # From a new address: checked at once, and a new address that fails waits 30 s for
    # this account (not locked: the right password gets in on the next try).
    assert t.wait_s("organizer-laptop", "organizer") == 0
    t.failed("organizer-laptop", "organizer")
    assert 1 < t.wait_s("organizer-laptop", "organizer") <= 30
    now[0] += 30
    assert t.wait_s("organizer-laptop", "organizer") == 0
    # A guesser is slowed on this account beyond its own address delay ...
    now[0] += 5
    t.failed("guesser-39", "organizer")
    assert t.wait_s("guesser-39", "organizer") >= 30 - 1e-9
    # ... other accounts are untouched, and the attack ends with its window.
    assert t.wait_s("guesser-39b", "annotator:code:zoya") == 0
    now[0] += 901
    assert t.wait_s("organizer-laptop", "organizer") == 0


def test_memory_stays_bounded_under_many_addresses():
    from detox_core.ui.throttle import MAX_TRACKED

    t, now = make()
    for k in range(MAX_TRACKED + 500):
        t.failed(f"c{k}", f"acct{k}")
    assert len(t._clients) <= MAX_TRACKED and len(t._accounts) <= MAX_TRACKED
    assert t.wait_s(f"c{MAX_TRACKED + 499}") > 0  # the newest are kept
