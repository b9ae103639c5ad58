"""Words, lexicon matches and word-level diffs of a toxic sentence and its rewrite.

Pure functions over strings; the HTML rendering of a diff lives in
:mod:`detox_core.ui.app.render`.
"""

from __future__ import annotations

import difflib
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from detox_core.languages import LANGUAGES
from detox_core.segment import SEGMENTERS

#: Characters that reorder the display of the text around them (bidirectional embeddings,
#: overrides and isolates): a name holding U+202E shows "txt.exe" as "exe.txt". Not the
#: marks U+200E/U+200F, which right-to-left text may need.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bidi_controls(text: str) -> list[str]:
    """The direction-control characters of ``text`` as code points ("U+202E"), each once."""
    return [f"U+{ord(c):04X}" for c in dict.fromkeys(text) if c in BIDI_CONTROLS]


# Arabic short vowels and other harakat (fathatan .. sukun, superscript alef): optional in
# writing, so a word is the same word with or without them.
_HARAKAT = dict.fromkeys([*range(0x064B, 0x0653), 0x0670])


def normalise_word(word: str) -> str:
    """Lower-case and fold ``ё`` into ``е``, as Russian text is written both ways; outside
    ASCII also the Unicode NFC form (one spelling for letters typed precomposed or not:
    Hindi "ड़" as one code point or two) without Arabic harakat."""
    if not word.isascii():
        word = unicodedata.normalize("NFC", word).translate(_HARAKAT)
    return word.lower().replace("ё", "е")


_SPACES_RE = re.compile(r"[ \t\r\n]+")


def normalise_spacing(text: str) -> str:
    """``text`` trimmed, with tabs and line breaks read as spaces and runs of spaces
    collapsed: how a sentence is matched after a trip through a crowd platform's export
    (which reflows those characters). Case and letters are kept."""
    return _SPACES_RE.sub(" ", text).strip()


# Combining marks that Python's ``\w`` does not match but that are part of a word: Devanagari
# vowel signs and virama (without them "भडवा" splits into "भडव" and "ा"), Hebrew points,
# Arabic harakat, combining accents, and the zero-width (non-)joiners of Indic and Persian text.
MARKS = ("\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
         "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed"
         "\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963\u200c\u200d")
_W = f"[\\w{MARKS}]"
# A word may hold inner hyphens, apostrophes or masking asterisks ("по-русски", "х*й").
WORD_RE = re.compile(f"{_W}+(?:[-'’*]+{_W}+)*")
# Every character belongs to exactly one token, so joining tokens restores the text.
TOKEN_RE = re.compile(f"{_W}+(?:[-'’*]+{_W}+)*|\\s+|[^\\w\\s{MARKS}]+")

# Scripts written without spaces between words (Chinese, Japanese kana): there, each
# character is a word of its own, so diffs and word counts work character by character.
_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
UNSPACED_RE = re.compile(f"[{_UNSPACED}]")
_SPACED_WORD = f"(?:(?![{_UNSPACED}]){_W})+"
UNSPACED_WORD_RE = re.compile(f"[{_UNSPACED}]|{_SPACED_WORD}(?:[-'’*]+{_SPACED_WORD})*")
UNSPACED_TOKEN_RE = re.compile(f"[{_UNSPACED}]|{_SPACED_WORD}(?:[-'’*]+{_SPACED_WORD})*|\\s+|[^\\w\\s{MARKS}]+")


def _word_re(text: str) -> re.Pattern[str]:
    """The word pattern for ``text``: character by character where a script has no spaces."""
    return UNSPACED_WORD_RE if UNSPACED_RE.search(text) else WORD_RE

Op = Literal["equal", "delete", "insert"]


def words(text: str) -> list[str]:
    """The normalised words of ``text`` (lower case, ``ё`` folded to ``е``)."""
    return [normalise_word(w) for w in _word_re(text).findall(text)]


_STEMMERS: dict[str, object] = {}
_STEMMER_LOCK = threading.Lock()
#: Two roots (stems where the language has a stemmer) are one word when they share a start this
#: long at least, and all but the last two characters of the shorter: Ukrainian "ідіот", "ідіоте",
#: "ідіотом" have no stemmer, and a stemmer may leave a case ending.
ROOT_PREFIX = 4


