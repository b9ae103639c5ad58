"""Uploaded worked examples and control items per language: the contract and its errors
(each naming the file, the line and the column)."""

from __future__ import annotations

import pytest

from detox_core.annotation.controls import load_controls
from detox_core.annotation.instructions import UI_LANGUAGES, localized
from detox_core.annotation.tasks import SPECS, TASKS
from detox_core.annotation.uploads import load_examples
from detox_core.errors import DetoxInputError, UnknownNameError

HEADER = "lang\ttask\ttext\tanswer\texplanation\tinput\n"
GOOD = (HEADER
        + "ar\ttoxicity\tأنت غبي جدا\tyes\tإهانة مباشرة\t\n"
        + "de\tcontent\tDieser Mensch ist zu spät.\tno\tThe meaning changed.\tDieser Idiot kommt zu spät.\n"
        + "de\tfluency\tkommt spät Mensch der\tnot fluent\tBroken word order.\t\n")


def tsv(body: str) -> bytes:
    return body.encode("utf-8")


def test_examples_file_is_read_with_language_task_answer_and_explanation():
    got = load_examples(tsv(GOOD), name="examples.tsv")
    assert [(e.lang, e.task, e.label) for e in got] == [("ar", "toxicity", 1.0), ("de", "content", 0.0),
                                                        ("de", "fluency", 0.0)]
    assert got[0].text == "أنت غبي جدا" and got[0].explanation == "إهانة مباشرة"
    assert got[1].input == "Dieser Idiot kommt zu spät."
    # Columns in another order and answers written as numbers read the same.
    shuffled = "explanation\tanswer\ttask\ttext\tlang\nwhy\t0.5\tfluency\tein Satz Satz\tde\n"
    (one,) = load_examples(tsv(shuffled), name="x.tsv")
    assert (one.task, one.label, one.lang) == ("fluency", 0.5, "de")


@pytest.mark.parametrize("body, line, column, words", [
    ("lang\ttask\ttext\tanswer\nar\ttoxicity\tx\tyes\n", 1, "explanation", "missing column 'explanation'"),
    (HEADER, None, None, "at least one example"),
    (HEADER + "xx\ttoxicity\tx\tyes\twhy\t\n", 2, "lang", "unknown language code 'xx'"),
    (HEADER + "\ttoxicity\tx\tyes\twhy\t\n", 2, "lang", "lang is empty"),
    (HEADER + "ar\ttoxic\tx\tyes\twhy\t\n", 2, "task", "unknown task 'toxic'"),
    (HEADER + "ar\ttoxicity\t \tyes\twhy\t\n", 2, "text", "text is empty"),
    (HEADER + "ar\ttoxicity\tx\tmaybe\twhy\t\n", 2, "answer", "'maybe' is not an answer of the toxicity task"),
    (HEADER + "ar\tfluency\tx\tyes\twhy\t\n", 2, "answer", "not an answer of the fluency task"),
    (HEADER + "ar\ttoxicity\tx\tyes\t\t\n", 2, "explanation", "explanation is empty"),
    (HEADER + "ar\ttoxicity\tx\tyes\twhy\t\nde\tcontent\ty\tyes\twhy\t\n", 3, "input", "original sentence"),
    (HEADER + "ar\ttoxicity\tx\tyes\twhy\n", 2, None, "fields"),  # a record with a field missing
])
def test_each_kind_of_bad_example_line_is_named_with_its_line_and_column(body, line, column, words):
    with pytest.raises(DetoxInputError) as err:
        load_examples(tsv(body), name="examples.tsv")
    assert words in str(err.value)
    assert err.value.path == "examples.tsv"
    if line is not None:
        assert err.value.line == line
    if column is not None:
        assert err.value.column == column


def test_an_example_of_a_language_the_project_does_not_judge_is_refused():
    with pytest.raises(DetoxInputError) as err:
        load_examples(tsv(GOOD), name="e.tsv", languages=["ar", "ru"])
    assert err.value.line == 3 and err.value.column == "lang" and "does not judge German (de)" in str(err.value)


def test_uploaded_controls_carry_their_language_and_kind():
    body = ("lang\ttask\ttext\tgolden\tinput\tkind\n"
            "ar\ttoxicity\tأنت غبي\t1\t\t\n"
            "ar\tcontent\tهذا الشخص متأخر\tyes\tهذا الأحمق متأخر\texam\n")
    got = load_controls(tsv(body), name="c.tsv", languages=["ar", "de"])
    assert [(c.lang, c.task, c.golden, c.kind) for c in got] == [("ar", "toxicity", 1.0, "control"),
                                                                 ("ar", "content", 1.0, "exam")]
    # A project of one language: the column may be left out.
    (one,) = load_controls(tsv("task\ttext\tgolden\ntoxicity\tx\tno\n"), name="c.tsv", languages=["ar"])
    assert one.lang == "ar" and one.golden == 0.0


@pytest.mark.parametrize("body, languages, line, column, words", [
    ("task\ttext\tgolden\ntoxicity\tx\tno\n", ["ar", "de"], 2, "lang", "lang is empty"),
    ("lang\ttask\ttext\tgolden\nfr\ttoxicity\tx\tno\n", ["ar", "de"], 2, "lang", "does not judge French (fr)"),
    ("lang\ttask\ttext\tgolden\tkind\nar\ttoxicity\tx\tno\ttraining\n", ["ar"], 2, "kind", "unknown kind"),
    ("lang\ttask\ttext\tgolden\nar\tcontent\tx\tno\n", ["ar"], 2, "input", "original sentence"),
    ("lang\ttask\ttext\tgolden\nar\tfluency\tx\t2\n", ["ar"], 2, "golden", "'2' is not an answer"),
    ("lang\ttask\ttext\nar\tfluency\tx\n", ["ar"], 1, "golden", "missing column 'golden'"),
])
def test_each_kind_of_bad_control_line_is_named(body, languages, line, column, words):
    with pytest.raises(DetoxInputError) as err:
        load_controls(tsv(body), name="c.tsv", languages=languages)
    assert words in str(err.value) and (err.value.line, err.value.column) == (line, column)
    assert "c.tsv" in str(err.value)


def test_every_task_has_instructions_in_english_and_russian_with_the_same_answers():
    assert set(UI_LANGUAGES) == {"en", "ru"}
    for task in TASKS:
        en, ru = localized(task, "en"), localized(task, "ru")
        assert en is SPECS[task]
        # The stored labels and keys never change with the language; every word does.
        assert [v for v, _ in ru.options] == [v for v, _ in en.options] and ru.keys == en.keys
        assert ru.question != en.question and ru.instructions != en.instructions and ru.title != en.title
        assert all(a != b for (_, a), (_, b) in zip(ru.options, en.options))
        assert [e.text for e in ru.examples] == [e.text for e in en.examples]
        assert all(a.explanation != b.explanation for a, b in zip(ru.examples, en.examples))
        assert all(any("а" <= ch <= "я" for ch in e.explanation) for e in (*ru.examples, *ru.training))
    with pytest.raises(UnknownNameError):
        localized("toxicity", "de")
