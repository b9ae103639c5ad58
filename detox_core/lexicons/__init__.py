"""Toxic lexicons of the TextDetox languages: what the Delete baseline removes and what the
Corpus page marks.

- :mod:`.base`: :class:`ToxicLexicon` (words, sources with counts, strength) and the files
  under ``data/lexicons/``;
- :mod:`.build`: how each language's list is made (``python -m detox_core build-lexicons``);
- :mod:`detox_core.segment`: word segmentation of Chinese and Japanese (used by :mod:`detox_core.text`).

RUSSE-2022 keeps its own lexicon (:meth:`detox_core.editions.Edition.load_lexicon`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from detox_core.lexicons.base import (LexiconSource, ToxicLexicon, read_lexicons, stamp, supplement_words,
                                      with_supplement, write_lexicons)
from detox_core.vocab import language_name

__all__ = ["LexiconSource", "ToxicLexicon", "lexicon_for", "load_lexicons", "read_lexicons", "stamp",
           "write_lexicons", "NOT_BUILT", "lexicon_help", "lexicon_note", "supplement_words", "with_supplement"]

NOT_BUILT = ("no list is built: run `python -m detox_core fetch-data` (or `build-lexicons` alone; both part of "
             "`make data`)")


def load_lexicons(root: Path | None = None) -> dict[str, ToxicLexicon]:
    """The built lexicons by language, each with the repository's supplement merged (a list
    built before the supplement changed picks it up); empty when not built."""
    return {lang: with_supplement(lex) for lang, lex in read_lexicons(root).items()}


def lexicon_for(lang: str, root: Path | None = None) -> ToxicLexicon:
    """The built lexicon of ``lang``; an empty, weak one saying why when there is none."""
    found = read_lexicons(root).get(lang)
    return with_supplement(found) if found is not None else ToxicLexicon(lang, reason=NOT_BUILT)


def lexicon_note(languages: Sequence[str], lexicons: Mapping[str, ToxicLexicon]) -> str:
    """One sentence for a page about the lexicons of ``languages``: which are weak, which
    are missing. Plain text (no user input), safe to show as Markdown."""

    def names(codes: list[str]) -> str:
        return ", ".join(f"{language_name(c)} ({c})" for c in codes)

    if not lexicons:
        return ("No toxic lexicons are built (`python -m detox_core build-lexicons`): lexicon words are not marked "
                "and the Delete baseline removes nothing.")
    missing = [c for c in languages if not (c in lexicons and lexicons[c].words)]
    weak = [c for c in languages if c in lexicons and lexicons[c].words and lexicons[c].weak]
    text = "Lexicon words are marked with each language's own toxic list"
    if weak:
        text += (f"; weak lists (few words, picked by word statistics alone, or finding a word in under half of the "
                 f"toxic inputs), so the Delete "
                 f"baseline misses many insults: {names(weak)}")
    if missing:
        text += f"; no list: {names(missing)}"
    return text + "."


def lexicon_help(lang: str, lexicons: Mapping[str, ToxicLexicon]) -> str:
    """Where the list of ``lang`` comes from, for a tooltip."""
    lex = lexicons.get(lang)
    return lex.describe() + "." if lex is not None else NOT_BUILT + "."
