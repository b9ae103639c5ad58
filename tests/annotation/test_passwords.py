"""Annotators' passwords: argon2id with its parameters in the stored hash; an older release's
scrypt hash still signs in and is upgraded then, in place, nothing else of the annotator lost."""

from __future__ import annotations

import hashlib
import os

import pytest
from argon2 import PasswordHasher, Type, extract_parameters
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from detox_core.annotation.store import Settings
from detox_core.annotation.store.rows import AnnotatorRow
from detox_core.errors import WrongSecretError
from tests.annotation.test_store import make_pairs

PASSWORD = "olgas-own-pw"
#: RFC 9106's second recommended option (argon2-cffi's default): 64 MiB, 3 passes, 4 lanes.
RFC_9106_LOW_MEMORY = {"memory_cost": 65536, "time_cost": 3, "parallelism": 4}


def scrypt_hash(secret: str) -> str:
    """A password hash as releases before argon2 stored it: ``salt$hash`` in hex, no parameters."""
    salt = os.urandom(16)
    return f"{salt.hex()}${hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32).hex()}"


def weak_argon2_hash(secret: str) -> str:
    return PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash(secret)


def stored_row(store, annotator_id: int) -> dict:
    with Session(store.engine) as s:
        row = s.get(AnnotatorRow, annotator_id)
        return {c.key: getattr(row, c.key) for c in AnnotatorRow.__table__.columns}


def store_hash(store, annotator_id: int, stored: str) -> None:
    with store.engine.begin() as conn:
        conn.execute(update(AnnotatorRow).where(AnnotatorRow.id == annotator_id).values(secret_hash=stored))


def olga(store):
    """An annotator who joined, was admitted and chose her language: what an upgrade must keep."""
    p = store.create_project("pw", ["toxicity"], make_pairs(4),
                             settings=Settings(page_size=4, controls_per_page=0, training=False))
    who = store.admit(store.join(p.access_code, "Olga", PASSWORD, client="198.51.100.7").id)
    return p, who


def assert_current_argon2id(stored: str) -> None:
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    params = extract_parameters(stored)
    assert params.type is Type.ID and params.salt_len == 16 and params.hash_len == 32
    assert {k: getattr(params, k) for k in RFC_9106_LOW_MEMORY} == RFC_9106_LOW_MEMORY
    assert PasswordHasher().verify(stored, PASSWORD)  # any argon2 implementation reads it


def test_a_new_password_is_stored_as_argon2id_with_its_parameters(store):
    p, who = olga(store)
    assert_current_argon2id(stored_row(store, who.id)["secret_hash"])
    store.set_secret(who.id, secret=PASSWORD)  # an organizer's new password too
    assert_current_argon2id(stored_row(store, who.id)["secret_hash"])
    assert store.join(p.access_code, "Olga", PASSWORD).id == who.id


@pytest.mark.parametrize("old", [scrypt_hash, weak_argon2_hash], ids=["scrypt", "weaker-argon2"])
def test_an_older_hash_signs_in_and_is_replaced_by_a_current_argon2id_hash(store, old):
    p, who = olga(store)
    store.choose_language(who.id, "")
    store_hash(store, who.id, old(PASSWORD))
    before = stored_row(store, who.id)
    digest = store.annotator(who.id).password_digest
    back = store.join(p.access_code, "Olga", PASSWORD, client="203.0.113.40")
    after = stored_row(store, who.id)
    assert back.id == who.id and back.status == "active"
    assert_current_argon2id(after["secret_hash"])
    # Nothing else of the annotator changed, and their other tabs stay signed in (the token
    # names the password, not its hash: an organizer's new password still signs them out).
    assert {k: v for k, v in after.items() if k != "secret_hash"} == \
        {k: v for k, v in before.items() if k != "secret_hash"}
    assert back.password_digest == store.annotator(who.id).password_digest == digest
    # Upgraded once: the next sign-in keeps the hash as it is.
    assert store.join(p.access_code, "Olga", PASSWORD).id == who.id
    assert stored_row(store, who.id)["secret_hash"] == after["secret_hash"]
    store.set_secret(who.id, secret="a-new-pw-1")
    assert store.annotator(who.id).password_digest != digest


@pytest.mark.parametrize("old", [scrypt_hash, weak_argon2_hash, None], ids=["scrypt", "weaker-argon2", "argon2id"])
def test_a_wrong_password_fails_and_leaves_the_stored_hash_alone(store, old):
    p, who = olga(store)
    if old is not None:
        store_hash(store, who.id, old(PASSWORD))
    stored = stored_row(store, who.id)["secret_hash"]
    for wrong in ("olgas-own-pX", PASSWORD.upper(), PASSWORD + " "):
        with pytest.raises(WrongSecretError, match="password does not match"):
            store.join(p.access_code, "Olga", wrong, client="203.0.113.41")
    with pytest.raises(WrongSecretError):
        store.join(p.access_code, "Olga", None)
    assert stored_row(store, who.id)["secret_hash"] == stored
    with Session(store.engine) as s:  # one annotator still, under the one name
        assert s.scalars(select(AnnotatorRow.name)).all() == ["Olga"]
