"""Validate, score once, store: the Submissions page's library side."""

from __future__ import annotations

import pytest

from detox_core.data import DetoxInputError
from detox_core.submissions.store import Store
from detox_core.submissions.service import filter_sentences, score_and_store, sentence_table, shipped_outputs

INPUTS = ["ты дебил, иди отсюда", "сука как же надоело"]
REFS = [["ты неправ"], ["как же надоело"]]


@pytest.fixture
def store(tiny_data):
    return Store(f"sqlite:///{tiny_data / 'x.sqlite'}")


def call(store, content, name="sys.txt"):
    return score_and_store(store, content, name, dataset="russe2022", split="test", inputs=INPUTS, references=REFS,
                           preset="embedded", calibrated=True, source="upload")


def test_bad_file_stores_nothing(store):
    with pytest.raises(DetoxInputError, match="line"):
        call(store, "только одна\n".encode())
    with pytest.raises(DetoxInputError, match="UTF-8"):
        call(store, "а\nб\n".encode("cp1251"))
    assert store.list().empty


def test_scored_once_then_recognised(store):
    first, already = call(store, "ты неправ, иди отсюда\nкак же надоело\n".encode())
    assert not already and first.n == 2
    again, already = call(store, "ты неправ, иди отсюда\nкак же надоело\n".encode(), name="renamed.txt")
    assert already and again.id == first.id


def test_sentence_table_explains_and_filters(store, tiny_data):
    meta, _ = call(store, "ты неправ, иди отсюда\nсука как же надоело\n".encode())
    table = sentence_table(store.scores(meta.id), REFS, frozenset({"сука", "дебил"}))
    assert list(table["line"]) == [1, 2]
    assert "unchanged copy of the input" in table.loc[1, "flags"]
    assert "still contains lexicon words" in table.loc[1, "flags"]
    assert table.loc[0, "references"] == "ты неправ"
    assert list(filter_sentences(table, text="НЕПРАВ")["line"]) == [1]
    assert list(filter_sentences(table, flags=["unchanged copy of the input"])["line"]) == [2]
    assert filter_sentences(table, j_below=-1).empty
    assert set(shipped_outputs("russe2022", "test", tiny_data)) == {"copy", "delete"}
