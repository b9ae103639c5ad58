"""Searching, filtering and describing a parallel corpus.

:func:`prepare_corpus` adds the derived columns once (lengths, lexicon hits,
lower-cased search text); :func:`filter_corpus` then answers a search over the
8,600 RUSSE-2022 pairs in milliseconds, and :func:`corpus_stats` gives the numbers the
Corpus page plots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from detox_core.analysis import regex_search
from detox_core.data import PARAPHRASE_COLUMNS
from detox_core.text import normalise_word
from detox_core.text import edit_kind_of_words, lexicon_hits, words
from detox_core.vocab import language_name

Field = Literal["toxic", "neutral", "both"]
LexiconFilter = Literal["any", "with", "without"]


def prepare_corpus(frame: pd.DataFrame, lexicon: frozenset[str] = frozenset(),
                   lexicons: Mapping[str, frozenset[str]] | None = None) -> pd.DataFrame:
    """Add the columns search, filters and statistics need.

    Adds ``toxic_words``, ``toxic_chars``, ``lexicon_words`` (the toxic sentence's
    lexicon words, comma-separated), ``n_lexicon`` and lower-cased, ``ё``-folded
    ``_toxic_lc`` / ``_neutral_lc`` for case-insensitive search.

    Args:
        frame: corpus rows.
        lexicon: the toxic lexicon of a monolingual corpus.
        lexicons: language -> lexicon, for a corpus with a ``lang`` column: each row is
            matched with its language's list (Chinese and Japanese after segmentation),
            never with another language's.
    """
    out = frame.copy()
    split = [words(t) for t in out["toxic_comment"].tolist()]
    out["toxic_words"] = pd.Series([len(w) for w in split], index=out.index, dtype=int)
    out["toxic_chars"] = out["toxic_comment"].str.len().astype(int)
    if lexicons is not None and "lang" in out.columns:
        found = [lexicon_hits(t, lexicons.get(lang, frozenset()), lang)
                 for t, lang in zip(out["toxic_comment"].tolist(), out["lang"].tolist())]
    else:
        found = [[w for w in ws if w in lexicon] for ws in split]
    hits = pd.Series(found, index=out.index, dtype=object)
    out["lexicon_words"] = hits.map(lambda h: ", ".join(dict.fromkeys(h)))
    out["n_lexicon"] = hits.map(len).astype(int)
    out["_toxic_lc"] = out["toxic_comment"].map(normalise_word)
    neutral = out[PARAPHRASE_COLUMNS[0]]
    for col in PARAPHRASE_COLUMNS[1:]:
        neutral = neutral + "\n" + out[col]  # "\n".join of the row's paraphrases, column-wise
    out["_neutral"] = neutral
    out["_neutral_lc"] = neutral.map(normalise_word)
    return out


@dataclass
class CorpusQuery:
    """What the user asked for on the Corpus page.

    Attributes:
        text: substring or regular expression; empty matches everything.
        regex: treat ``text`` as a Python regular expression.
        case_sensitive: off by default; then case and ``ё``/``е`` are ignored.
        search_in: search in the toxic sentence, the paraphrases, or both.
        splits: keep only these splits (empty = all).
        n_refs: keep rows with these numbers of paraphrases (empty = all).
        min_words / max_words: toxic sentence length in words (None = no bound).
        lexicon: ``with`` / ``without`` lexicon words in the toxic sentence.
    """

    text: str = ""
    regex: bool = False
    case_sensitive: bool = False
    search_in: Field = "both"
    splits: Sequence[str] = field(default_factory=tuple)
    n_refs: Sequence[int] = field(default_factory=tuple)
    min_words: int | None = None
    max_words: int | None = None
    lexicon: LexiconFilter = "any"


def filter_corpus(prepared: pd.DataFrame, query: CorpusQuery) -> pd.DataFrame:
    """Rows of a :func:`prepare_corpus` frame that match ``query``, in corpus order."""
    mask = pd.Series(True, index=prepared.index)
    if query.splits:
        mask &= prepared["split"].isin(list(query.splits))
    if query.n_refs:
        mask &= prepared["n_refs"].isin(list(query.n_refs))
    if query.min_words is not None:
        mask &= prepared["toxic_words"] >= query.min_words
    if query.max_words is not None:
        mask &= prepared["toxic_words"] <= query.max_words
    if query.lexicon == "with":
        mask &= prepared["n_lexicon"] > 0
    elif query.lexicon == "without":
        mask &= prepared["n_lexicon"] == 0
    if query.text:
        sub = prepared[mask]
        if query.case_sensitive:
            cols = {"toxic": ["toxic_comment"], "neutral": ["_neutral"], "both": ["toxic_comment", "_neutral"]}[query.search_in]
        else:
            cols = {"toxic": ["_toxic_lc"], "neutral": ["_neutral_lc"], "both": ["_toxic_lc", "_neutral_lc"]}[query.search_in]
        if query.regex:  # compiled and matched in a capped worker process, never here
            texts = [t for c in cols for t in sub[c]]
            found = regex_search.search(query.text, query.case_sensitive, texts)
            hit = pd.Series(False, index=sub.index)
            for i in range(len(cols)):
                hit |= pd.Series(found[i * len(sub):(i + 1) * len(sub)], index=sub.index, dtype=bool)
        else:
            regex_search.checked_pattern(query.text, False, query.case_sensitive)  # its length
            needle = query.text if query.case_sensitive else normalise_word(query.text)
            hit = pd.Series(False, index=sub.index)
            for c in cols:
                hit |= sub[c].str.contains(needle, regex=False)
        mask.loc[sub.index] &= hit
    return prepared[mask]


def public_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Drop the internal search columns (for display and export)."""
    return frame[[c for c in frame.columns if not c.startswith("_")]]


