"""The languages: one table of every language the project knows (:data:`LANGUAGES`), and what
is computed from it. Language detection lives beside it (:mod:`detox_core.languages.detect`).

Every other module reads this table: the editions' languages, the presets' languages, the
names pages show, the scripts, the word-frequency lists and lexicon sources of
``build-lexicons``, the seq2seq prompts and what the offline check of an output's language
cannot catch (``tests/test_architecture.py`` fails on a second table of language codes).

The table is facts written once; what depends on data (how many words a built lexicon holds,
which languages a preset learnt from people's rewrites) is computed where it is shown, from the
data given to the functions here (:func:`weak_parts`, :func:`rows`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

#: The editions a language can be in (the edition registry's names, oldest first).
RUSSE2022, TEXTDETOX2024, TEXTDETOX2025 = "russe2022", "textdetox2024", "textdetox2025"
_TEXTDETOX = (TEXTDETOX2024, TEXTDETOX2025)


@dataclass(frozen=True)
class Language:
    """One language and what the project knows of it.

    Attributes:
        code: the ISO 639-1 code (``hin``: Hinglish, Hindi written in Latin script).
        name: the English name pages show.
        native: the language's own name for itself.
        script: the script it is written in (a key of :data:`SCRIPT_NAMES`).
        editions: the editions whose inputs are in it (none: a language detection names only,
            so that a Dutch text is not taken for the nearest edition language).
        wordfreq: the name of its list in ``wordfreq`` (None: wordfreq has none), for the
            lexicon builder's keyness and the detector's word check.
        glin: its dictionary in the ``glin-profanity`` package (None: none), a lexicon seed.
        russian_forms: its toxic inputs use Russian obscenities: the lexicon takes the RUSSE-2022
            lexicon's forms found in them.
        borrows_english: its toxic inputs borrow English obscenities ("abgefuckt"): the lexicon
            confirms keyness candidates with English seeds too.
        identified: the offline preset's language identifier (lingua, among the editions'
            Latin and Cyrillic languages) tells it from the others; else only its script is checked.
        seq2seq_prompt: the task prompt of ``s-nlp/mt0-xl-detox-orpo`` for it (None: that model
            was not trained on it).
        rtl: written right to left.
        unspaced: written without spaces between words (segmented by :mod:`detox_core.segment`).
        stemmer: its Snowball stemmer's name in ``nltk`` (None: none), so that one insult in two
            inflections ("idiots", "idiot") is one word where rewrites are compared.
        clitics: prefixes written onto a word (Arabic "ال", "و"; Hebrew "ה", "ו"), longest first,
            taken off before words are compared.
    """

    code: str
    name: str
    native: str
    script: str
    editions: tuple[str, ...] = ()
    wordfreq: str | None = None
    glin: str | None = None
    russian_forms: bool = False
    borrows_english: bool = False
    identified: bool = False
    seq2seq_prompt: str | None = None
    rtl: bool = False
    unspaced: bool = False
    stemmer: str | None = None
    clitics: tuple[str, ...] = ()


_L = Language
#: Every language, the editions' first in the editions' order (RUSSE-2022's, TextDetox 2024's, the
#: six TextDetox 2025 added), then the ones detection also names.
LANGUAGES: dict[str, Language] = {lang.code: lang for lang in (
    _L("am", "Amharic", "አማርኛ", "ethiopic", _TEXTDETOX, seq2seq_prompt="መርዝ መርዝ: "),
    _L("ar", "Arabic", "العربية", "arabic", _TEXTDETOX, "ar", "arabic", seq2seq_prompt="إزالة السموم: ", rtl=True,
       stemmer="arabic", clitics=("وال", "بال", "فال", "كال", "لل", "ال", "و", "ف", "ب")),
    _L("de", "German", "Deutsch", "latin", _TEXTDETOX, "de", "german", borrows_english=True, identified=True,
       seq2seq_prompt="Entgiften: ", stemmer="german"),
    _L("en", "English", "English", "latin", _TEXTDETOX, "en", "english", identified=True, stemmer="english"),
    _L("es", "Spanish", "Español", "latin", _TEXTDETOX, "es", "spanish", borrows_english=True, identified=True,
       seq2seq_prompt="Desintoxicar: ", stemmer="spanish"),
    _L("hi", "Hindi", "हिन्दी", "devanagari", _TEXTDETOX, "hi", seq2seq_prompt="विषहरण: "),
    _L("ru", "Russian", "Русский", "cyrillic", (RUSSE2022, *_TEXTDETOX), "ru", "russian", identified=True,
       stemmer="russian"),
    _L("uk", "Ukrainian", "Українська", "cyrillic", _TEXTDETOX, "uk", russian_forms=True, identified=True,
       seq2seq_prompt="Детоксифікуй: "),
    _L("zh", "Chinese", "中文", "cjk", _TEXTDETOX, "zh", "chinese", seq2seq_prompt="排毒：", unspaced=True),
    _L("fr", "French", "Français", "latin", (TEXTDETOX2025,), "fr", "french", borrows_english=True, identified=True,
       stemmer="french"),
    _L("he", "Hebrew", "עברית", "hebrew", (TEXTDETOX2025,), "he", rtl=True, clitics=("וה", "שה", "ה", "ו", "ש")),
    _L("hin", "Hinglish", "Hinglish", "latin", (TEXTDETOX2025,), glin="hindi", borrows_english=True),
    _L("it", "Italian", "Italiano", "latin", (TEXTDETOX2025,), "it", "italian", borrows_english=True,
       identified=True, stemmer="italian"),
    _L("ja", "Japanese", "日本語", "cjk", (TEXTDETOX2025,), "ja", "japanese", unspaced=True),
    _L("tt", "Tatar", "Татарча", "cyrillic", (TEXTDETOX2025,), russian_forms=True),
    # Named by detection only (lingua knows them; wordfreq's Serbian list is "sh", and it has
    # no Belarusian, Kazakh or Mongolian list).
    *(_L(code, name, native, "latin", wordfreq=code) for code, name, native in (
        ("cs", "Czech", "Čeština"), ("da", "Danish", "Dansk"), ("fi", "Finnish", "Suomi"),
        ("hu", "Hungarian", "Magyar"), ("id", "Indonesian", "Bahasa Indonesia"), ("nl", "Dutch", "Nederlands"),
        ("pl", "Polish", "Polski"), ("pt", "Portuguese", "Português"), ("ro", "Romanian", "Română"),
        ("sv", "Swedish", "Svenska"), ("tr", "Turkish", "Türkçe"))),
    _L("be", "Belarusian", "Беларуская", "cyrillic"),
    _L("bg", "Bulgarian", "Български", "cyrillic", wordfreq="bg"),
    _L("kk", "Kazakh", "Қазақша", "cyrillic"),
    _L("mk", "Macedonian", "Македонски", "cyrillic", wordfreq="mk"),
    _L("mn", "Mongolian", "Монгол", "cyrillic"),
    _L("sr", "Serbian", "Српски", "cyrillic", wordfreq="sh"),
)}
#: How a page names a script.
SCRIPT_NAMES = {"ethiopic": "Ethiopic (Ge'ez)", "arabic": "Arabic", "hebrew": "Hebrew", "devanagari": "Devanagari",
                "cjk": "Chinese characters or kana", "cyrillic": "Cyrillic", "latin": "Latin"}
#: The languages of the editions, in the editions' order.
EDITION_LANGUAGES: tuple[str, ...] = tuple(c for c, lang in LANGUAGES.items() if lang.editions)


def in_edition(edition: str) -> tuple[str, ...]:
    """The languages of the edition named ``edition``, in the table's order."""
    return tuple(c for c, lang in LANGUAGES.items() if edition in lang.editions)


