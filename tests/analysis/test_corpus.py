"""Search, filters and corpus statistics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core import editions
from detox_core.analysis.corpus import (
    corpus_stats,
    language_stats,
    CorpusQuery,
    filter_corpus,
    prepare_corpus,
    prepare_edits,
    public_columns,
)
from detox_core.errors import DetoxInputError
from tests.conftest import write_tiny_dataset


@pytest.fixture
def tiny(tmp_path):
    write_tiny_dataset(tmp_path)
    frame = editions.load_dataset("russe2022", None, tmp_path)
    lexicon = editions.load_dataset_lexicon("russe2022", tmp_path)
    prepared = prepare_corpus(frame, lexicon)
    return prepared, prepare_edits(prepared), lexicon


def ids(frame):
    return list(frame["pair_id"])


def test_prepare_adds_lengths_and_lexicon_words(tiny):
    prepared, _, _ = tiny
    row = prepared.set_index("pair_id").loc["train-0"]
    assert row["toxic_words"] == 4 and row["lexicon_words"] == "дебил" and row["n_lexicon"] == 1
    assert prepared.set_index("pair_id").loc["train-3", "lexicon_words"] == "блять"


def test_substring_search_ignores_case_and_yo(tiny):
    prepared, _, _ = tiny
    assert ids(filter_corpus(prepared, CorpusQuery(text="ДЕБИЛ"))) == ["train-0", "train-4"]
    assert ids(filter_corpus(prepared, CorpusQuery(text="елки"))) == ["train-3"]
    assert ids(filter_corpus(prepared, CorpusQuery(text="ёлки", case_sensitive=True))) == []
    assert ids(filter_corpus(prepared, CorpusQuery(text="Ёлки", case_sensitive=True))) == ["train-3"]


def test_search_field(tiny):
    prepared, _, _ = tiny
    assert ids(filter_corpus(prepared, CorpusQuery(text="человек", search_in="toxic"))) == []
    assert ids(filter_corpus(prepared, CorpusQuery(text="человек", search_in="neutral"))) == ["train-1"]
    # A paraphrase other than the first one matches too.
    assert ids(filter_corpus(prepared, CorpusQuery(text="неинтересная"))) == ["train-2"]


def test_regex_search_and_special_characters(tiny):
    prepared, _, _ = tiny
    assert ids(filter_corpus(prepared, CorpusQuery(text=r"^эт\w+ (мудак|человек)", regex=True))) == ["train-1"]
    # Without regex, special characters are literal.
    assert ids(filter_corpus(prepared, CorpusQuery(text="<script>"))) == ["dev-1"]
    assert ids(filter_corpus(prepared, CorpusQuery(text="("))) == ["dev-1"]


def test_invalid_regex_is_a_clear_error(tiny):
    prepared, _, _ = tiny
    with pytest.raises(DetoxInputError, match="invalid regular expression at position"):
        filter_corpus(prepared, CorpusQuery(text="(дебил", regex=True))


def test_filters_combine(tiny):
    prepared, _, _ = tiny
    assert ids(filter_corpus(prepared, CorpusQuery(splits=["dev", "test"]))) == ["dev-0", "dev-1", "test-0"]
    assert ids(filter_corpus(prepared, CorpusQuery(n_refs=[2, 3]))) == ["train-0", "train-2"]
    assert ids(filter_corpus(prepared, CorpusQuery(min_words=5))) == ["train-2", "train-3", "dev-1"]
    assert ids(filter_corpus(prepared, CorpusQuery(max_words=3))) == ["dev-0"]
    assert ids(filter_corpus(prepared, CorpusQuery(lexicon="without"))) == ["train-4"]
    assert ids(filter_corpus(prepared, CorpusQuery(text="дебил", lexicon="with"))) == ["train-0"]


def test_public_columns_drop_internal(tiny):
    prepared, _, _ = tiny
    assert not [c for c in public_columns(prepared).columns if c.startswith("_")]


def test_stats_by_hand(tiny):
    prepared, edits, lexicon = tiny
    stats = corpus_stats(prepared, edits, lexicon)
    assert stats.n_pairs == 8 and stats.n_edits == 11
    # Pure deletions: train-3 (drops "блять"), train-4 (drops "дебилы" and quotes),
    # test-0 (drops "сука"); the 8 other paraphrases add or replace words.
    assert stats.edit_kinds.to_dict() == {"unchanged": 0, "deletion": 3, "rewrite": 8}
    assert stats.deletion_share == pytest.approx(3 / 11)
    assert stats.refs_per_input.to_dict() == {1: 6, 2: 1, 3: 1}
    top = stats.removed.set_index("word")
    assert top.loc["дебил", "count"] == 2 and bool(top.loc["дебил", "in_lexicon"])
    assert top.loc["хрень", "count"] == 3


def test_stats_of_a_subset_use_only_its_edits(tiny):
    prepared, edits, lexicon = tiny
    sub = filter_corpus(prepared, CorpusQuery(splits=["test"]))
    stats = corpus_stats(sub, edits, lexicon)
    assert stats.n_edits == 1 and stats.removed["word"].tolist() == ["сука"]


def test_real_corpus_statistics(real_data):
    frame = editions.load_dataset("russe2022", None, real_data.parent)
    lexicon = editions.load_dataset_lexicon("russe2022", real_data.parent)
    prepared = prepare_corpus(frame, lexicon)
    stats = corpus_stats(prepared, prepare_edits(prepared), lexicon)
    assert stats.n_pairs == 6948 + 800 + 875
    assert stats.n_edits == int(prepared["n_refs"].sum())
    # Most removed words are swear words of the lexicon.
    assert stats.removed.head(5)["in_lexicon"].all()
    assert 0.1 < stats.deletion_share < 0.5


# Patterns of the ReDoS literature (nested or overlapping repetition), and the one that
# held a server core at 100% before searches were bounded.
CATASTROPHIC = [
    r"(\w+\s?)+Ж!", r"(a+)+$", r"(a|a)*b", r"(.*a){12}", r"^(([a-z])+.)+[A-Z]([a-z])+$",
    r"(а|аа)+$", r"(.*?,){11}P", r"(\w|\d)+!", r"((((.*)*)*)*)*ЖЖ", r"(е+е+)+ы",
]


@pytest.fixture(scope="module")
def whole_corpus(real_data):
    return prepare_corpus(editions.load_dataset("russe2022", ("train", "dev", "test"), real_data.parent))


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_regex_finishes_or_is_refused(whole_corpus, pattern):
    # The search stops at its time budget (test_regex_budget_refuses_with_a_clear_message): a pattern
    # that backtracks without end is refused with a way out, never left running.
    for case in (False, True):
        try:
            filter_corpus(whole_corpus, CorpusQuery(text=pattern, regex=True, case_sensitive=case))
        except DetoxInputError as err:
            assert "took longer than" in str(err) and "simplify" in str(err)


def test_regex_budget_refuses_with_a_clear_message(tiny):
    from detox_core.analysis.regex_search import compile_pattern, search_mask

    pattern = compile_pattern(r"(a|aa)+$", True, True)
    with pytest.raises(DetoxInputError, match="took longer than 0.05 s"):
        search_mask(pattern, ["a" * 40 + "!"] * 10, budget_s=0.05)
    assert search_mask(compile_pattern("дебил", True, False), ["ты дебил", "нет"]) == [True, False]


def test_an_over_long_search_is_refused(tiny):
    for regex in (False, True):
        with pytest.raises(DetoxInputError, match="at most 500"):
            filter_corpus(tiny[0], CorpusQuery(text="а" * 501, regex=regex))


def test_language_statistics_count_each_language_and_say_what_has_no_paraphrase():
    frame = pd.DataFrame({
        "pair_id": ["d-ar-0", "d-ar-1", "d-zh-0", "d-de-0"], "split": "d", "lang": ["ar", "ar", "zh", "de"],
        "toxic_comment": ["أنت غبي جدا", "اسكت يا أحمق", "你这个白痴", "du bist so dumm"],
        "neutral_comment1": ["أنت مخطئ", "", "你错了", ""], "neutral_comment2": "", "neutral_comment3": "",
        "line": [2, 3, 4, 5], "index": range(4),
    })
    frame["n_refs"] = (frame["neutral_comment1"] != "").astype(int)
    prepared = prepare_corpus(frame)
    table = language_stats(prepared, prepare_edits(prepared)).set_index("lang")
    assert list(table.index) == ["ar", "zh", "de"] and table.loc["ar", "language"] == "Arabic"
    assert table.loc["ar", "pairs"] == 2 and table.loc["ar", "with_reference"] == 0.5 and table.loc["ar", "paraphrases"] == 1
    # Chinese is measured in characters: 5 for the toxic sentence, 3 for its paraphrase.
    assert table.loc["zh", "toxic_length"] == 5 and table.loc["zh", "neutral_length"] == 3
    # German has no paraphrase: no length, no share of deletions (not a zero).
    assert table.loc["de", "paraphrases"] == 0 and np.isnan(table.loc["de", "neutral_length"])
    assert np.isnan(table.loc["de", "deletions"])


@pytest.mark.parametrize("pattern", ["(?:x{65535}){65535}", "(?:a{1000}){1000}", "(?:a{1000}|b){1000}",
                                     "a{1000}{1000}", "x{65535}", "(?:(?:a{40}){40}){40}", "[ab]{3000}{10}"])
def test_a_pattern_that_unfolds_too_much_is_refused_before_compiling(pattern):
    from detox_core.analysis.regex_search import compile_pattern
    with pytest.raises(DetoxInputError, match="repeats too much"):
        compile_pattern(pattern, True, False)


@pytest.mark.parametrize("pattern", [r"\bду(р|б)\w{0,3}", r"\p{L}{3,5}", "x{,5}", "a{2,}", "(?:(?:a{20}){20}){20}",
                                     r"^.{10,200}$", "[а-я]{3}(?:ой|ый)"])
def test_ordinary_counted_patterns_still_search(pattern):
    from detox_core.analysis.regex_search import compile_pattern
    assert compile_pattern(pattern, True, False).pattern


@pytest.mark.parametrize("pattern", ["(?V1)x", "(?a)(?u)x"])
def test_clashing_inline_flags_are_a_clear_error(pattern):
    from detox_core.analysis.regex_search import compile_pattern
    with pytest.raises(DetoxInputError, match="inline flags"):
        compile_pattern(pattern, True, False)


def test_the_largest_accepted_pattern_costs_a_few_megabytes_and_is_not_cached():
    """Compile memory is bounded by the size limit, and a search's pattern does not stay in
    the regex module's cache (6 distinct links used to keep ~1 GB)."""
    import subprocess
    import sys
    code = (
        "import regex._main\n"
        "from detox_core.analysis.regex_search import compile_pattern, MAX_PATTERN_SIZE, pattern_size\n"
        "def rss(): return int(open('/proc/self/statm').read().split()[1]) * 4096 / 2**20\n"
        "p = '(?:a{140}){140}'\n"
        "assert pattern_size(p) <= MAX_PATTERN_SIZE\n"
        "r0, c0 = rss(), len(regex._main._cache)\n"
        "for k in range(6):\n"
        "    compile_pattern(p + 'b' * k, True, False)\n"
        "print(rss() - r0, len(regex._main._cache) - c0)\n"
    )
    from detox_core.data import PROJECT_ROOT
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PROJECT_ROOT).stdout.split()
    grown, cached = float(out[0]), int(out[1])
    assert grown < 40, f"{grown:.0f} MB kept by 6 searches"
    assert cached == 0


