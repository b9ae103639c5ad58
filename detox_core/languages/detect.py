"""Which script and language a text is in: the language of a pair nobody gave
(:func:`pair_languages`, for ``detox_core.score``, ``detox score`` and the pages), and the
offline preset's wrong-language check (an output written in another language than its input
keeps only part of its SIM and FL).

Scripts from the Unicode names of the letters; languages by ``lingua`` (Rust, ~0.25 ms a
short text), restricted to the editions' Latin and Cyrillic languages it knows
(:data:`detox_core.languages.IDENTIFIED`), models preloaded once per process (~1 s, ~230 MB
resident). lingua has no Amharic, Tatar or romanised Hinglish: those are checked by script only.
Which language is written in which script, and has which word list, is read from the table
(:data:`detox_core.languages.LANGUAGES`).
"""

from __future__ import annotations

import math
import re
import sys
import threading
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from detox_core.errors import DetoxInputError
from detox_core.languages import (
    IDENTIFIED,
    LANGUAGES,
    SCRIPT_NAMES,
    UNSPACED,
    languages_in_script,
    script_of,
    wordfreq_code,
)
from detox_core.lru import ByteLRU, cache_budget

__all__ = ["IDENTIFIED", "SCRIPT_NAMES", "UNSPACED", "MIN_LETTERS", "detect", "detector", "detector_built", "identify",
           "language_by_words", "languages_in_script", "main_script", "not_russian", "pair_languages",
           "script_mismatch", "script_shares", "wide_detector", "wrong_language", "wrong_language_share"]

#: Outputs with fewer letters are never judged (too short to tell); 4 in Chinese and Japanese.
MIN_LETTERS = 12


_SCRIPTS = (("ethiopic", "ETHIOPIC"), ("arabic", "ARABIC"), ("hebrew", "HEBREW"), ("devanagari", "DEVANAGARI"),
            ("han", "CJK"), ("kana", "HIRAGANA"), ("kana", "KATAKANA"), ("cyrillic", "CYRILLIC"), ("latin", "LATIN"))


@lru_cache(maxsize=65536)
def _char_script(ch: str) -> str | None:
    """The script of a letter (Han and kana together as ``cjk``), None for others."""
    if not ch.isalpha():
        return None
    name = unicodedata.name(ch, "")
    for script, key in _SCRIPTS:
        if key in name:
            return "cjk" if script in ("han", "kana") else script
    return None


def script_shares(text: str) -> Counter:
    """Letters per script (Han and kana together as ``cjk``): each distinct character
    looked up once."""
    out: Counter = Counter()
    for ch, n in Counter(text).items():
        s = _char_script(ch)
        if s is not None:
            out[s] += n
    return out


def script_mismatch(lang: str, text: str, min_letters: int = 4) -> str | None:
    """The script ``text`` is mostly written in when ``lang`` is never written in it (None:
    it can be, the language's script is not known, or fewer than ``min_letters`` letters)."""
    expected = script_of(lang)
    shares = script_shares(text)
    if expected is None or sum(shares.values()) < min_letters:
        return None
    found = shares.most_common(1)[0][0]
    return None if found == expected else found


#: The inputs' scripts (asked again for every submission), in 10% of ``word_pieces``.
_SCRIPT_OF: ByteLRU = ByteLRU(int(cache_budget("word_pieces") * 0.1), lambda text, _: sys.getsizeof(text) + 120)


def main_script(text: str) -> str | None:
    """The script most of ``text``'s letters are in (None: no letters), memoised."""
    found = _SCRIPT_OF.get(text, "")
    if found != "":
        return found
    shares = script_shares(text)
    script = shares.most_common(1)[0][0] if shares else None
    _SCRIPT_OF.put(text, script)
    return script


_DETECTOR_LOCK = threading.Lock()


_DETECTORS: dict[tuple[str, ...], object] = {}


def _lingua(codes: tuple[str, ...]):
    """lingua's detector over the languages ``codes`` (ISO 639-1), models preloaded, built
    once per process even when the preload and a first score ask at once."""
    found = _DETECTORS.get(codes)
    if found is not None:
        return found
    # Imported here: lingua only for language identification.
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    with _DETECTOR_LOCK:
        if codes not in _DETECTORS:
            langs = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in codes]
            _DETECTORS[codes] = LanguageDetectorBuilder.from_languages(*langs).with_preloaded_language_models().build()
        return _DETECTORS[codes]


def detector():
    """lingua's detector over the editions' Latin and Cyrillic languages it knows (~1 s, ~230 MB
    resident: benchmarks/bench_embedded_multilingual.py); scripts tell the other languages apart."""
    return _lingua(tuple(sorted(IDENTIFIED)))