@dataclass
class CorpusStats:
    """Numbers that describe a corpus (or a filtered part of it).

    Attributes:
        n_pairs: toxic sentences.
        n_edits: (toxic, paraphrase) pairs.
        lengths: long frame ``text`` (toxic/neutral), ``words`` per sentence.
        refs_per_input: paraphrases per toxic sentence -> rows.
        removed: most often removed words with ``count`` and ``in_lexicon``.
        edit_kinds: ``unchanged``/``deletion``/``rewrite`` -> number of edits.
    """

    n_pairs: int
    n_edits: int
    lengths: pd.DataFrame
    refs_per_input: pd.Series
    removed: pd.DataFrame
    edit_kinds: pd.Series

    @property
    def deletion_share(self) -> float:
        """Share of edits that only delete words (unchanged copies excluded)."""
        changed = self.edit_kinds.get("deletion", 0) + self.edit_kinds.get("rewrite", 0)
        return float(self.edit_kinds.get("deletion", 0) / changed) if changed else 0.0


def prepare_edits(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (toxic sentence, paraphrase), with what the paraphrase changed.

    Columns: ``pair_id``, ``toxic``, ``neutral``, ``neutral_words`` (length),
    ``kind`` (see :func:`detox_core.text.edit_kind`) and ``removed`` (the set of
    source words missing from the paraphrase). Computed once per corpus, so that
    statistics of any filtered subset are a cheap aggregation.
    """
    parts = []
    for col in PARAPHRASE_COLUMNS:
        sub = frame[frame[col] != ""]
        parts.append(pd.DataFrame({"pair_id": sub["pair_id"], "toxic": sub["toxic_comment"], "neutral": sub[col]}))
    out = pd.concat(parts, ignore_index=True)
    # Each toxic sentence has up to three paraphrases: split every distinct text once.
    toxic, neutral = out["toxic"].tolist(), out["neutral"].tolist()
    split = {t: words(t) for t in {*toxic, *neutral}}
    out["neutral_words"] = pd.Series([len(split[t]) for t in neutral], index=out.index, dtype=int)
    out["kind"] = [edit_kind_of_words(split[a], split[b]) for a, b in zip(toxic, neutral)]
    out["removed"] = [frozenset(split[a]) - frozenset(split[b]) for a, b in zip(toxic, neutral)]
    return out


def corpus_stats(
    prepared: pd.DataFrame,
    edits: pd.DataFrame,
    lexicon: frozenset[str] = frozenset(),
    top: int = 30,
    min_word_chars: int = 3,
) -> CorpusStats:
    """Describe a prepared corpus (or a filtered part of it).

    Args:
        prepared: rows of :func:`prepare_corpus` (filtered or not).
        edits: :func:`prepare_edits` of the whole corpus; only edits of
            ``prepared``'s pairs are counted.
        lexicon: marks which removed words are lexicon words.
        top: how many removed words to return.
        min_word_chars: removed words shorter than this (conjunctions,
            prepositions) are left out of the ranking.
    """
    keep = set(prepared["pair_id"])
    pairs = edits[edits["pair_id"].isin(keep)]  # a mask, also when empty ([] would select columns)
    lengths = pd.concat(
        [
            pd.DataFrame({"text": "toxic", "words": prepared["toxic_words"]}),
            pd.DataFrame({"text": "neutral", "words": pairs["neutral_words"]}),
        ],
        ignore_index=True,
    )
    counts: dict[str, int] = {}
    for gone in pairs["removed"]:
        for w in gone:
            if len(w) >= min_word_chars:
                counts[w] = counts.get(w, 0) + 1
    removed = (
        pd.DataFrame({"word": list(counts), "count": list(counts.values())}, columns=["word", "count"])
        .sort_values(["count", "word"], ascending=[False, True])
        .head(top)
        .reset_index(drop=True)
    )
    # Set membership in Python: pandas' isin against a 100k-word set is far slower.
    removed["in_lexicon"] = [w in lexicon for w in removed["word"]]
    edit_kinds = pairs["kind"].value_counts().reindex(["unchanged", "deletion", "rewrite"], fill_value=0)
    return CorpusStats(
        n_pairs=len(prepared),
        n_edits=len(pairs),
        lengths=lengths,
        refs_per_input=prepared["n_refs"].value_counts().sort_index(),
        removed=removed,
        edit_kinds=edit_kinds,
    )


def language_stats(prepared: pd.DataFrame, edits: pd.DataFrame) -> pd.DataFrame:
    """One row per language of a multilingual corpus (or part of it), in order of appearance.

    Columns: ``lang``, ``language``, ``pairs`` (toxic sentences), ``with_reference`` (share
    of them with at least one paraphrase), ``paraphrases``, ``toxic_length`` and
    ``neutral_length`` (median words; characters for scripts written without spaces),
    ``deletions`` (share of changed paraphrases that only delete words; NaN without
    paraphrases) and ``unchanged`` (paraphrases equal to the input, word for word).
    """
    pairs = edits[edits["pair_id"].isin(set(prepared["pair_id"]))]
    lang_of = dict(zip(prepared["pair_id"], prepared["lang"]))
    pairs = pairs.assign(lang=pairs["pair_id"].map(lang_of))
    rows = []
    for lang, part in prepared.groupby("lang", sort=False):
        mine = pairs[pairs["lang"] == lang]
        kinds = mine["kind"].value_counts()
        changed = kinds.get("deletion", 0) + kinds.get("rewrite", 0)
        rows.append({
            "lang": lang, "language": language_name(lang), "pairs": len(part),
            "with_reference": float((part["n_refs"] > 0).mean()), "paraphrases": len(mine),
            "toxic_length": float(part["toxic_words"].median()),
            "neutral_length": float(mine["neutral_words"].median()) if len(mine) else float("nan"),
            "deletions": float(kinds.get("deletion", 0) / changed) if changed else float("nan"),
            "unchanged": int(kinds.get("unchanged", 0)),
        })
    return pd.DataFrame(rows, columns=["lang", "language", "pairs", "with_reference", "paraphrases", "toxic_length",
                                       "neutral_length", "deletions", "unchanged"])
