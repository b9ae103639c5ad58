"""The Live scoring request: lines parsed, limits enforced with the box and line named."""

from __future__ import annotations

import pytest

from detox_core.errors import DetoxInputError
from detox_core.metrics.chrf import pair_chrf
from detox_core.limits import MAX_TEXT_CHARS
from detox_core.live.request import MAX_CANDIDATES, example_boxes, parse_request


def test_lines_become_candidates_and_references():
    req = parse_request("  ты дебил ", "ты неправ\n\n  уйди \r\n", "ты не прав")
    assert req.source == "ты дебил"
    assert req.candidates == ("ты неправ", "уйди") and req.references == ("ты не прав",)


def test_too_many_rewrites_are_refused():
    with pytest.raises(DetoxInputError, match=f"Candidate rewrites: {MAX_CANDIDATES + 1} lines; at most"):
        parse_request("x", "\n".join(f"r{k}" for k in range(MAX_CANDIDATES + 1)))


def test_an_over_long_text_is_refused_with_its_line():
    with pytest.raises(DetoxInputError, match="Candidate rewrites, line 2: 1,001 characters"):
        parse_request("x", "ok\n" + "а" * (MAX_TEXT_CHARS + 1))
    with pytest.raises(DetoxInputError, match="Toxic sentence, line 1"):
        parse_request("а" * (MAX_TEXT_CHARS + 1), "ok")


def test_nul_is_refused_with_its_column():
    with pytest.raises(DetoxInputError, match="References, line 1, column 3: a NUL character"):
        parse_request("x", "y", "ab\x00c")


def test_a_corpus_example_never_scores_a_candidate_against_a_copy_of_itself():
    # A RUSSE-2022 training pair whose third paraphrase is the first one without a space:
    # to chrF (which ignores whitespace) that reference is the candidate, and chrF would be 1.
    paraphrases = ["Какие наушники ? Где альбом?", "какие наушники?где альбом?", "Какие наушники? Где альбом?"]
    candidates, references = example_boxes(paraphrases, "Какие наушники? ГДЕ АЛЬБОМ?")
    assert candidates == ["Какие наушники ? Где альбом?", "Какие наушники? ГДЕ АЛЬБОМ?"]
    assert references == ["какие наушники?где альбом?"]
    assert max(pair_chrf(c, references) for c in candidates) < 1.0
    # The Delete baseline equal to the first paraphrase is not a second candidate; a repeated paraphrase is one reference.
    assert example_boxes(["a b", "c", "c "], "ab") == (["a b"], ["c"])
    assert example_boxes(["only one"], "") == (["only one"], [])
    # A RUSSE-2022 dev pair whose second paraphrase is the first less its full stop: chrF 0.99,
    # shown as 1.00 on the page, so it is a copy too and the pair has no reference.
    stop = "я вам в очередной раз напоминаю, что он проиграл суд первой инстанции Олеже Ссаколову"
    assert pair_chrf(stop + ".", [stop]) > 0.99
    assert example_boxes([stop + ".", stop], "") == ([stop + "."], [])
    # Marks are letters' parts: Hindi paraphrases that differ in a vowel sign are two texts.
    assert example_boxes(["वे लोग है", "वे लोग हैं"], "") == (["वे लोग है"], ["वे लोग हैं"])
