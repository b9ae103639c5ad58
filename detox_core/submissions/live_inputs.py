"""What the Live scoring page offers for a language: its default language, the corpus
pairs its examples come from and the toxic lexicon its Delete baseline uses, read from the
sidebar's corpus choice (any object with the attributes of the UI's ``CorpusChoice``)."""

from __future__ import annotations


def default_language(choice) -> str:
    """The first language picked in the sidebar, else the edition's first, else Russian."""
    if choice.languages:
        return choice.languages[0]
    edition = choice.edition
    return edition.languages[0] if edition is not None and edition.languages else "ru"


def corpus_rows(choice, lang: str):
    """The sidebar corpus's pairs in language ``lang``: every language of a multilingual
    corpus, not only those picked there; none when the corpus is in another language."""
    if not choice.ok:
        return None
    frame = choice.whole if choice.whole is not None else choice.prepared
    if "lang" in frame.columns:
        return frame[frame["lang"] == lang]
    edition = choice.edition  # a monolingual edition is in its language; an upload's is not known
    return frame.iloc[:0] if edition is not None and lang not in edition.languages else frame


def live_lexicon(choice, lang: str | None, built_lexicons: dict) -> frozenset[str]:
    """The toxic lexicon of ``lang``: RUSSE-2022's for Russian when that corpus is chosen,
    else the list built for the language (``built_lexicons``, from ``data/lexicons``), else none."""
    if lang == "ru" and choice.lexicon and not choice.multilingual:
        return choice.lexicon
    built = built_lexicons.get(lang or "")
    if built is not None and built.words:
        return built.words
    return choice.lexicon if lang == "ru" else frozenset()