def _stemmer(name: str):
    with _STEMMER_LOCK:
        if name not in _STEMMERS:
            # nltk (installed for the 2022 script's chrF) takes a second to import: only comparing
            # the insults of two texts needs it.
            from nltk.stem.snowball import SnowballStemmer

            _STEMMERS[name] = SnowballStemmer(name)
        return _STEMMERS[name]


def warm_stemmers() -> None:
    """Build every language's stemmer (the server's warm-up: nltk's import takes a second or two,
    which a visitor's first card comparing insults would otherwise wait for)."""
    for known in LANGUAGES.values():
        if known.stemmer:
            _stemmer(known.stemmer)


def word_root(word: str, lang: str | None = None) -> str:
    """``word`` normalised, without a clitic prefix of ``lang`` (Arabic "ال", Hebrew "ה", when
    three letters stay) and stemmed by its Snowball stemmer where it has one."""
    word = normalise_word(word)
    known = LANGUAGES.get(lang or "")
    if known is None:
        return word
    for clitic in known.clitics:
        if word.startswith(clitic) and len(word) - len(clitic) >= 3:
            word = word[len(clitic):]
            break
    return _stemmer(known.stemmer).stem(word) if known.stemmer else word


def same_root(a: str, b: str, lang: str | None = None) -> bool:
    """Whether ``a`` and ``b`` are one word in two forms: the same :func:`word_root`, or roots
    sharing all but their last two characters (at least :data:`ROOT_PREFIX`)."""
    ra, rb = word_root(a, lang), word_root(b, lang)
    if ra == rb:
        return True
    shared = 0
    for x, y in zip(ra, rb):
        if x != y:
            break
        shared += 1
    return shared >= ROOT_PREFIX and shared >= min(len(ra), len(rb)) - 2


_KANA_RE = re.compile("[\u3040-\u30ff]")
#: Longest lexicon word looked for across segments of an unspaced script, in segments.
MAX_SEGMENTS = 6


def unspaced_language(text: str, lang: str | None = None) -> str | None:
    """``zh`` or ``ja`` when ``text`` is to be segmented as such, else None: the language
    given when it is one of them (and the text holds their characters); for another given
    language, None (a Han character in a Russian sentence does not make it Chinese); with
    no language, Japanese when the text holds kana, Chinese when it holds Han characters."""
    if lang in ("zh", "ja"):
        return lang if UNSPACED_RE.search(text) else None
    if lang is not None and lang not in ("", "und"):
        return None
    if _KANA_RE.search(text):
        return "ja"
    return "zh" if UNSPACED_RE.search(text) else None


_UNSPACED_RUN_RE = re.compile(f"[{_UNSPACED}]+")


