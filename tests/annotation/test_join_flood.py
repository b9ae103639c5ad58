"""Joins do their argon2 work outside the store's write lock: a flood of joins (each hash
costs tens of milliseconds and 64 MiB) no longer holds up every other annotator's saves."""

from __future__ import annotations

import threading
import time

import pytest

from detox_core.annotation.store import Settings, people
from detox_core.errors import WrongSecretError
from tests.annotation.test_store import make_pairs

SLOW_S = 0.8  # a password hash made this slow: a write waiting behind it would show


@pytest.fixture()
def slow_hashing(monkeypatch):
    """argon2 made slow; ``started`` is set when a hash or check begins."""
    started = threading.Event()
    real_hash, real_check = people.hash_secret, people.check_secret

    def slow_hash(secret, replacing=None):
        started.set()
        time.sleep(SLOW_S)
        return real_hash(secret, replacing)

    def slow_check(secret, stored):
        started.set()
        time.sleep(SLOW_S)
        return real_check(secret, stored)

    monkeypatch.setattr(people, "hash_secret", slow_hash)
    monkeypatch.setattr(people, "check_secret", slow_check)
    return started


def project(store):
    p = store.create_project("flood", ["toxicity"], make_pairs(4),
                             settings=Settings(page_size=4, controls_per_page=0, training=False))
    return p, store.join(p.access_code, "Olga", "olgas-own-pw", client="198.51.100.7")


@pytest.mark.parametrize("who", ["a new name", "a returning name", "a wrong password"])
def test_a_join_hashes_outside_the_write_lock(store, slow_hashing, who):
    p, olga = project(store)
    name, secret = {"a new name": ("Newcomer", "newcomers-pw"), "a returning name": ("Olga", "olgas-own-pw"),
                    "a wrong password": ("Olga", "not-olgas-pw")}[who]
    errors: list[BaseException] = []

    def join() -> None:
        try:
            store.join(p.access_code, name, secret, client="203.0.113.40")
        except WrongSecretError as err:
            errors.append(err)

    t = threading.Thread(target=join)
    t.start()
    assert slow_hashing.wait(10)
    t0 = time.perf_counter()
    store.admit(olga.id)  # another annotator's write, while the join hashes
    took = time.perf_counter() - t0
    t.join()
    assert took < SLOW_S / 2, f"a write waited {took:.2f} s behind {who}'s password hash"
    assert bool(errors) == (who == "a wrong password")  # and the join's answer is unchanged
    if who == "a new name":
        assert store.join(p.access_code, "Newcomer", "newcomers-pw").name == "Newcomer"


def test_a_password_changed_meanwhile_is_checked_again_under_the_lock(store, monkeypatch):
    """The hash read before the lock was replaced (an organizer set a new password) before
    the join's transaction: the join checks the new one, not the answer it prepared."""
    p, olga = project(store)
    real = people.AnnotatorActions._hash_first

    def then_reset(self, *args, **kwargs):
        prepared = real(self, *args, **kwargs)
        store.set_secret(olga.id, secret="the-organizers-new-pw")
        return prepared

    monkeypatch.setattr(people.AnnotatorActions, "_hash_first", then_reset)
    with pytest.raises(WrongSecretError):
        store.join(p.access_code, "Olga", "olgas-own-pw")
    monkeypatch.setattr(people.AnnotatorActions, "_hash_first", real)
    assert store.join(p.access_code, "Olga", "the-organizers-new-pw").id == olga.id