def _peak_rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


# The three links that passed the size estimate and took 6 GB in 7.5 s: a "[" inside a set,
# a comment between a group and its count, verbose whitespace between them.
ESCAPED_ESTIMATE = ["[[](?:x{65535}){65535}", "(?:x{9000})(?#){9000}", "(?x)(?:x{1000}) {1000}"]


def _fuzz(n: int = 40) -> list[str]:
    """Nested counted repeats dressed in what a parser may read differently: sets,
    comments, verbose whitespace, inline flags, escapes, alternation."""
    import random

    rnd = random.Random(37)
    dressing = ["", "(?#)", "(?#x{9})", " ", "[[]", "[]]", r"\{", "(?i)", "(?s)", "|", "[{]", "(?:)"]
    out = []
    for _ in range(n):
        inner = rnd.choice(["x", "a", "[ab]", r"\w", "(?:xy)"]) + "{" + str(rnd.choice([500, 3000, 9000, 65535])) + "}"
        group = "(?:" + rnd.choice(dressing) + inner + rnd.choice(dressing) + ")"
        flags = rnd.choice(["", "(?x)", "(?x)(?i)"])
        sep = " " if flags.startswith("(?x)") and rnd.random() < 0.5 else rnd.choice(["", "(?#)", "(?#c)"])
        out.append(flags + rnd.choice(dressing[:5]) + group + sep + "{" + str(rnd.choice([1000, 9000, 65535])) + "}")
    return out


