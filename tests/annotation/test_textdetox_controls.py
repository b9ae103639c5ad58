"""TextDetox projects make their control questions offline, as RUSSE-2022 projects do:
from the references of the development inputs (the data mirror's copy of the hub's), in
every language whose texts are written with spaces between words."""

from __future__ import annotations

import pytest

from detox_core import editions
from detox_core.annotation.projects import control_corpus, controls_problem, language_controls
from detox_core.annotation.tasks import TASKS
from detox_core.data import PARAPHRASE_COLUMNS
from detox_core.lexicons import load_lexicons
from detox_core.text import lexicon_hits

SPACED = ["am", "ar", "de", "en", "es", "hi", "ru", "uk"]


@pytest.fixture(scope="module")
def references():
    if "dev" not in editions.EDITIONS["textdetox2024"].available_splits():
        pytest.skip("the TextDetox 2024 references are not fetched (python -m detox_core fetch-data)")
    return editions.load_dataset("textdetox2024", ["dev"])


def _public(corpus) -> set[str]:
    return {str(t).strip() for c in ("toxic_comment", *PARAPHRASE_COLUMNS) if c in corpus for t in corpus[c]}


def test_a_project_judging_the_test_split_gets_controls_in_every_language(references):
    # The sidebar shows the judged split only (test: no references): the references come anyway.
    shown = editions.load_dataset("textdetox2024", ["test"])
    corpus = control_corpus("textdetox2024", shown, "test")
    lexicons = {lang: lex.words for lang, lex in load_lexicons().items()}
    controls, exam, plan = language_controls(corpus, TASKS, SPACED, per_task=40, exam_per_task=12,
                                             lexicons=lexicons, exclude=set(shown["toxic_comment"].str.strip()))
    assert controls_problem(plan) == ""
    for lang in SPACED:
        for task in TASKS:
            mine = [c for c in controls if c.lang == lang and c.task == task]
            assert len(mine) == 40 and {c.golden for c in mine} >= {0.0, 1.0}, (lang, task)
            assert sum(c.lang == lang and c.task == task for c in exam) == 12
    public = _public(references) | _public(shown)
    assert not [c.text for c in controls + exam if c.text.strip() in public]  # never a corpus text verbatim
    if lexicons.get("en"):  # the language's own word list decides what offends
        toxic = [c for c in controls if c.lang == "en" and c.task == "toxicity" and c.golden == 1.0]
        assert all(lexicon_hits(c.text, lexicons["en"]) for c in toxic)


def test_a_textdetox_2025_project_uses_the_2024_references_but_not_its_judged_inputs(references):
    # TextDetox 2025's test inputs are 2024's development inputs: judged here, 100 of them in English.
    judged = references[references["lang"] == "en"]["toxic_comment"].str.strip().head(100)
    corpus = control_corpus("textdetox2025", editions.load_dataset("textdetox2025", ["test"]), "test")
    controls, exam, plan = language_controls(corpus, TASKS, ["en"], per_task=20, exam_per_task=6,
                                             exclude=set(judged))
    assert controls_problem(plan) == "" and len(controls) == 60 and len(exam) == 18
    assert not {c.input.strip() for c in controls + exam if c.input} & set(judged)
