"""A toxic lexicon of one language, and where the built lexicons are kept.

The lists are built by :func:`detox_core.lexicons.build.build_lexicons` (``python -m
detox_core build-lexicons``, run by ``make data``) into ``data/lexicons/``: one word form a
line in ``<lang>.txt``, and ``sources.json`` saying, per language, where the words came
from and whether the list is weak.

Each language also has a short supplement kept in this repository
(``detox_core/lexicons/supplement/<lang>.txt``): everyday insults, their inflected forms and
multi-word insults ("halt die fresse", "иди на хуй") that the statistical sources miss, and
ordinary words a source holds by mistake, to take out. The build merges it, and
:func:`with_supplement` applies it to lists built before it changed.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from detox_core import config
from detox_core.errors import DetoxInputError
from detox_core.text import normalise_word

Strength = Literal["strong", "weak"]
FOLDER = "lexicons"
SOURCES_FILE = "sources.json"
SUPPLEMENT = Path(__file__).with_name("supplement")
SUPPLEMENT_SOURCE = "project supplement"
_BRACES = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class LexiconSource:
    """Where some of a lexicon's words came from.

    Attributes:
        name: a short name (``glin-profanity``, ``corpus keyness``, ...).
        count: how many of the list's words it gave (a word may come from several).
        detail: what exactly was taken, in words.
    """

    name: str
    count: int
    detail: str = ""


@dataclass(frozen=True)
class ToxicLexicon:
    """The toxic words of one language (normalised: lower case, ``ё`` folded).

    Attributes:
        lang: the language code of the editions (``hin`` is romanised Hinglish).
        words: the word forms; in Chinese and Japanese, words of one or more characters.
        sources: where they came from, with counts.
        strength: ``strong`` (a curated list, or a derived one checked against a curated
            seed) or ``weak`` (few words, or words picked by statistics alone).
        reason: why it is weak (empty when strong).
    """

    lang: str
    words: frozenset[str] = field(default_factory=frozenset)
    sources: tuple[LexiconSource, ...] = ()
    strength: Strength = "weak"
    reason: str = ""

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    @property
    def weak(self) -> bool:
        return self.strength == "weak"

    def describe(self) -> str:
        """One line for a page: size, sources, and why it is weak."""
        src = ", ".join(f"{s.name} ({s.count:,})" for s in self.sources) or "no source"
        text = f"{len(self.words):,} words from {src}"
        return text + (f"; weak: {self.reason}" if self.weak and self.reason else "")


def expand_entry(line: str) -> list[str]:
    """The word forms of one supplement line: ``{a,b}`` stands for each choice (``{,e,er}``
    includes the bare stem), so ``verdammt{,e,er,es,en,em}`` lists six forms. Normalised,
    words of a multi-word entry separated by one space."""
    parts = _BRACES.split(line)
    stems, choices = parts[0::2], [p.split(",") for p in parts[1::2]]
    out = []
    for picked in itertools.product(*choices):
        text = "".join(s + c for s, c in zip(stems, (*picked, ""))) if picked else stems[0]
        entry = " ".join(normalise_word(w) for w in text.split())
        if entry:
            out.append(entry)
    return out


def _supplement_lines(lang: str, path: Path | None = None) -> list[str]:
    path = path if path is not None else SUPPLEMENT / f"{lang}.txt"
    if not path.is_file():
        return []
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line]


def supplement_words(lang: str, path: Path | None = None) -> frozenset[str]:
    """The curated supplement of ``lang`` (``supplement/<lang>.txt``; ``#`` starts a
    comment), every form expanded; empty when the language has none."""
    return frozenset(e for line in _supplement_lines(lang, path) if not line.startswith("-")
                     for e in expand_entry(line))


def supplement_exclusions(lang: str, path: Path | None = None) -> frozenset[str]:
    """The words the supplement of ``lang`` takes out of the built list (lines ``-word``):
    ordinary words a source holds ("какая", "which"; Arabic "مرات", "times")."""
    return frozenset(e for line in _supplement_lines(lang, path) if line.startswith("-")
                     for e in expand_entry(line[1:].strip()))


SUPPLEMENT_DETAIL = ("everyday insults written for this project (detox_core/lexicons/supplement): inflected forms "
                     "and multi-word insults the other sources miss")


def with_supplement(lex: ToxicLexicon) -> ToxicLexicon:
    """``lex`` with its language's supplement merged and its exclusions taken out (a list
    built before the supplement changed, or without it); the same list when nothing changes."""
    extra, drop = supplement_words(lex.lang), supplement_exclusions(lex.lang)
    if extra <= lex.words and not drop & lex.words:
        return lex
    sources = tuple(s for s in lex.sources if s.name != SUPPLEMENT_SOURCE) + (
        LexiconSource(SUPPLEMENT_SOURCE, len(extra), SUPPLEMENT_DETAIL),)
    return ToxicLexicon(lex.lang, (lex.words | extra) - drop, sources, lex.strength, lex.reason)


def folder(root: Path | None = None) -> Path:
    """``data/lexicons`` (or ``$DETOX_DATA_DIR/lexicons``)."""
    return Path(root if root is not None else config.data_dir()) / FOLDER


def write_lexicons(lexicons: Mapping[str, ToxicLexicon], root: Path | None = None) -> Path:
    """Write ``<lang>.txt`` (sorted) and ``sources.json``; returns the folder."""
    out = folder(root)
    out.mkdir(parents=True, exist_ok=True)
    meta = {}
    for lang, lex in sorted(lexicons.items()):
        tmp = out / f".{lang}.txt.part"
        tmp.write_text("".join(f"{w}\n" for w in sorted(lex.words)), encoding="utf-8")
        tmp.replace(out / f"{lang}.txt")
        meta[lang] = {"strength": lex.strength, "reason": lex.reason, "words": len(lex.words),
                      "sources": [{"name": s.name, "count": s.count, "detail": s.detail} for s in lex.sources]}
    tmp = out / f".{SOURCES_FILE}.part"
    tmp.write_text(json.dumps(meta, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(out / SOURCES_FILE)
    return out


def read_lexicons(root: Path | None = None) -> dict[str, ToxicLexicon]:
    """The built lexicons, by language; empty when they have not been built.

    Raises:
        DetoxInputError: ``sources.json`` is not what :func:`write_lexicons` writes.
    """
    base = folder(root)
    meta_path = base / SOURCES_FILE
    if not meta_path.is_file():
        return {}
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        out = {}
        for lang, info in meta.items():
            path = base / f"{lang}.txt"
            words = frozenset(normalise_word(w) for w in path.read_text(encoding="utf-8").split("\n") if w.strip()) \
                if path.is_file() else frozenset()
            out[lang] = ToxicLexicon(lang, words, tuple(LexiconSource(**s) for s in info.get("sources", ())),
                                     "strong" if info.get("strength") == "strong" else "weak", info.get("reason", ""))
        return out
    except (ValueError, TypeError, AttributeError, OSError) as err:
        raise DetoxInputError(f"not a lexicon description written by build-lexicons ({err})", meta_path) from err


def stamp(root: Path | None = None) -> tuple:
    """Modification times of the built files and of the supplement: a rebuild or an edited
    supplement invalidates caches."""
    base = folder(root)
    if not base.is_dir():
        return ()
    built = sorted((p.name, p.stat().st_mtime_ns) for p in base.iterdir() if p.is_file())
    extra = sorted((f"supplement/{p.name}", p.stat().st_mtime_ns) for p in SUPPLEMENT.glob("*.txt"))
    return tuple(built + extra)