def _phrases(lexicon: frozenset[str] | set[str]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The multi-word entries of ``lexicon`` ("halt die fresse", "иди на хуй"), by first
    word, longest first; cached per frozen lexicon object."""
    if not isinstance(lexicon, frozenset):
        return _phrase_index(lexicon)
    # By the object, not by its value: an equal lexicon loaded again (another object) would
    # make every lookup of a value-keyed cache compare the two sets word by word (138,000 words
    # for Russian: milliseconds per sentence). The cache holds the lexicon, so its id stays its own.
    with _PHRASES_LOCK:
        cached = _PHRASES.get(id(lexicon))
        if cached is not None and cached[0] is lexicon:
            _PHRASES.move_to_end(id(lexicon))
            return cached[1]
    index = _phrase_index(lexicon)
    with _PHRASES_LOCK:
        _PHRASES[id(lexicon)] = (lexicon, index)
        while len(_PHRASES) > _PHRASES_KEPT:
            _PHRASES.popitem(last=False)
    return index


def _phrase_index(lexicon) -> dict[str, tuple[tuple[str, ...], ...]]:
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for entry in lexicon:
        if " " in entry:
            parts = tuple(entry.split())
            if len(parts) > 1:
                by_first.setdefault(parts[0], []).append(parts)
    return {w: tuple(sorted(set(p), key=len, reverse=True)) for w, p in by_first.items()}


#: The phrase index of the last few frozen lexicons, by object (:func:`_phrases`).
_PHRASES: OrderedDict[int, tuple[frozenset[str], dict[str, tuple[tuple[str, ...], ...]]]] = OrderedDict()
_PHRASES_KEPT = 16
_PHRASES_LOCK = threading.Lock()


#: What may stand between the words of a multi-word entry: spaces only.
_PHRASE_GAP_RE = re.compile(r"\s+")


def _spaced_spans(text: str, lexicon: frozenset[str] | set[str], start: int = 0, end: int | None = None):
    """Spans of the lexicon's words, and of its multi-word entries (the words of the entry
    one after the other, with only spaces between), the longest entry first."""
    found = [(m.span(), normalise_word(m.group()))
             for m in WORD_RE.finditer(text, start, len(text) if end is None else end)]
    phrases = _phrases(lexicon)
    spans, i = [], 0
    while i < len(found):
        (a, b), word = found[i]
        for phrase in phrases.get(word, ()):
            k = len(phrase)
            if i + k <= len(found) and all(found[i + j][1] == phrase[j] for j in range(1, k)) and all(
                    _PHRASE_GAP_RE.fullmatch(text[found[i + j - 1][0][1]:found[i + j][0][0]]) for j in range(1, k)):
                spans.append((a, found[i + k - 1][0][1]))
                i += k
                break
        else:
            if word in lexicon:
                spans.append((a, b))
            i += 1
    return spans


def lexicon_spans(text: str, lexicon: frozenset[str] | set[str], lang: str | None = None) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the lexicon words of ``text``, in order.

    In spaced scripts a span is a word (:data:`WORD_RE`) whose normalised form is in
    ``lexicon``, or the words of a multi-word entry ("halt die fresse", "иди на хуй") one
    after the other with only spaces between, removed as a whole (the longest entry first). In Chinese and Japanese the runs of Han and kana characters are segmented
    into words first (:mod:`detox_core.segment`), and a span is the longest run of up to
    :data:`MAX_SEGMENTS` whole segments that is a lexicon word: "傻逼", cut "傻" + "逼" by
    the segmenter, is found, and a one-character entry ("鸡") is not found inside a longer
    word ("鸡蛋", egg). Latin or other letters between those runs ("SB") are whole words,
    as in spaced scripts: never cut letter by letter.
    """
    if not lexicon or not text:
        return []
    unspaced = unspaced_language(text, lang)
    if unspaced is None:
        return _spaced_spans(text, lexicon)

    spans: list[tuple[int, int]] = []
    pos = 0
    for run in _UNSPACED_RUN_RE.finditer(text):
        spans += _spaced_spans(text, lexicon, pos, run.start())
        spans += _unspaced_spans(run.group(), run.start(), lexicon, SEGMENTERS[unspaced])
        pos = run.end()
    return spans + _spaced_spans(text, lexicon, pos)


def _unspaced_spans(chunk: str, offset: int, lexicon, segment) -> list[tuple[int, int]]:
    """Lexicon spans of a run of Han or kana characters, cut into words by ``segment``."""
    pieces = segment(chunk)
    starts = [0]
    for piece in pieces:
        starts.append(starts[-1] + len(piece))
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(pieces):
        found = 0
        for j in range(min(len(pieces), i + MAX_SEGMENTS), i, -1):
            if normalise_word(chunk[starts[i]:starts[j]]) in lexicon:
                found = j
                break
        if found:
            spans.append((offset + starts[i], offset + starts[found]))
            i = found
        else:
            i += 1
    return spans


def lexicon_hits(text: str, lexicon: frozenset[str] | set[str], lang: str | None = None) -> list[str]:
    """The words of ``text`` found in ``lexicon``, in order, normalised (in Chinese and
    Japanese, after word segmentation: see :func:`lexicon_spans`)."""
    if not lexicon:
        return []
    return [normalise_word(text[a:b]) for a, b in lexicon_spans(text, lexicon, lang)]


