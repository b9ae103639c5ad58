"""Sign-in throttling: delays, per-address lockouts and slowed accounts, on a fake clock."""

from __future__ import annotations

from detox_core.deployment.throttle import LoginThrottle


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
    from detox_core.deployment.throttle import MAX_TRACKED

    t, now = make()
    for k in range(MAX_TRACKED + 500):
        t.failed(f"c{k}", f"acct{k}")
    assert len(t._clients) <= MAX_TRACKED and len(t._accounts) <= MAX_TRACKED
    assert t.wait_s(f"c{MAX_TRACKED + 499}") > 0  # the newest are kept


# ---------------------------------------------------------------- shared by the processes


def shared_pair(tmp_path):
    """Two throttles on one database, as two app processes behind the proxy, one clock."""
    from detox_core.db import make_engine
    from detox_core.deployment.throttle import SharedLoginThrottle

    now = [1_800_000_000.0]
    url = f"sqlite:///{tmp_path / 'detox.sqlite'}"
    return (SharedLoginThrottle(make_engine(url), clock=lambda: now[0]),
            SharedLoginThrottle(make_engine(url), clock=lambda: now[0]), now)


def test_guesses_spread_over_processes_count_once(tmp_path):
    """10 wrong passwords from one address alternating between two processes: the second
    process makes it wait after the first process's failure, and five lock it everywhere."""
    one, two, now = shared_pair(tmp_path)
    procs = [one, two]
    checked = 0
    for k in range(10):  # 10 tries in 5 s, alternating
        p = procs[k % 2]
        if p.wait_s("10.0.0.9", "organizer") == 0:
            checked += 1
            p.failed("10.0.0.9", "organizer")
        now[0] += 0.5
    assert checked <= 3  # was 10 with a count per process
    while checked < 5:  # waiting out each delay, alternating
        p = procs[checked % 2]
        now[0] += p.wait_s("10.0.0.9", "organizer")
        assert p.wait_s("10.0.0.9", "organizer") == 0
        p.failed("10.0.0.9", "organizer")
        checked += 1
    now[0] += 60
    assert one.wait_s("10.0.0.9", "organizer") > 800 and two.wait_s("10.0.0.9", "organizer") > 800
    assert one.wait_s("10.0.0.10", "organizer") == 0  # another address is not locked out
    now[0] += 900
    assert two.wait_s("10.0.0.9", "organizer") == 0


def test_shared_answers_equal_one_process_answers(tmp_path):
    """The same sign-ins through the shared throttle and through one in-memory throttle
    give the same waits, accounts under attack and known addresses included."""
    import random

    one, two, now = shared_pair(tmp_path)
    mem = LoginThrottle(clock=lambda: now[0])
    rnd = random.Random(7)
    clients = [f"10.0.{i}.1" for i in range(30)]
    for step in range(400):
        client, account = rnd.choice(clients), rnd.choice(["organizer", "p1:anna", None])
        shared = (one, two)[step % 2]
        wait = shared.wait_s(client, account)
        assert abs(wait - mem.wait_s(client, account)) < 1e-6, step
        if wait == 0:
            if rnd.random() < 0.08:
                shared.succeeded(client, account)
                mem.succeeded(client, account)
            else:
                shared.failed(client, account)
                mem.failed(client, account)
        now[0] += rnd.choice([0.1, 1, 5, 30])


def test_a_database_that_cannot_be_read_falls_back_to_the_processs_own_counts(tmp_path):
    from sqlalchemy import create_engine

    from detox_core.deployment.throttle import SharedLoginThrottle

    now = [1_800_000_000.0]
    gone = SharedLoginThrottle(create_engine(f"sqlite:///{tmp_path / 'missing' / 'no.sqlite'}"),
                               clock=lambda: now[0])
    assert gone.wait_s("a", "organizer") == 0
    gone.failed("a", "organizer")
    assert gone.wait_s("a", "organizer") == 1  # still throttled, by this process


def guard():
    from detox_core.deployment.join_guard import JoinGuard

    now = [0.0]
    clock = lambda: now[0]  # noqa: E731
    return JoinGuard(LoginThrottle(clock=clock), LoginThrottle(clock=clock, **JoinGuard.address_rules())), now


def test_one_annotator_guessing_their_password_does_not_lock_the_others_behind_the_same_address():
    """Round 5: five failed joins of one careless annotator made every annotator join of
    that address (a lab behind one NAT) wait 15 minutes."""
    g, now = guard()
    for _ in range(5):
        now[0] += g.wait("lab", "Code42", "olga")[0]
        g.failed("lab", "Code42", "olga", "password")
    wait, what = g.wait("lab", "code42", "olga")  # the code's case does not matter
    assert wait > 600 and what == "name"
    # Everyone else at the lab joins at once, or after a few seconds at most.
    for name in ("ivan", "petr", "anna"):
        wait, _ = g.wait("lab", "Code42", name)
        assert wait <= g.ADDRESS_DELAY_S
        now[0] += wait
        g.succeeded("lab", "Code42", name)
    # Another address may try olga's name as before.
    assert g.wait("elsewhere", "Code42", "olga")[0] == 0


def test_an_address_guessing_many_names_or_codes_is_stopped_for_all():
    g, now = guard()
    for k in range(g.ADDRESS_FAILURES):
        wait, _ = g.wait("guesser", f"code{k}", f"name{k}")
        assert wait <= g.ADDRESS_DELAY_S  # slowed by seconds, never locked, before the limit
        now[0] += wait
        g.failed("guesser", f"code{k}", f"name{k}", "code" if k % 2 else "password")
    wait, what = g.wait("guesser", "fresh", "fresh-name")
    assert wait > 600 and what == "address"
    assert g.wait("someone-else", "fresh", "fresh-name")[0] == 0
