"""Multilingual projects: items carry their language, an annotator judges one language,
control questions per language (corpus or upload), examples per language, and a
database made before languages still opens."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import pytest
from sqlalchemy import text

from detox_core.annotation.controls import Control
from detox_core.annotation.projects import (
    control_coverage, controls_problem, language_controls, pairs_from_submissions,
)
from detox_core.annotation.results import aggregate_project, humaneval_table
from detox_core.annotation.store import AnnotationStore, Settings
from detox_core.annotation.tasks import Example
from detox_core.errors import AnnotationError
from detox_core.metrics.base import RAW_COLUMNS, SCORE_COLUMNS
from detox_core.submissions.store import Store
from tests.annotation.test_store import T0, active, make_pairs

TEXTS = {"ar": "نص عربي رقم {i}", "de": "deutscher Text Nummer {i}", "ru": "русский текст номер {i}"}


def lang_pairs(n: int = 6, langs=("ar", "de")) -> pd.DataFrame:
    return pd.DataFrame([{"system": "sys", "idx": k * 100 + i, "lang": lang, "input": TEXTS[lang].format(i=i) + " !",
                          "output": TEXTS[lang].format(i=i)} for k, lang in enumerate(langs) for i in range(n)])


def lang_controls(lang: str, n: int = 4, task: str = "toxicity") -> list[Control]:
    return [Control(task, f"{lang} control {i}", float(i % 2), lang=lang) for i in range(n)]


def test_items_carry_their_language_and_an_annotator_gets_pages_of_one_language(store):
    p = store.create_project("multi", ["toxicity"], lang_pairs(),
                             controls=lang_controls("ar") + lang_controls("de"),
                             settings=Settings(page_size=4, controls_per_page=1, min_page_seconds=0))
    items = store.items(p.id)
    assert store.languages(p.id) == ["ar", "de"]
    assert items.groupby("kind")["lang"].apply(lambda s: sorted(set(s))).to_dict() == {
        "control": ["ar", "de"], "real": ["ar", "de"]}
    assert set(store.pairs(p.id)["lang"]) == {"ar", "de"}
    a = active(store, p.access_code, "amal")
    store.choose_language(a, "ar")
    lang_of = items.set_index("item")["lang"]
    known = {c.text: c.golden for c in lang_controls("ar")}
    seen = []
    while (page := store.next_page(a, "toxicity", now=T0)) is not None:
        assert {i.lang for i in page.items} == {"ar"}  # real and control items alike
        seen += [i.id for i in page.items]
        # Control items answered right (their known answer), so that quality control keeps the annotator.
        store.submit_page(a, page.assignment_id, {i.id: known.get(i.text, 0.0) for i in page.items},
                          now=T0 + timedelta(minutes=1))
    real_ar = set(items[(items["kind"] == "real") & (items["lang"] == "ar")]["item"])
    assert real_ar <= set(seen) and set(lang_of[seen]) == {"ar"}
    # The export says each pair's language.
    table = humaneval_table(store, p, aggregate_project(store, p), complete_only=False)
    assert table.groupby("lang").size().to_dict() == {"ar": 6, "de": 6}
    assert table[table["lang"] == "ar"]["non-toxicity"].notna().all()
    assert table[table["lang"] == "de"]["non-toxicity"].isna().all()
    # The language is chosen once; a language the project does not judge is refused.
    with pytest.raises(AnnotationError, match="join again under another name"):
        store.choose_language(a, "de")
    b = active(store, p.access_code, "bernd")
    with pytest.raises(AnnotationError, match="does not judge French"):
        store.choose_language(b, "fr")
    assert store.annotator(b).lang is None


def test_the_exam_is_drawn_in_the_annotators_language(store):
    exam = [Control("toxicity", f"{lang} exam {i}", float(i % 2), lang=lang) for lang in ("ar", "de") for i in range(4)]
    p = store.create_project("exam", ["toxicity"], lang_pairs(), exam=exam, settings=Settings(training=False,
                                                                                               exam_size=0))
    ann = store.join(p.access_code, "dana")
    store.choose_language(ann.id, "de")
    page = store.exam(ann.id)
    assert len(page.items) == 4 and {i.lang for i in page.items} == {"de"}


def test_examples_per_language_replace_only_their_language(store):
    p = store.create_project("ex", ["toxicity", "content"], lang_pairs())
    store.set_examples(p.id, [Example("ar a", 1.0, "why", lang="ar", task="toxicity"),
                              Example("de a", 0.0, "warum", lang="de", task="toxicity")])
    store.set_examples(p.id, [Example("ar b", 0.0, "why not", input="ar in", lang="ar", task="content")])
    assert [(e.text, e.task, e.input) for e in store.examples(p.id, "ar")] == [("ar b", "content", "ar in")]
    assert [e.text for e in store.examples(p.id, "de")] == ["de a"]
    with pytest.raises(AnnotationError, match="does not ask"):
        store.set_examples(p.id, [Example("x", 1.0, "y", lang="ar", task="fluency")])
    with pytest.raises(AnnotationError, match="does not judge"):
        store.set_examples(p.id, [Example("x", 1.0, "y", lang="ru", task="toxicity")])
    store.delete_project(p.id)
    assert store.examples(p.id) == []


def test_database_made_before_languages_opens_with_every_row(db_url):
    """A database without the lang columns and the examples table: upgraded in place."""
    store = AnnotationStore(db_url)
    p = store.create_project("old", ["toxicity"], make_pairs(4), controls=lang_controls("", 2),
                             settings=Settings(page_size=3, controls_per_page=1, min_page_seconds=0))
    a = active(store, p.access_code, "a")
    page = store.next_page(a, "toxicity", now=T0)
    store.submit_page(a, page.assignment_id, {i.id: 1.0 for i in page.items}, now=T0 + timedelta(minutes=1))
    with store.engine.begin() as conn:  # back to the schema before languages
        for table in ("ann_items", "ann_pairs", "ann_annotators"):
            conn.execute(text(f"ALTER TABLE {table} DROP COLUMN lang"))
        conn.execute(text("DROP TABLE ann_examples"))
        conn.execute(text("DROP TABLE schema_history"))
    store.engine.dispose()

    upgraded = AnnotationStore(db_url)
    assert sorted(upgraded.upgrades) == sorted(["create table ann_examples", "add column ann_pairs.lang",
                                                "add column ann_items.lang", "add column ann_annotators.lang"])
    assert len(upgraded.answers(p.id)) == 3 and len(upgraded.items(p.id)) == 10
    assert set(upgraded.items(p.id)["lang"]) == {""} and set(upgraded.pairs(p.id)["lang"]) == {""}
    assert upgraded.languages(p.id) == [""] and upgraded.annotator(a).lang is None
    page = upgraded.next_page(a, "toxicity", now=T0 + timedelta(minutes=2))  # pages go on as before
    assert page is not None and {i.lang for i in page.items} == {""}
    assert upgraded.examples(p.id) == []
    assert AnnotationStore(db_url).upgrades == []


def _submission(store: Store, name: str, langs: list[str] | None):
    n = len(langs) if langs else 4
    inputs = [f"input {i}" for i in range(n)]
    scores = pd.DataFrame({c: [0.5] * n for c in (*SCORE_COLUMNS, *RAW_COLUMNS)})
    return store.add(name=name, sha256=name, dataset="d", split="test", preset="p", calibrated=False, source="upload",
                     inputs=inputs, outputs=[f"{name} output {i}" for i in range(n)], scores=scores, langs=langs)


def test_pairs_from_multilingual_submissions_restricted_to_languages(tmp_path):
    subs = Store(f"sqlite:///{tmp_path / 'subs.sqlite'}")
    langs = ["ar"] * 3 + ["de"] * 3 + ["ru"] * 3
    a, b = _submission(subs, "a.tsv", langs), _submission(subs, "b.tsv", langs)
    pairs = pairs_from_submissions(subs, [a.id, b.id], languages=["ar", "ru"])
    assert list(pairs.columns) == ["system", "idx", "input", "output", "lang"]
    assert pairs["lang"].value_counts().to_dict() == {"ar": 6, "ru": 6}
    # A sample draws the same inputs for every system, in each language.
    sampled = pairs_from_submissions(subs, [a.id, b.id], languages=["ar", "ru"], sample=2, seed=1)
    assert sampled.groupby("lang")["idx"].nunique().to_dict() == {"ar": 2, "ru": 2}
    assert sampled.groupby("idx")["system"].nunique().eq(2).all()
    # Stored without languages: the edition's single language (or "").
    mono = _submission(subs, "mono.txt", None)
    assert set(pairs_from_submissions(subs, [mono.id], default_lang="ru")["lang"]) == {"ru"}
    assert set(pairs_from_submissions(subs, [mono.id])["lang"]) == {""}


def corpus(langs=("de",), n: int = 30) -> pd.DataFrame:
    rows = [{"lang": lang, "toxic_comment": f"dieser Idiot von Nachbar Nummer {i} hat {lang} das Auto gewaschen",
             "neutral_comment1": f"dieser Nachbar Nummer {i} hat {lang} das Auto gewaschen",
             "neutral_comment2": "", "neutral_comment3": ""} for lang in langs for i in range(n)]
    return pd.DataFrame(rows)


def test_controls_come_from_the_corpus_or_an_upload_and_a_language_without_either_is_named():
    frame = corpus(("de",))
    uploaded = lang_controls("ar", 4) + lang_controls("ar", 2, "content")
    controls, exam, plan = language_controls(frame, ["toxicity", "content"], ["de", "ar"], per_task=4,
                                             exam_per_task=2, uploaded=uploaded)
    by_lang = {p.lang: p for p in plan}
    assert by_lang["de"].source == "corpus" and by_lang["ar"].source == "uploaded"
    assert not by_lang["de"].problem and not by_lang["ar"].problem
    assert sum(c.lang == "de" for c in controls) == 8 and sum(c.lang == "de" for c in exam) == 4
    assert [c for c in controls if c.lang == "ar"] == uploaded
    # Without the upload Arabic has nothing, and the message says so and what to upload.
    _, _, plan = language_controls(frame, ["toxicity"], ["de", "ar"], per_task=4, exam_per_task=0)
    (problem,) = [p.problem for p in plan if p.problem]
    assert problem.startswith("Arabic (ar) has no control questions for toxicity")
    said = controls_problem(plan)
    assert said.startswith(problem) and "upload a control-items TSV" in said and "rows of lang ar" in said
    assert controls_problem(plan[:1]) == ""  # German alone has its control questions
    # The same before creating: a table per language.
    table = control_coverage(frame, ["de", "ar"], uploaded)
    assert table.set_index("lang")["source"].to_dict() == {"de": "corpus", "ar": "uploaded"}
    # A corpus without a lang column is in its edition's language only.
    mono = frame.drop(columns="lang")
    _, _, plan = language_controls(mono, ["toxicity"], ["ru", "ar"], per_task=2, exam_per_task=0,
                                   corpus_lang="ru")
    assert [p.lang for p in plan if p.problem] == ["ar"]


def test_the_table_before_creation_agrees_with_creation_on_sentences_without_spaces():
    """Chinese sentences (no spaces) cannot be edited into control questions here: the table
    says so before the project is made (no "corpus"), as creating it does."""
    zh = pd.DataFrame([{"lang": "zh", "toxic_comment": f"你这个蠢货第{i}次把事情搞砸了", "neutral_comment1":
                        f"你第{i}次把事情做错了", "neutral_comment2": "", "neutral_comment3": ""} for i in range(30)])
    frame = pd.concat([corpus(("de",)), zh], ignore_index=True)
    table = control_coverage(frame, ["de", "zh"], needed=4).set_index("lang")
    assert table.loc["de", "source"] == "corpus" and table.loc["de", "corpus_pairs"] == 30
    assert table.loc["zh", "source"] == "none" and table.loc["zh", "corpus_pairs"] == 0
    _, _, plan = language_controls(frame, ["toxicity"], ["de", "zh"], per_task=4, exam_per_task=0)
    assert [p.lang for p in plan if p.problem] == ["zh"]
    # Fewer usable pairs than asked for is no "corpus" either.
    assert control_coverage(corpus(("de",), n=3), ["de"], needed=4)["source"].tolist() == ["none"]
