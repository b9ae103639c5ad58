"""What the Live scoring page offers for a language: its default language, the corpus
pairs its examples come from and the toxic lexicon its Delete baseline uses, read from the
sidebar's corpus choice (any object with the attributes of the UI's ``CorpusChoice``)."""

from __future__ import annotations

from collections.abc import Sequence

from detox_core.languages import languages_in_script
from detox_core.languages.detect import (SURE_CONFIDENCE, SURE_MARGIN, detect, detector, detector_built,
                                         language_by_words, main_script)
from detox_core.vocab import LANGUAGES


def known_languages(choice) -> list[str]:
    """The languages the texts may be in: those picked in the sidebar, else the edition's
    (none for a corpus of no known language, an upload without a lang column)."""
    edition = choice.edition
    return list(choice.languages or (edition.languages if edition is not None and edition.languages else ()))


def default_language(choice, typed: str = "", preferred: Sequence[str] = ()) -> str:
    """The language Live scoring starts in, among the languages picked in the sidebar (else
    the edition's, else every one): the language of the ``typed`` text when it can be told;
    else the first of the browser's ``preferred`` languages that is there; else English;
    else the first of them; else Russian. (The first in the edition's order was Amharic on
    TextDetox 2024 and 2025, whatever the visitor reads or typed.)"""
    pool = known_languages(choice)
    known = bool(pool)
    if not known:
        pool = list(LANGUAGES)
    if typed and typed.strip():
        found = typed_language(typed, pool)
        if found is not None:
            return found
    for code in preferred:
        if code in pool:
            return code
    if not known:
        return "ru"  # as before: the first edition's language
    return "en" if "en" in pool else pool[0]


def typed_language(text: str, pool: Sequence[str]) -> str | None:
    """The language of ``text`` among ``pool``, when it can be told cheaply: the only
    language of ``pool`` written in its script; a script or kana that tells (Chinese,
    Japanese, Hindi ...); else, for Latin and Cyrillic, the language detector the server's
    warm-up builds, sure among ``pool``, or the text's everyday words. A visitor's typing
    never builds a detector (the wide one takes about 4 s and 500 MB): before the warm-up
    built it, a Latin or Cyrillic text is not told."""
    text = text[:1000]
    script = main_script(text)
    in_script = [c for c in pool if c in languages_in_script(script)] if script else []
    if len(in_script) <= 1:
        return in_script[0] if in_script else None
    if script not in ("latin", "cyrillic"):
        code, sure = detect([text])[0]  # by script and kana alone: no detector is built for these
        return code if sure and code in in_script else None
    if not detector_built():
        return None
    values = [v for v in detector().compute_language_confidence_values(text)
              if v.language.iso_code_639_1.name.lower() in in_script]
    if values:
        best, second = values[0].value, values[1].value if len(values) > 1 else 0.0
        if best >= SURE_CONFIDENCE and best - second >= SURE_MARGIN:
            return values[0].language.iso_code_639_1.name.lower()
    return language_by_words(text, in_script)


def browser_languages(accept_language: str | None, locale: str | None = None) -> list[str]:
    """The languages a browser prefers, as two-letter codes in its order: its ``locale``
    (``navigator.language``, e.g. ``de-DE``), then its ``Accept-Language`` header by weight."""
    weighted: list[tuple[float, int, str]] = []
    for k, part in enumerate((accept_language or "").split(",")[:20]):
        tag, _, q = part.strip().partition(";q=")
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            continue
        if tag and tag != "*":
            weighted.append((-weight, k, tag))
    tags = ([locale] if locale else []) + [tag for _, _, tag in sorted(weighted)]
    out: list[str] = []
    for tag in tags:
        code = tag.strip().lower().replace("_", "-").split("-")[0]
        if code and code not in out:
            out.append(code)
    return out


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