def detector_built() -> bool:
    """Whether :func:`detector` is built in this process (a first score builds it first)."""
    return tuple(sorted(IDENTIFIED)) in _DETECTORS


def identify(texts: Sequence[str]) -> list[str | None]:
    """The language code lingua gives each text (None: no letters it can place)."""
    if not texts:
        return []
    found = detector().detect_languages_in_parallel_of(list(texts))
    return [x.iso_code_639_1.name.lower() if x is not None else None for x in found]


def wrong_language(lang: str, inputs: Sequence[str], outputs: Sequence[str],
                   identified_in: Sequence[str | None] | None = None,
                   identified_out: Sequence[str | None] | None = None) -> np.ndarray:
    """True where the output is in another script than its input, or (Latin and Cyrillic
    languages lingua knows) lingua places it in another language than the input. Outputs
    with fewer than ``min_letters`` letters are never judged (too short to tell)."""
    n = len(outputs)
    out = np.zeros(n, dtype=bool)
    min_letters = MIN_LETTERS
    if lang in IDENTIFIED and identified_out is None:
        identified_out = identify(outputs)
        identified_in = identify(inputs)
    for k in range(n):
        shares = script_shares(outputs[k])
        letters = sum(shares.values())
        if letters < min_letters and not (letters and lang in UNSPACED and letters >= 4):
            continue
        s_in, s_out = main_script(inputs[k]), shares.most_common(1)[0][0]
        if s_in is not None and s_out != s_in:
            out[k] = True
        elif lang in IDENTIFIED and identified_out is not None:
            o, i = identified_out[k], identified_in[k]
            out[k] = o is not None and o != lang and o != i
    return out




def wrong_language_share(lang: str, inputs: Sequence[str], outputs: Sequence[str],
                         identified_in: Sequence[str | None] | None = None,
                         identified_out: Sequence[str | None] | None = None) -> np.ndarray:
    """How sure it is that each output is not in ``lang`` (0 where :func:`wrong_language` finds
    nothing): the share of its letters outside its input's script, or (Latin and Cyrillic
    languages lingua knows) 1 less lingua's confidence that the output is in ``lang``."""
    wrong = wrong_language(lang, inputs, outputs, identified_in, identified_out)
    out = np.zeros(len(outputs))
    asked = []
    for k in np.flatnonzero(wrong):
        shares = script_shares(outputs[k])
        s_in = main_script(inputs[k])
        if s_in is not None and shares.most_common(1)[0][0] != s_in:
            out[k] = 1.0 - shares.get(s_in, 0) / max(1, sum(shares.values()))
        else:
            asked.append(k)
    if asked:
        from lingua import IsoCode639_1, Language  # noqa: PLC0415 - lingua only for identification

        target = Language.from_iso_code_639_1(getattr(IsoCode639_1, lang.upper()))
        found = detector().compute_language_confidence_in_parallel([outputs[k] for k in asked], target)
        for k, conf in zip(asked, found):
            out[k] = 1.0 - float(conf)
    return out


#: Letters that only Ukrainian (ї є ґ) of the Cyrillic languages detected here uses; і is also
#: Belarusian and Kazakh, so a text with only і goes to lingua.
_UKRAINIAN = set("їєґЇЄҐ")
#: Tatar's own letters (ә җ ң һ; ө ү are Mongolian and Kazakh too) and the Kazakh and Bashkir
#: letters Tatar does not use: a text with the first and none of the second is Tatar.
_TATAR = set("әҗңһӘҖҢҺ")
_NOT_TATAR = set("ғқұіҡҙҫҒҚҰІҠҘҪ")
#: The Russian alphabet: a Cyrillic letter outside it is another language's.
RUSSIAN_LETTERS = frozenset("абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ")
#: Latin- and Cyrillic-script languages outside the editions that :func:`detect` also considers
#: (the table's languages of no edition), so that a Dutch, Turkish or Bulgarian text is named as
#: such (and refused by a preset that does not cover it) instead of being taken for the nearest
#: edition language.
OTHER_LATIN = tuple(c for c, lang in LANGUAGES.items() if not lang.editions and lang.script == "latin")
OTHER_CYRILLIC = tuple(c for c, lang in LANGUAGES.items() if not lang.editions and lang.script == "cyrillic")
#: lingua's confidence a Latin or Cyrillic text needs, and its lead over the next language, for
#: its language to be taken as known (below: a short text that reads as several languages).
SURE_CONFIDENCE = 0.5
SURE_MARGIN = 0.2


