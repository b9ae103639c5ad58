"""Building the toxic lexicon of every TextDetox language from what is at hand offline.

Sources, per language (each list says which it used, see ``sources.json``):

- **glin-profanity** (MIT, installed from PyPI): the package's own dictionaries, read from
  the installed package at build time (never copied into this repository). Its ``hindi``
  list is romanised, so it is the Hinglish (``hin``) seed, not Hindi's.
- **RUSSE-2022 lexicon** (the Russian edition's ``lexicon/toxic_vocab.txt``, 139k Russian word
  forms): Russian; and, for Ukrainian and Tatar, the forms of it that occur in their
  toxic texts (Russian obscenities are used in both).
- **TextDetox hub lexicon** (``textdetox/multilingual_toxic_lexicon``, fetched by
  ``fetch-data`` as ``lexicon/hub_toxic_lexicon.tsv`` of a TextDetox edition when the hub or a
  local copy is reachable).
- **corpus keyness**: words of the toxic texts no test set holds (per language: the editions'
  inputs outside the held-out registry and the toxic texts of the TextDetox toxicity data,
  :func:`detox_core.editions.inputs.read_inputs`) that are at least :data:`MIN_RATIO` times
  more frequent there than in general use (``wordfreq``), seen in at least :data:`MIN_COUNT`
  texts, and confirmed: they contain a word of the language's seed list (``glin-profanity``,
  the hub lexicon, or the Russian lexicon for Ukrainian). Unconfirmed keyness picks topical
  words ("wikipedia", "vandalism", user names), so it is not used alone.
- **project supplement** (``detox_core/lexicons/supplement/<lang>.txt``, written for this
  project): everyday insults with their inflected forms and multi-word insults ("halt die
  fresse", "shut up", "иди на хуй"), which the other sources miss or cannot hold (they keep
  single words only); its ``-word`` lines take ordinary words out of the other sources.
Nothing is learnt from a test set: not from the editions' test inputs, nor from what the
systems of the meta-evaluation sample removed from them (a source of earlier versions).

A list is *weak* when it has fewer than :data:`MIN_STRONG` words, when no curated list
(glin-profanity, the hub lexicon, the RUSSE-2022 lexicon) gave words to it, or when it finds a
word in fewer than :data:`MIN_COVERAGE` of the language's toxic texts.
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from importlib.resources import files
from pathlib import Path

from detox_core import config, editions
from detox_core.editions import inputs as edition_inputs
from detox_core.data.formats import load_lexicon
from detox_core.languages import LANGUAGES as LANGUAGES_TABLE
from detox_core.languages import UNSPACED, Language
from detox_core.lexicons.base import (SUPPLEMENT_DETAIL, SUPPLEMENT_SOURCE, LexiconSource, ToxicLexicon,
                                      supplement_exclusions, supplement_words, write_lexicons)
from detox_core.segment import SEGMENTERS
from detox_core.text import WORD_RE, lexicon_spans, normalise_word

#: The languages a lexicon is built for: every language of the editions.
LANGUAGES = editions.all_languages()
MIN_COUNT = 3  # inputs a keyness candidate appears in (2 for the languages with 100 inputs)
MIN_RATIO = 1000.0  # document frequency in the toxic texts / general frequency
FLOOR = 1e-7  # general frequency given to a word wordfreq does not know
MIN_RUSSIAN_FREQ = 1e-7  # a Russian form found in Ukrainian or Tatar inputs is kept when Russian uses it
MIN_SEED_CHARS = 4  # a seed shorter than this is matched whole only (no "ass" inside "class")
MIN_STRONG = 100
#: Share of a language's toxic texts in which a strong list finds at least one word.
MIN_COVERAGE = 0.5
HUB_LEXICON_REPO = "textdetox/multilingual_toxic_lexicon"
HTML_ENTITIES = frozenset({"amp", "gt", "lt", "quot", "nbsp"})  # left over from "&amp;" in scraped text
CURATED = ("glin-profanity", "RUSSE-2022 lexicon", "TextDetox hub lexicon")


def _language(lang: str) -> Language:
    """The table's facts of ``lang`` (glin-profanity's dictionary, wordfreq's list, ...); none for a code it lacks."""
    return LANGUAGES_TABLE.get(lang) or Language(lang, lang, lang, "")


def _multilingual_editions():
    return [e for e in editions.editions() if e.multilingual]


def _hub_lexicon_paths(root: Path) -> list[Path]:
    """The hub lexicon's copies of the editions that list it, newest edition first."""
    return [e.path(f.rel, root) for e in reversed(_multilingual_editions()) for f in e.files
            if f.hub is not None and f.hub.repo_id == HUB_LEXICON_REPO]