@pytest.mark.parametrize("patterns", [ESCAPED_ESTIMATE, _fuzz()], ids=["issue-links", "fuzz"])
def test_no_pattern_reaches_the_servers_memory(tiny, patterns):
    """Patterns are compiled in a capped worker process: whatever the estimate misses is
    refused there, and this process's peak memory does not move."""
    before = _peak_rss_mb()
    refused = 0
    for pattern in patterns:
        try:
            filter_corpus(tiny[0], CorpusQuery(text=pattern, regex=True))
        except DetoxInputError as err:
            refused += 1
            assert "Traceback" not in str(err) and ("memory" in str(err) or "repeats too much" in str(err)
                                                   or "invalid regular expression" in str(err)), str(err)
    assert _peak_rss_mb() - before < 30, "a pattern was compiled in this process"
    if patterns is ESCAPED_ESTIMATE:
        assert refused == 3


def test_the_escaped_estimates_are_refused_for_their_memory_with_advice(tiny):
    for pattern in ESCAPED_ESTIMATE:
        with pytest.raises(DetoxInputError, match="needs more memory than a search may use") as err:
            filter_corpus(tiny[0], CorpusQuery(text=pattern, regex=True))
        assert "(?:x{100}){100}" in str(err.value)


def test_a_dead_worker_is_replaced_and_searches_go_on(tiny):
    from detox_core.analysis import regex_search

    pool = regex_search.WorkerPool(size=1)
    texts = ["ты дурак", "ты не прав"]
    assert pool.search("ду(р|б)ак", False, texts) == [True, False]
    worker = pool._idle[0]
    worker.proc.kill()
    worker.proc.wait()
    # The next search finds it dead, retires it, and the one after starts a new worker.
    try:
        pool.search("прав", False, texts)
    except DetoxInputError:
        pass
    assert pool.search(r"\bправ\b", False, texts) == [False, True]
    assert pool._count == 1
    pool.close()


def test_python_regex_features_still_work_in_the_worker(tiny):
    """Unicode \\w and \\b, look-arounds and back-references: what the regex module offers,
    and what an engine such as RE2 would refuse."""
    from detox_core.analysis import regex_search

    texts = ["ты дурак дурак", "он не прав", "HELLO"]
    assert regex_search.search(r"\b(\w+) \1\b", False, texts) == [True, False, False]
    assert regex_search.search(r"(?<=не )прав", False, texts) == [False, True, False]
    assert regex_search.search("hello", False, texts) == [False, False, True]  # case ignored unless asked
    assert regex_search.search("hello", True, texts) == [False, False, False]
    assert regex_search.search("HELLO", True, texts) == [False, False, True]
    assert regex_search.search("ДУРАК", False, texts) == [True, False, False]