#: Letters a text in these languages nearly always has (not the editions': lingua takes a
#: Ukrainian text with і alone for Belarusian or Kazakh otherwise) ...
_OWN_LETTERS = {"be": set("ўЎ"), "kk": set("әғқңөұүһӘҒҚҢӨҰҮҺ"), "mn": set("өүӨҮ")}
#: ... and letters their alphabets do not have.
_UK_BE_LETTERS = set("іїєґўІЇЄҐЎ")
_SOUTH_SLAVIC_LACKS = set("йщъыьэюяёЙЩЪЫЬЭЮЯЁ") | _UK_BE_LETTERS
_LACKS_LETTERS = {"bg": set("ыэёЫЭЁ") | _UK_BE_LETTERS, "be": set("ищъїєґИЩЪЇЄҐ"), "sr": _SOUTH_SLAVIC_LACKS,
                  "mk": _SOUTH_SLAVIC_LACKS, "kk": set("їєґўЇЄҐЎ"), "mn": _UK_BE_LETTERS}


def _possible(code: str, letters: set[str]) -> bool:
    """Whether a text of these ``letters`` can be in the Cyrillic language ``code``."""
    if code == "ru":
        return not not_russian(letters)
    if code in _OWN_LETTERS and not letters & _OWN_LETTERS[code]:
        return False
    return not letters & _LACKS_LETTERS.get(code, set())


def is_kana(ch: str) -> bool:
    """A hiragana or katakana letter (not the middle dot ・ or the long-vowel mark ー, which
    Chinese text uses too)."""
    return "\u3041" <= ch <= "\u3096" or "\u30a1" <= ch <= "\u30fa" or "\uff66" <= ch <= "\uff9d"


def not_russian(text: str | set[str]) -> bool:
    """Whether ``text`` (or its set of characters) has a Cyrillic letter the Russian alphabet
    lacks (Ukrainian і ї є ґ, Belarusian ў, Serbian and Macedonian ђ ј љ њ ћ џ ѓ ќ ѕ, Tatar and
    Kazakh ә ө ү ң ...)."""
    return any(ch not in RUSSIAN_LETTERS and _char_script(ch) == "cyrillic" for ch in set(text))


def wide_detector():
    """lingua over the editions' Latin and Cyrillic languages, :data:`OTHER_LATIN` and
    :data:`OTHER_CYRILLIC` (about 4 s and 500 MB, once per process; only :func:`detect` uses it,
    not the server's scoring)."""
    return _lingua(tuple(sorted({*IDENTIFIED, *OTHER_LATIN, *OTHER_CYRILLIC})))


def detect(texts: Sequence[str]) -> list[tuple[str | None, bool]]:
    """Each text's language (an ISO code, None with no letters) and whether it is sure.

    The script decides where it is one language's alone (Amharic, Arabic, Hebrew, Hindi in
    Devanagari); Chinese and Japanese by kana; Tatar and Ukrainian by their own letters;
    otherwise lingua among the editions' Latin and Cyrillic languages and a few others
    (:data:`OTHER_LATIN`, :data:`OTHER_CYRILLIC`, so those are named, not mistaken), sure from a
    confidence of :data:`SURE_CONFIDENCE` with a lead of :data:`SURE_MARGIN`. A guess the letters rule out
    gives way to the next: never Russian with letters the Russian alphabet lacks, never
    Belarusian without ў, Kazakh or Mongolian without a letter of their own, never a language
    with a letter its alphabet lacks. Romanised Hindi (Hinglish),
    and Tatar written without its own letters, cannot be told from other languages: give
    them."""
    out: list[tuple[str | None, bool]] = []
    ask: dict[int, str] = {}
    ask_letters: dict[int, set[str]] = {}
    for k, text in enumerate(texts):
        shares = script_shares(text)
        if not shares:
            out.append((None, False))
            continue
        script = shares.most_common(1)[0][0]
        letters = set(text)
        if script == "cjk":
            out.append(("ja" if any(is_kana(ch) for ch in letters) else "zh", True))
        elif script == "cyrillic" and letters & _TATAR and not letters & _NOT_TATAR:
            out.append(("tt", True))
        elif script == "cyrillic" and letters & _UKRAINIAN:
            out.append(("uk", True))
        elif script in ("latin", "cyrillic"):
            out.append((None, False))
            ask[k], ask_letters[k] = text, letters
        else:
            codes = languages_in_script(script)
            out.append((codes[0], True) if len(codes) == 1 else (None, False))
    if ask:
        found = wide_detector().compute_language_confidence_values_in_parallel(list(ask.values()))
        for k, values in zip(ask, found):
            if not values:
                continue
            # a guess the text's letters rule out gives way to the next
            values = [v for v in values if _possible(v.language.iso_code_639_1.name.lower(), ask_letters[k])]
            if not values:
                continue
            best, second = values[0].value, values[1].value if len(values) > 1 else 0.0
            code = values[0].language.iso_code_639_1.name.lower()
            sure = best >= SURE_CONFIDENCE and best - second >= SURE_MARGIN
            if not sure:  # a short text: its words decide when they are one language's everyday words
                by_words = language_by_words(ask[k], [v.language.iso_code_639_1.name.lower() for v in values])
                if by_words is not None:
                    code, sure = by_words, True
            out[k] = (code, sure)
    return out


