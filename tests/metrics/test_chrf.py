"""chrF equals sacrebleu's sentence chrF, with one or several references."""

from __future__ import annotations

import math

import pytest
import sacrebleu

from detox_core.metrics.chrf import pair_chrf, sentence_chrf

CASES = [
    ("какой человек это придумывает", ["Кто это придумывает?"]),
    ("в такой ситуации виноваты ребята", ["В такой ситуации виноваты из ростелекома", "виноваты ребята"]),
    ("совсем другое", ["ничего общего", "абсолютно", "совсем не то"]),
    ("", ["что-то"]),
    ("а", ["а"]),
    ("  пробелы   не  считаются ", ["пробелы не считаются"]),
]


@pytest.mark.parametrize("hyp, refs", CASES)
def test_equals_sacrebleu(hyp, refs):
    assert pair_chrf(hyp, refs) == pytest.approx(sacrebleu.sentence_chrf(hyp, refs).score / 100, abs=1e-12)


def test_vector_and_missing_references():
    scores = sentence_chrf(["а б", "в"], [["а б"], []])
    assert scores[0] == pytest.approx(1.0) and math.isnan(scores[1])
    assert sentence_chrf(["x"], [["", ""]])[0] != sentence_chrf(["x"], [["", ""]])[0]  # NaN: empty refs ignored


def test_ngram_cache_is_bounded_by_bytes_and_changes_no_score(monkeypatch):
    from detox_core.metrics import chrf

    texts = [f"вариант номер {i} какого-то текста" for i in range(200)]
    refs = [["какой-то текст", f"номер {i}"] for i in range(200)]
    expected = sentence_chrf(texts, refs)
    monkeypatch.setattr(chrf._NGRAMS, "max_bytes", 20_000)
    chrf._NGRAMS.clear()
    got = sentence_chrf(texts, refs)
    assert chrf._NGRAMS.bytes <= 20_000 and chrf._NGRAMS.evictions > 0
    assert (got == expected).all()