def new_in(edition: str, before: str) -> tuple[str, ...]:
    """The languages of ``edition`` that the edition ``before`` did not have."""
    return tuple(c for c in in_edition(edition) if c not in in_edition(before))


def language_name(code: str) -> str:
    """``"ar"`` -> ``"Arabic"``; an unknown code is returned as it is."""
    found = LANGUAGES.get(code)
    return found.name if found is not None else code


def language_label(code: str) -> str:
    """How a language picker shows a language: "Chinese (zh)"."""
    return f"{language_name(code)} ({code})"


def in_language_order(codes: Iterable[str]) -> tuple[str, ...]:
    """``codes`` once each, in the table's order (the editions' order), unknown codes last."""
    order = {code: k for k, code in enumerate(LANGUAGES)}
    return tuple(sorted(dict.fromkeys(codes), key=lambda code: order.get(code, len(order))))


def where(**facts) -> tuple[str, ...]:
    """The editions' languages whose fields equal ``facts`` (``where(rtl=True)``: ``("ar", "he")``)."""
    return tuple(c for c in EDITION_LANGUAGES if all(getattr(LANGUAGES[c], k) == v for k, v in facts.items()))


#: The editions' languages written right to left, and those without spaces between words.
RTL: frozenset[str] = frozenset(where(rtl=True))
UNSPACED: frozenset[str] = frozenset(where(unspaced=True))
#: The editions' languages the offline preset's language identifier tells apart.
IDENTIFIED: frozenset[str] = frozenset(where(identified=True))