def _russian_lexicon_path(root: Path) -> Path | None:
    """The lexicon of the Russian edition (RUSSE-2022), when fetched."""

    for e in editions.editions():
        if e.languages == ("ru",) and e.lexicon:
            return e.optional(e.lexicon, root)
    return None


def tokenize(text: str, lang: str) -> list[str]:
    """Normalised words of ``text``: segmented in Chinese and Japanese."""
    if lang in UNSPACED:
        return [normalise_word(w) for w in SEGMENTERS[lang](text) if WORD_RE.fullmatch(w)]
    return [normalise_word(w) for w in WORD_RE.findall(text)]


def _single_words(entries: Iterable[str], lang: str) -> set[str]:
    """The entries that are one word (multi-word phrases and symbol spellings like "a$$"
    cannot be matched word by word)."""
    out = set()
    for entry in entries:
        word = normalise_word(str(entry).strip())
        if lang in UNSPACED:
            ok = bool(word) and not any(c.isspace() for c in word) and any(c.isalnum() for c in word)
        else:
            ok = bool(WORD_RE.fullmatch(word))
        if ok and not word.isdigit():
            out.add(word)
    return out


def glin_words(lang: str) -> set[str]:
    """The single words of glin-profanity's dictionary for ``lang`` (empty when it has
    none or the package is not installed)."""
    name = _language(lang).glin
    if name is None:
        return set()
    try:

        path = files("glin_profanity") / "data" / "dictionaries" / f"{name}.json"
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ModuleNotFoundError, FileNotFoundError, ValueError):
        return set()
    return _single_words(data.get("words", []), lang)


def _tsv_pairs(path: Path, column: str):
    """``(row[column], row["lang"])`` of a TSV's rows that have both (none when the file is absent)."""
    if not path.is_file():
        return
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row.get(column) and row.get("lang"):
                yield row[column], row["lang"]


def read_inputs(root: Path) -> dict[str, list[str]]:
    """The toxic texts per language that no test set holds, each text once
    (:func:`detox_core.editions.inputs.read_inputs`)."""
    return edition_inputs.read_inputs(root, LANGUAGES)


def read_hub_lexicon(root: Path) -> dict[str, set[str]]:
    """The hub lexicon's words per language (``text``, ``lang`` TSV), when fetched."""
    out: dict[str, set[str]] = defaultdict(set)
    for path in _hub_lexicon_paths(root):
        if not path.is_file():
            continue
        for text, lang in _tsv_pairs(path, "text"):
            out[lang].update(_single_words([text], lang))
        break  # the 2025 copy holds the 2024 languages too
    return dict(out)


def keyness(texts: list[str], lang: str, min_count: int) -> dict[str, float]:
    """Word -> log10 of (share of inputs holding it / general frequency), for the words
    of at least ``min_count`` inputs whose ratio is at least :data:`MIN_RATIO`."""
    wf_lang = _language(lang).wordfreq
    if wf_lang is None or not texts:
        return {}
    from wordfreq import get_frequency_dict  # noqa: PLC0415

    # The table itself, not word_frequency(): that one re-tokenises the word, which for
    # Japanese needs MeCab's own Python binding; our words are segmented already.
    general = get_frequency_dict(wf_lang)

    counts: Counter = Counter()
    for text in texts:
        counts.update(set(tokenize(text, lang)))
    out = {}
    for word, n in counts.items():
        if n < min_count or word.isdigit() or "_" in word or word in HTML_ENTITIES:  # "user_0": anonymised users
            continue
        if lang in UNSPACED and len(word) < 2:  # one character: a morpheme of many words ("拳" of "女拳")
            continue
        ratio = (n / len(texts)) / max(general.get(word, 0.0), FLOOR)
        if ratio >= MIN_RATIO:
            out[word] = math.log10(ratio)
    return out


def seed_neighbour(word: str, seeds: set[str], unspaced: bool) -> bool:
    """``word`` is a seed, holds one of :data:`MIN_SEED_CHARS` or more characters (two in
    Chinese and Japanese): "cunts", "abgefuckten"; or, in spaced scripts, begins with the
    same :data:`MIN_SEED_CHARS` characters as a seed (another ending: "пиздять", "пиздить")."""
    if word in seeds:
        return True
    shortest = 2 if unspaced else MIN_SEED_CHARS
    if any(len(s) >= shortest and s in word for s in seeds):
        return True
    return not unspaced and len(word) >= MIN_SEED_CHARS and any(
        s[:MIN_SEED_CHARS] == word[:MIN_SEED_CHARS] for s in seeds if len(s) >= MIN_SEED_CHARS)


