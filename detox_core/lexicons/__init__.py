"""Toxic lexicons of the TextDetox languages: what the Delete baseline removes and what the
Corpus page marks.

- :mod:`.base`: :class:`ToxicLexicon` (words, sources with counts, strength) and the files
  under ``data/lexicons/``;
- :mod:`.build`: how each language's list is made (``python -m detox_core build-lexicons``);
- :mod:`.segment`: word segmentation of Chinese and Japanese.

RUSSE-2022 keeps its own lexicon (:meth:`detox_core.editions.Edition.load_lexicon`).
"""

from __future__ import annotations

from pathlib import Path

from detox_core.lexicons.base import LexiconSource, ToxicLexicon, read_lexicons, stamp, write_lexicons

__all__ = ["LexiconSource", "ToxicLexicon", "lexicon_for", "load_lexicons", "read_lexicons", "stamp",
           "write_lexicons", "NOT_BUILT"]

NOT_BUILT = "no list is built: run `python -m detox_core build-lexicons` (part of `make data`)"


def load_lexicons(root: Path | None = None) -> dict[str, ToxicLexicon]:
    """The built lexicons by language (empty when not built)."""
    return read_lexicons(root)


def lexicon_for(lang: str, root: Path | None = None) -> ToxicLexicon:
    """The built lexicon of ``lang``; an empty, weak one saying why when there is none."""
    found = read_lexicons(root).get(lang)
    return found if found is not None else ToxicLexicon(lang, reason=NOT_BUILT)