def script_of(code: str) -> str | None:
    """The script ``code`` is written in (None: not in the table)."""
    found = LANGUAGES.get(code)
    return found.script if found is not None else None


def languages_in_script(script: str) -> list[str]:
    """The editions' languages written in ``script``."""
    return list(where(script=script))


def wordfreq_code(code: str) -> str | None:
    """wordfreq's name of ``code``'s word list (None: wordfreq has none)."""
    found = LANGUAGES.get(code)
    return found.wordfreq if found is not None else None


def not_caught(code: str) -> tuple[str, ...]:
    """The editions' languages an output for ``code`` can be written in without the offline
    check of its language noticing: the others of its script, unless the identifier tells
    ``code`` apart (an output in Russian for a Tatar input; none for Arabic, alone in its script)."""
    lang = LANGUAGES[code]
    if lang.identified:
        return ()
    return tuple(c for c in languages_in_script(lang.script) if c != code)


def weak_parts(code: str, *, lexicons: Mapping[str, object] | None = None,
               rewrites: Iterable[str] | None = None) -> list[str]:
    """What is weak about ``code`` and why: an output in another language the offline check
    cannot catch (from the table); with ``rewrites`` (the languages a preset learnt from people's
    rewrites), none to learn from; with ``lexicons`` (the built toxic lexicons by language, e.g.
    :func:`detox_core.lexicons.load_lexicons`: each with ``words``, ``weak`` and ``reason``),
    no lexicon, or a weak one with its size and the builder's measured reason."""
    out = []
    if others := not_caught(code):
        out.append(f"only the script is checked: an output in {_names(others)} is not caught")
    if rewrites is not None and code not in set(rewrites):
        out.append("no people's rewrites to learn from, only toxicity data")
    if lexicons is not None:
        lexicon = lexicons.get(code)
        if lexicon is None or not lexicon.words:
            out.append("no toxic lexicon is built")
        elif lexicon.weak:
            out.append(f"its toxic lexicon of {len(lexicon.words):,} words is weak: {lexicon.reason}")
    return out


def _names(codes: Iterable[str]) -> str:
    codes = list(codes)
    names = [language_name(c) for c in codes]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def rows(lexicons: Mapping[str, object] | None = None, rewrites: Iterable[str] | None = None) -> list[dict]:
    """The table of the editions' languages as rows for a page or a document, with the built
    lexicons' sizes and what is weak (see :func:`weak_parts`; ``lexicon words`` None without
    ``lexicons``)."""
    rewrites = None if rewrites is None else tuple(rewrites)
    out = []
    for code in EDITION_LANGUAGES:
        lang = LANGUAGES[code]
        words = None if lexicons is None else len(getattr(lexicons.get(code), "words", ()))
        out.append({"code": code, "language": lang.name, "native": lang.native, "script": SCRIPT_NAMES[lang.script],
                    "editions": ", ".join(lang.editions), "wordfreq": lang.wordfreq or "",
                    "glin-profanity": lang.glin or "", "lexicon words": words, "identified": lang.identified,
                    "weak": "; ".join(weak_parts(code, lexicons=lexicons, rewrites=rewrites))})
    return out