def build_language(lang: str, *, glin: set[str], hub: set[str], russian: frozenset[str],
                   texts: list[str]) -> ToxicLexicon:
    """One language's lexicon from its sources (see the module's docstring)."""
    parts: dict[str, tuple[set[str], str]] = {}
    if glin:
        parts["glin-profanity"] = (glin, f"the package's {_language(lang).glin} dictionary, single words"
                                   + (" (romanised Hindi)" if lang == "hin" else ""))
    if hub:
        parts["TextDetox hub lexicon"] = (hub, f"textdetox/multilingual_toxic_lexicon, split {lang}")
    if lang == "ru" and russian:
        parts["RUSSE-2022 lexicon"] = (set(russian), "the RUSSE-2022 edition's lexicon/toxic_vocab.txt (word forms)")
    vocab = Counter(w for t in texts for w in set(tokenize(t, lang)))
    if _language(lang).russian_forms and russian:
        from wordfreq import get_frequency_dict  # noqa: PLC0415

        # In real Russian use (Tatar "минем", "my", is a form of the lexicon too).
        ru_general = get_frequency_dict("ru")
        found = {w for w in vocab if w in russian and len(w) >= 3 and ru_general.get(w, 0.0) >= MIN_RUSSIAN_FREQ}
        if found:
            parts["RUSSE-2022 lexicon"] = (found, "Russian toxic word forms found in this language's toxic texts")
    seeds = set().union(*(words for words, _ in parts.values())) if parts else set()
    min_count = MIN_COUNT if len(texts) >= 500 else 2
    unspaced = lang in UNSPACED
    key = keyness(texts, lang, min_count)
    # English obscenities are borrowed by the other Latin-script languages ("abgefuckt", "fucking").
    near = seeds | (glin_words("en") if _language(lang).borrows_english else set())
    if seeds:
        confirmed = {w for w in key if seed_neighbour(w, near, unspaced)}
        how = "holding a seed word"
    else:  # nothing to confirm with (Hindi, Hebrew): keyness alone, and the list is weak
        confirmed, how = set(key), "not confirmed (no seed list)"
    if confirmed:
        parts["corpus keyness"] = (confirmed, f"words of the {len(texts):,} toxic texts at least {MIN_RATIO:,.0f} "
                                   f"times more frequent there than in wordfreq's {lang} list, in at least "
                                   f"{min_count} inputs, {how}")
    if supplement := supplement_words(lang):
        parts[SUPPLEMENT_SOURCE] = (set(supplement), SUPPLEMENT_DETAIL)
    if drop := supplement_exclusions(lang):  # ordinary words a source holds
        parts = {name: (w - drop, detail) for name, (w, detail) in parts.items() if w - drop}
    words = frozenset().union(*(w for w, _ in parts.values())) if parts else frozenset()
    sources = tuple(LexiconSource(name, len(w), detail) for name, (w, detail) in parts.items())
    curated = [s.name for s in sources if s.name in CURATED and (lang == "ru" or s.name != "RUSSE-2022 lexicon")]
    reasons = []
    if not curated:
        reasons.append("no curated profanity list for this language; the words are picked by statistics")
    if len(words) < MIN_STRONG:
        reasons.append(f"only {len(words)} words")
    if len(texts) < 500 and not curated:
        reasons.append(f"only {len(texts)} toxic texts to learn from")
    if texts and words:
        # How often the list finds something where something is there to find: a long list of
        # words nobody writes (Japanese: 179 words, 5 of 100 inputs) is weak too.
        found = sum(1 for t in texts if lexicon_spans(t, words, lang))
        if found < MIN_COVERAGE * len(texts):
            reasons.append(f"it finds a word in only {found / len(texts):.0%} of the {len(texts):,} toxic texts")
    return ToxicLexicon(lang, words, sources, "weak" if reasons else "strong", "; ".join(reasons))


def build_lexicons(root: Path | None = None, languages: Iterable[str] = LANGUAGES,
                   step: Callable[[str], None] | None = None) -> dict[str, ToxicLexicon]:
    """Build every language's lexicon from the data folder and the installed packages,
    and write them to ``<root>/lexicons`` (deterministic: same inputs, same files)."""
    root = Path(root if root is not None else config.data_dir())
    inputs = read_inputs(root)
    hub = read_hub_lexicon(root)
    russian_path = _russian_lexicon_path(root)
    if russian_path is not None:

        russian = load_lexicon(russian_path)
    else:
        russian = frozenset()
    out = {}
    for lang in languages:
        out[lang] = build_language(lang, glin=glin_words(lang), hub=hub.get(lang, set()), russian=russian,
                                   texts=inputs.get(lang, []))
        if step:
            step(f"{lang}: {out[lang].describe()}")
    write_lexicons(out, root)
    return out
