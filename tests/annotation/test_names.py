"""Names people type: no takeover of an old name without a password, no direction controls."""

from __future__ import annotations

import pytest

from detox_core.annotation.store import Settings
from detox_core.errors import AnnotationError, WrongSecretError
from detox_core.names import name_key, same_name
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
    # Right-to-left names themselves are fine; an invisible direction mark in them is not.
    assert store.join(p.access_code, "\u0645\u0631\u064a\u0645", "maryams-pw-1").name == "\u0645\u0631\u064a\u0645"
    with pytest.raises(AnnotationError, match="U\\+200F RIGHT-TO-LEFT MARK"):
        store.join(p.access_code, "\u0645\u0631\u064a\u0645\u200f", "maryams-pw-2")


# What the round-4 probe joined as "alice", and all read "alice" in the organizer's lists.
INVISIBLE = {"C1 control": "\u009b", "zero-width space": "\u200b", "zero-width joiner": "\u200d",
             "word joiner": "\u2060", "byte-order mark": "\ufeff", "soft hyphen": "\u00ad",
             "left-to-right mark": "\u200e", "right-to-left mark": "\u200f", "Arabic letter mark": "\u061c",
             "private use": "\ue000", "noncharacter U+FFFF": "\uffff"}


@pytest.mark.parametrize("what", list(INVISIBLE))
def test_invisible_characters_are_refused_and_the_organizer_sees_why(store, what):
    p = project(store)
    char = INVISIBLE[what]
    with pytest.raises(AnnotationError, match=f"U\\+{ord(char):04X}"):
        store.join(p.access_code, f"ali{char}ce", "alices-pw-123", client="203.0.113.5")
    assert store.annotators(p.id).empty
    log = store.log(p.id)
    refused = log[log["kind"] == "name_refused"]
    assert len(refused) == 1 and f"U+{ord(char):04X}" in refused["detail"].iloc[0]


def test_a_pile_of_combining_marks_is_refused_but_real_accents_are_not(store):
    p = project(store)
    with pytest.raises(AnnotationError, match="more than 3 accents"):
        store.join(p.access_code, "alice" + "\u0301" * 190, "alices-pw-123")
    for k, name in enumerate(["हिन्दी", "مُحَمَّد", "שָׁלוֹם", "Nguyễn Văn An", "Ольга", "李明", "Zoë", "ቴዎድሮስ"]):
        assert store.join(p.access_code, name, f"password-{k:03d}").name == name


def test_names_that_read_alike_are_one_name(store):
    """Case aside, and a look-alike letter (Cyrillic а, a capital I for l, full-width
    letters) is the same letter: only the first "alice" joins; the others need her password,
    and each refused look-alike is logged with the letters that differ."""
    from detox_core.names import same_name

    p = project(store)
    alice = store.join(p.access_code, "alice", "alices-own-pw", client="203.0.113.1")
    look_alikes = ["Alice", "ALICE", "\u0430lice", "aIice", "\uff41\uff4c\uff49\uff43\uff45", "al\u0456ce"]
    for k, name in enumerate(look_alikes):
        assert same_name(name, "alice"), name
        with pytest.raises(WrongSecretError, match="taken in this project"):
            store.join(p.access_code, name, f"someone-else-{k}", client=f"203.0.113.{10 + k}")
    assert list(store.annotators(p.id)["name"]) == ["alice"]
    # The right password under another case is alice herself.
    assert store.join(p.access_code, "ALICE", "alices-own-pw").id == alice.id
    log = store.log(p.id)
    refused = log[log["kind"] == "name_refused"]
    assert "CYRILLIC SMALL LETTER A" in " ".join(refused["detail"]) and len(refused) >= 4
    # Two different names stay two.
    store.join(p.access_code, "Legacy_Lena", "lenas-own-pw")
    with pytest.raises(WrongSecretError):
        store.join(p.access_code, "legacy_lena", "not-lenas-pw")
    assert store.join(p.access_code, "Lina", "linas-own-pw").name == "Lina"
    assert not same_name("Anna", "Anya") and not same_name("Дима", "Дина")


# What the round-5 probe joined as a second "alice", or as a name of nothing at all.
DRAWN_AS_NOTHING = {"Hangul filler": "\u3164", "Braille blank": "\u2800", "combining grapheme joiner": "\u034f",
                    "variation selector 16": "\ufe0f", "Khmer inherent vowel": "\u17b4",
                    "Hangul choseong filler": "\u115f", "half-width Hangul filler": "\uffa0"}


@pytest.mark.parametrize("what", list(DRAWN_AS_NOTHING))
def test_characters_drawn_as_nothing_are_refused_alone_or_after_a_name(store, what):
    p = project(store)
    alice = store.join(p.access_code, "alice", "alices-own-pw", client="203.0.113.1")
    char = DRAWN_AS_NOTHING[what]
    with pytest.raises(AnnotationError, match="shows as nothing or as a blank"):
        store.join(p.access_code, "alice" + char, "not-alices-pw", client="203.0.113.7")
    with pytest.raises(AnnotationError):
        store.join(p.access_code, char * 3, "blank-name-pw", client="203.0.113.8")
    assert list(store.annotators(p.id)["id"]) == [alice.id]


def test_a_lone_combining_mark_or_a_name_without_letters_is_refused(store):
    p = project(store)
    with pytest.raises(AnnotationError, match="letter or digit"):
        store.join(p.access_code, "\u0301", "accent-only-pw")
    with pytest.raises(AnnotationError, match="begins with a combining mark"):
        store.join(p.access_code, "\u0301Anna", "accent-first-pw")
    with pytest.raises(AnnotationError, match="letter or digit"):
        store.join(p.access_code, "---", "dashes-only-pw")
    assert store.join(p.access_code, "R2-D2", "droids-own-pw").name == "R2-D2"
    assert store.annotators(p.id)["name"].tolist() == ["R2-D2"]


@pytest.mark.parametrize("typed, existing", [("ᴀlice", "alice"), ("ʙᴏʀɪs", "Boris"), ("ꜱᴀʀᴀ", "Sara"), ("ʟᴇɴᴀ", "lena")])
def test_small_capitals_read_as_their_letters(typed, existing):
    """Before: "ᴀlice" (LATIN LETTER SMALL CAPITAL A) was another annotator than "alice"."""
    assert same_name(typed, existing) and name_key(typed) == name_key(existing)


def test_names_that_only_share_letters_stay_apart():
    assert not same_name("ᴀnna", "Alina") and not same_name("ʙen", "Ken")