#: How much likelier per word (log10 of the ratio, averaged over the words) a short text must be
#: in one language than in every other possible one for its words to decide what lingua could not.
WORDS_LEAD = 0.5
#: ... and be that language's words at all: their mean log10 frequency in it at least this (most
#: words in its list). Tatar written without its own letters has few words in Russian's list
#: (-7.4 to -5.6 on the 2025 inputs) and stays unsure, where Russian, English, German or Spanish
#: insults score -2.8 to -5.0.
WORDS_FLOOR = -5.0
#: The frequency a word a language's list lacks is given. wordfreq's small lists (words down to
#: 1e-6: a few MB a language, read in ~10 ms) are enough: a rarer word counts as unseen.
_UNSEEN = 1e-8
_WORD = re.compile(r"\w+")


def language_by_words(text: str, candidates: Sequence[str]) -> str | None:
    """The language among ``candidates`` in which ``text``'s words are likeliest (a unigram
    model: the mean of log10 of each word's frequency in the language, wordfreq's lists),
    when it leads every other candidate by :data:`WORDS_LEAD` and its words are the language's
    (:data:`WORDS_FLOOR`); else None. "this damn
    politician is a liar" is English by its words (-3.2 against -4.9 for the next), where
    lingua hesitates between Romanian and English; "idiot" alone stays unsure."""
    words = [w for w in _WORD.findall(text.lower()) if not w.isdigit()]
    # a language without a list of its own in wordfreq (it would answer with Russian's) is left out
    codes = [c for c in dict.fromkeys(candidates) if wordfreq_code(c) is not None]
    if not words or len(codes) < 1:
        return None
    # Imported here: wordfreq's lists are read only for a short text lingua is unsure of.
    from wordfreq import word_frequency

    scores = {}
    for code in codes:
        try:
            listed = wordfreq_code(code)
            scores[code] = sum(math.log10(max(word_frequency(w, listed, wordlist="small"), _UNSEEN))
                               for w in words) / len(words)
        except (LookupError, ValueError, OSError):
            continue
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    best, score = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else math.log10(_UNSEEN)
    return best if score >= WORDS_FLOOR and score - runner_up >= WORDS_LEAD else None


def pair_languages(inputs: Sequence[str], lang: str | Sequence[str] | None) -> tuple[list[str], str]:
    """Each pair's language and how it was had (``given`` or ``detected``), for
    ``detox_core.score`` and ``detox score``: ``lang`` for every pair, one code per pair, or
    None to detect each from its input (:func:`detect`). A pair too short to be sure takes
    lingua's first guess when the sure pairs of its script have that language, else the
    language they agree on (90% or more); a pair with no letters (an emoji, a number) takes
    the language most of the sure pairs have.

    Raises:
        DetoxInputError: a language that cannot be told: the message lists the pairs (up to
            five) and the fix.
    """
    if isinstance(lang, str):
        return [lang.strip().lower()] * len(inputs), "given"
    if lang is not None:
        lang = list(lang)
        if len(lang) != len(inputs):
            raise DetoxInputError(f"expected a language per input ({len(inputs)}), found {len(lang)}")
        return [str(c).strip().lower() for c in lang], "given"
    found = detect(inputs)
    langs: list[str | None] = [code if sure else None for code, sure in found]
    by_script: dict[str | None, Counter] = {}
    for text, code in zip(inputs, langs):
        if code is not None:
            by_script.setdefault(main_script(text), Counter())[code] += 1
    overall = sum(by_script.values(), Counter())
    for k, code in enumerate(langs):
        if code is None and main_script(inputs[k]) is None and overall:
            # no letters at all (an emoji, a number): the language of the file's sure pairs
            langs[k] = overall.most_common(1)[0][0]
        elif code is None:
            sure = by_script.get(main_script(inputs[k]), Counter())
            if found[k][0] is not None and found[k][0] in sure:
                langs[k] = found[k][0]
            elif sure:
                top, count = sure.most_common(1)[0]
                if count >= 0.9 * sum(sure.values()):
                    langs[k] = top
    unknown = [k for k, code in enumerate(langs) if code is None]
    if unknown:
        shown = "; ".join(f"pair {k + 1}: {inputs[k][:60]!r}" for k in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise DetoxInputError(
            f"the language of {len(unknown)} of the {len(inputs)} inputs cannot be told (too short, or in several "
            f"languages' words): {shown}{more}. Give the languages: lang=\"en\" for every pair or lang=[...] one "
            "code per pair in Python; --lang en, or a TSV with a lang column, for `detox score`")
    return [str(c) for c in langs], "detected"
