"""Names people type: no takeover of an old name without a password, no direction controls."""

from __future__ import annotations

import pytest

from detox_core.annotation.store import Settings
from detox_core.errors import AnnotationError, WrongSecretError
from detox_core.submissions.store import clean_name
from tests.annotation.test_store import make_pairs


def project(store):
    return store.create_project("names", ["toxicity"], make_pairs(4),
                                settings=Settings(page_size=4, controls_per_page=0, training=False))


def test_a_name_from_before_passwords_is_not_taken_by_the_first_person_typing_it(store):
    p = project(store)
    old = store.join(p.access_code, "Dima", None, client="198.51.100.2")  # joined before passwords were asked
    # Someone else, elsewhere, typing the name and any password: refused, and counted as a
    # wrong password (the sign-in throttle slows guessing of the name).
    with pytest.raises(WrongSecretError, match="ask the project's organizer to set a password"):
        store.join(p.access_code, "Dima", "impostor-pw", client="203.0.113.66")
    with pytest.raises(WrongSecretError):
        store.join(p.access_code, "Dima", "impostor-pw")  # no address known at all
    # The person at the address they joined from sets it.
    assert store.join(p.access_code, "Dima", "dimas-own-pw", client="198.51.100.2").id == old.id
    with pytest.raises(WrongSecretError):
        store.join(p.access_code, "Dima", "impostor-pw", client="198.51.100.2")
    assert "password_set" in set(store.log(p.id)["kind"])


def test_the_organizer_gives_a_new_password(store):
    p = project(store)
    who = store.join(p.access_code, "Olga", None, client="198.51.100.3")
    secret = store.set_secret(who.id, actor="organizer")
    assert len(secret) >= 8
    assert store.join(p.access_code, "Olga", secret, client="203.0.113.9").id == who.id
    with pytest.raises(AnnotationError, match="at least"):
        store.set_secret(who.id, secret="123")
    log = store.log(p.id)
    assert ((log["kind"] == "password_set") & (log["actor"] == "organizer")).any()


@pytest.mark.parametrize("char", ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u202a"])
def test_direction_controls_are_refused_in_names_and_dropped_from_file_names(store, char):
    p = project(store)
    with pytest.raises(AnnotationError, match=f"U\\+{ord(char):04X}"):
        store.join(p.access_code, f"Zoya{char}evil", "zoyas-pw-123")
    with pytest.raises(AnnotationError, match="direction-control"):
        store.create_project(f"pilot{char}2", ["toxicity"], make_pairs(2))
    assert clean_name(f"report{char}txt.exe") == "reporttxt.exe"
    # Right-to-left names themselves are fine (and their marks U+200F).
    assert store.join(p.access_code, "\u0645\u0631\u064a\u0645\u200f", "maryams-pw-1").name == "\u0645\u0631\u064a\u0645\u200f"