@dataclass(frozen=True)
class Token:
    """One piece of a text in a diff view.

    Attributes:
        text: the original characters (whitespace tokens included).
        op: ``equal``, or ``delete`` (only in the source) / ``insert`` (only in the
            target).
        is_word: a word, as opposed to whitespace or punctuation.
        toxic: the word is in the lexicon.
    """

    text: str
    op: Op
    is_word: bool
    toxic: bool = False


@dataclass(frozen=True)
class WordDiff:
    """Both sides of a word-level diff; joining each side's texts restores it."""

    source: list[Token]
    target: list[Token]

    @property
    def removed(self) -> list[str]:
        return [normalise_word(t.text) for t in self.source if t.op == "delete" and t.is_word]

    @property
    def added(self) -> list[str]:
        return [normalise_word(t.text) for t in self.target if t.op == "insert" and t.is_word]


def _tokens(text: str) -> list[str]:
    return (UNSPACED_TOKEN_RE if UNSPACED_RE.search(text) else TOKEN_RE).findall(text)


def word_diff(source: str, target: str, lexicon: frozenset[str] | set[str] = frozenset(),
              lang: str | None = None) -> WordDiff:
    """Diff two texts word by word (case- and ``ё``-insensitive); in scripts written
    without spaces (Chinese, Japanese) character by character.

    Whitespace is kept for display but takes no part in the alignment, so a changed
    space never shows as an edit; punctuation marks are tokens of their own. A token is
    ``toxic`` when it lies in a lexicon word found by :func:`lexicon_spans` (in Chinese,
    each character of "傻逼").
    """
    src_tokens, tgt_tokens = _tokens(source), _tokens(target)
    src_idx = [i for i, t in enumerate(src_tokens) if not t.isspace()]
    tgt_idx = [i for i, t in enumerate(tgt_tokens) if not t.isspace()]
    a = [normalise_word(src_tokens[i]) for i in src_idx]
    b = [normalise_word(tgt_tokens[i]) for i in tgt_idx]
    src_ops: list[Op] = ["equal"] * len(src_tokens)
    tgt_ops: list[Op] = ["equal"] * len(tgt_tokens)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            for k in range(i1, i2):
                src_ops[src_idx[k]] = "delete"
        if tag in ("insert", "replace"):
            for k in range(j1, j2):
                tgt_ops[tgt_idx[k]] = "insert"

    def build(text: str, tokens: list[str], ops: list[Op]) -> list[Token]:
        toxic_chars: set[int] = set()
        for a, b in lexicon_spans(text, lexicon, lang):
            toxic_chars.update(range(a, b))
        out, pos = [], 0
        for tok, op in zip(tokens, ops):
            is_word = bool(UNSPACED_WORD_RE.fullmatch(tok) or WORD_RE.fullmatch(tok))
            out.append(Token(tok, op, is_word, is_word and pos in toxic_chars))
            pos += len(tok)
        return out

    return WordDiff(build(source, src_tokens, src_ops), build(target, tgt_tokens, tgt_ops))


EditKind = Literal["unchanged", "deletion", "rewrite"]


def edit_kind(source: str, target: str) -> EditKind:
    """Classify a rewrite by its words (punctuation and case ignored).

    ``unchanged``: same words; ``deletion``: the target's words are the source's
    with some removed and nothing added or replaced (the "Delete" baseline's kind of
    edit); ``rewrite``: anything else.
    """
    return edit_kind_of_words(words(source), words(target))


def edit_kind_of_words(a: list[str], b: list[str]) -> EditKind:
    """:func:`edit_kind` of two texts already split by :func:`words`."""
    if a == b:
        return "unchanged"
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    if all(tag in ("equal", "delete") for tag, *_ in matcher.get_opcodes()):
        return "deletion"
    return "rewrite"


def removed_words(pairs: Iterable[tuple[str, str]]) -> dict[str, int]:
    """Count, over (source, target) pairs, the source words missing from the target.

    A word counts once per pair in which it was removed.
    """
    counts: dict[str, int] = {}
    for source, target in pairs:
        gone = set(words(source)) - set(words(target))
        for w in gone:
            counts[w] = counts.get(w, 0) + 1
    return counts
