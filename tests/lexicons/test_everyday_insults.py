"""Every language's lexicon on everyday insults: the Delete baseline removes the words a
person would delete (inflected forms and multi-word insults included) and keeps every
other word, and ordinary sentences lose nothing.

The sentences are ``everyday_insults.tsv`` beside this file. The lexicons are the ones the
app loads (``data/lexicons`` with the repository's supplement merged), or, where they are
not built, the supplement alone.
"""

from __future__ import annotations

import csv
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from detox_core import config
from detox_core.lexicons import (LexiconSource, ToxicLexicon, lexicon_for, load_lexicons, supplement_words,
                                 write_lexicons)
from detox_core.lexicons.build import LANGUAGES, build_language
from detox_core.segment import available
from detox_core.rewriters.baselines import delete_baseline
from detox_core.text import words

TSV = Path(__file__).with_name("everyday_insults.tsv")
UD = config.SHARED_MIRRORS / "ud"


def rows(kind: str) -> list[dict]:
    with TSV.open(encoding="utf-8", newline="") as fh:
        lines = [line for line in fh if not line.startswith("#")]
    return [r for r in csv.DictReader(lines, delimiter="\t") if r["kind"] == kind]


@cache
def shipped() -> dict[str, frozenset[str]]:
    built = load_lexicons(config.data_dir())
    return {lang: built[lang].words if lang in built else supplement_words(lang) for lang in LANGUAGES}


def without(sentence: str, toxic: list[str]) -> list[str]:
    """The words of ``sentence`` once each toxic entry (one or more words, or characters in
    Chinese and Japanese) is taken out where it stands."""
    left = words(sentence)
    for entry in toxic:
        part = words(entry)
        at = next((i for i in range(len(left) - len(part) + 1) if left[i:i + len(part)] == part), None)
        assert at is not None, f"{entry!r} is not in {sentence!r}"
        del left[at:at + len(part)]
    return left


def needs_segmenter(lang: str):
    if lang in ("zh", "ja") and not available()[lang]:
        pytest.skip(f"no word segmenter for {lang}")


def test_every_language_has_everyday_insults_and_ordinary_sentences():
    assert {r["lang"] for r in rows("insult")} == set(LANGUAGES)
    assert {r["lang"] for r in rows("neutral")} == set(LANGUAGES)
    assert all(4 <= sum(r["lang"] == lang for r in rows("insult")) <= 6 for lang in LANGUAGES)


@pytest.mark.parametrize("row", rows("insult"), ids=lambda r: f"{r['lang']}:{r['sentence'][:30]}")
def test_delete_removes_the_insults_and_keeps_every_other_word(row):
    lang = row["lang"]
    needs_segmenter(lang)
    toxic = [w.strip() for w in row["delete"].split(";") if w.strip()]
    out = delete_baseline(row["sentence"], shipped()[lang], lang)
    assert words(out) == without(row["sentence"], toxic), f"{row['sentence']!r} -> {out!r}"
    # What is left reads as a sentence: no leading comma, no doubled spaces or commas.
    assert not out.startswith((",", "،", "、", "，", "-")) and "  " not in out and ",," not in out, out


@pytest.mark.parametrize("row", rows("neutral"), ids=lambda r: f"{r['lang']}:{r['sentence'][:30]}")
def test_ordinary_sentences_lose_no_word(row):
    needs_segmenter(row["lang"])
    out = delete_baseline(row["sentence"], shipped()[row["lang"]], row["lang"])
    assert words(out) == words(row["sentence"]), f"{row['sentence']!r} -> {out!r}"


#: Treebank sentences (news, fiction, web text) the supplement may take a word from: web text
#: holds real insults ("You're an idiot." in English), the news none.
MAX_TREEBANK_SHARE = 1 / 200


#: Languages without treebank sentences in the shared data, by design: a skip there is right
#: even in CI (``ci_may_skip``, tests/ci_skips.py).
NO_TREEBANK = {"hin": "no Hinglish treebank ships its text: the shared mirror has none, by design "
                      "(shared/data/ud/README.md)"}


@pytest.mark.parametrize("lang", [pytest.param(lang, marks=pytest.mark.ci_may_skip(reason=NO_TREEBANK[lang]))
                                  if lang in NO_TREEBANK else lang for lang in LANGUAGES])
def test_the_supplement_leaves_ordinary_treebank_sentences_alone(lang):
    """The curated supplement adds (almost) no deletion to Universal Dependencies sentences of
    the language, where the shared data holds them."""
    path = UD / f"{lang}.tsv"
    if not path.is_file():
        pytest.skip(f"no treebank sentences for {lang} in the shared data")
    needs_segmenter(lang)
    extra = supplement_words(lang)
    assert extra, f"{lang} has no supplement"
    with path.open(encoding="utf-8", newline="") as fh:
        texts = [r["text"] for r in csv.DictReader(fh, delimiter="\t")]
    lost = {t: out for t in texts if words(out := delete_baseline(t, extra, lang)) != words(t)}
    assert len(lost) <= MAX_TREEBANK_SHARE * len(texts), list(lost.items())[:10]


def test_the_supplement_takes_ordinary_words_out_of_the_built_lists():
    built = load_lexicons(config.data_dir())
    if "ru" not in built:
        pytest.skip("lexicons not built (python -m detox_core build-lexicons)")
    assert "какая" not in built["ru"].words and "иди на хуй" in built["ru"].words
    assert any(s.name == "project supplement" for s in built["de"].sources)


def test_a_rebuild_merges_the_supplement_and_a_list_built_before_it_picks_it_up(tmp_path):
    # Rebuilding: the supplement is one of the sources, its exclusions leave the others.
    rebuilt = build_language("ru", glin=set(), hub=set(), russian=frozenset({"хуй", "какая", "мудак"}), texts=[])
    assert {"иди на хуй", "заткнись", "хуй", "мудак"} <= rebuilt.words and "какая" not in rebuilt.words
    assert "project supplement" in {s.name for s in rebuilt.sources}
    assert delete_baseline("Иди на хуй, придурок.", rebuilt.words, "ru") == ""
    # Already built without it: the loaded list is the built one with the supplement applied.
    write_lexicons({"de": ToxicLexicon("de", frozenset({"arschloch"}), (LexiconSource("glin-profanity", 1),))},
                   tmp_path)
    loaded = load_lexicons(tmp_path)["de"]
    assert {"arschloch", "halt die fresse", "verdammter", "idiot"} <= loaded.words
    assert [s.name for s in loaded.sources] == ["glin-profanity", "project supplement"]
    assert lexicon_for("de", tmp_path).words == loaded.words
    assert delete_baseline("Du bist ein verdammter Idiot, halt die Fresse.", loaded.words, "de") == "Du bist ein."
