"""AppTests of multilingual annotation: a project made from multilingual submissions,
restricted to some languages, with uploaded control items and examples; an annotator
who picks a language and reads the instructions in English or Russian."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from detox_core.annotation.controls import Control
from detox_core.annotation.store import AnnotationStore, Settings
from detox_core.annotation.tasks import Example
from detox_core.data import PROJECT_ROOT
from detox_core.metrics.base import RAW_COLUMNS, SCORE_COLUMNS
from detox_core.submissions.store import Store
from tests.app.helpers import annotate_pages, run

ANNOTATE = str(PROJECT_ROOT / "pages" / "annotate.py")
PROJECTS = str(PROJECT_ROOT / "pages" / "annotation_projects.py")
LANGS = ["ru", "ru", "ar", "ar", "de", "de"]
INPUTS = ["сука как же надоело", "ты дурак", "أنت غبي جدا", "اسكت يا أحمق", "du Idiot", "halt die Klappe"]
AR_CONTROLS = ("lang\ttask\ttext\tgolden\tinput\n"
               "ar\ttoxicity\tأنت أحمق\tyes\t\n"
               "ar\ttoxicity\tالطقس جميل اليوم\tno\t\n"
               "ar\tcontent\tهذا الشخص متأخر\tyes\tهذا الأحمق متأخر\n"
               "ar\tfluency\tالطقس جميل اليوم\tfluent\t\n").encode()


def _stored(name: str) -> None:
    n = len(INPUTS)
    scores = pd.DataFrame({c: [0.5] * n for c in (*SCORE_COLUMNS, *RAW_COLUMNS)})
    Store().add(name=name, sha256=name, dataset="russe2022", split="test", preset="embedded", calibrated=True,
                source="upload", inputs=INPUTS, outputs=[f"{name}: {t}" for t in INPUTS], scores=scores, langs=LANGS)


def _organizer(monkeypatch) -> AppTest:
    monkeypatch.setenv("DETOX_ORGANIZER_PASSWORD", "organizer-pw-12")
    at = run(AppTest.from_file(PROJECTS, default_timeout=60))
    at.text_input(key="organizer_password").input("organizer-pw-12")
    at.button(key="FormSubmitter:organizer_login-Sign in").click()
    return run(at)


def test_project_from_multilingual_submissions_restricted_to_languages(tiny_data, monkeypatch):
    _stored("a_test.tsv")
    _stored("b_test.tsv")
    at = _organizer(monkeypatch)
    assert at.multiselect(key="new_langs").options == ["Arabic (ar)", "German (de)", "Russian (ru)"]
    at.text_input(key="new_name").input("multi")
    at.multiselect(key="new_langs").set_value(["ar", "ru"])
    at.number_input(key="new_n_ctrl").set_value(2)
    at.number_input(key="new_n_exam").set_value(2)
    run(at)
    coverage = next(d.value for d in at.dataframe if "corpus_pairs" in d.value.columns)
    assert coverage.set_index("lang")["source"].to_dict() == {"ar": "none", "ru": "corpus"}
    # Russian has built-in training items, Arabic none yet: the training round is said to be empty there.
    untrained = [w.value for w in at.warning if "training round has no items" in w.value]
    assert untrained and "Arabic" in untrained[0] and "Russian" not in untrained[0]
    # Arabic has no corpus: creating says so, and what to upload; nothing is created.
    at.button(key="new_create").click()
    run(at)
    assert "Not created" in at.error[0].value and "Arabic \\(ar\\) has no control questions" in at.error[0].value
    assert "upload a control" in at.error[0].value and AnnotationStore().projects() == []
    # With Arabic control items and examples uploaded, the project is made of the two languages.
    at.file_uploader(key="new_ctrl_upload").set_value(("ar_controls.tsv", AR_CONTROLS, "text/tab-separated-values"))
    at.file_uploader(key="new_examples_upload").set_value((
        "examples.tsv", "lang\ttask\ttext\tanswer\texplanation\nar\ttoxicity\tأنت أحمق\tyes\t<b>insult</b>\n".encode(),
        "text/tab-separated-values"))
    run(at)
    coverage = next(d.value for d in at.dataframe if "corpus_pairs" in d.value.columns)
    assert coverage.set_index("lang")["source"].to_dict() == {"ar": "uploaded", "ru": "corpus"}
    assert not [w for w in at.warning if "training round has no items" in w.value]  # the examples train Arabic
    at.button(key="new_create").click()
    run(at)
    assert "Project **multi** created: 8 pairs, 10 control" in at.success[0].value
    (project,) = AnnotationStore().projects()
    store = AnnotationStore()
    items = store.items(project.id)
    assert store.languages(project.id) == ["ar", "ru"] and "de" not in set(items["lang"])
    assert set(items[items["kind"] == "control"]["lang"]) == {"ar", "ru"}
    assert [e.explanation for e in store.examples(project.id, "ar")] == ["<b>insult</b>"]
    assert "languages: Arabic, Russian" in at.caption[0].value


def test_a_bad_upload_names_its_line_and_column(tiny_data, monkeypatch):
    _stored("a_test.tsv")
    at = _organizer(monkeypatch)
    at.file_uploader(key="new_examples_upload").set_value((
        "examples.tsv", b"lang\ttask\ttext\tanswer\texplanation\nar\ttoxicity\tx\tmaybe\twhy\n", "text/plain"))
    run(at)
    assert "examples.tsv, line 2" in at.error[0].value and "answer" in at.error[0].value
    assert at.button(key="new_create").disabled


def _multilingual_project(store: AnnotationStore):
    rows = [{"system": "s", "idx": i, "lang": lang, "input": text, "output": f"{text} ؟" if lang == "ar" else text}
            for i, (lang, text) in enumerate(zip(LANGS, INPUTS))]
    p = store.create_project("langs", ["toxicity"], pd.DataFrame(rows),
                             controls=[Control("toxicity", "أنت أحمق", 1.0, lang="ar")],
                             settings=Settings(page_size=4, controls_per_page=1, min_page_seconds=0, training=True,
                                               ui_language="ru"))
    store.set_examples(p.id, [Example("أنت أحمق **جدا**", 1.0, "An *insult* [x](http://e.x)", lang="ar",
                                      task="toxicity")])
    return p


def test_annotator_picks_a_language_and_reads_the_instructions_in_russian_or_english(tiny_data):
    store = AnnotationStore()
    p = _multilingual_project(store)
    at = run(AppTest.from_file(ANNOTATE, default_timeout=60))
    at.text_input(key="ann_code").input(p.access_code)
    at.text_input(key="ann_name").input("Layla")
    at.text_input(key="ann_secret").input("secret-of-layla")
    at.button(key="FormSubmitter:ann_join-Join").click()
    run(at)
    # Several languages: the annotator chooses one before anything else.
    assert at.selectbox(key="ann_lang_pick").options == ["Arabic (ar)", "German (de)", "Russian (ru)"]
    assert not at.subheader
    at.selectbox(key="ann_lang_pick").set_value("ar")
    at.button(key="FormSubmitter:ann_language-Judge texts in this language").click()
    run(at)
    (ann,) = store.annotators(p.id).itertuples()
    assert store.annotator(int(ann.id)).lang == "ar"
    # The project's instructions language is Russian; the Arabic example is shown, its markup as text.
    assert at.segmented_control(key="ann_ui").value == "ru"
    shown = " ".join(m.value for m in at.markdown)
    assert "Есть ли в тексте оскорбления" in shown and "Да, токсичный" in shown
    assert "An \\*insult\\* \\[x\\]\\(http" in shown  # the organizer's explanation, never markup
    html = " ".join(h.proto.body for h in at.get("html"))
    assert "أنت أحمق **جدا**" in html and "dir='auto'" in html and "lang='ar'" in html
    # No built-in (Russian) training items for Arabic: only the uploaded example.
    assert [r.key for r in at.radio if r.key.startswith("tr_")] == ["tr_toxicity_0"]
    at.segmented_control(key="ann_ui").set_value("en")
    run(at)
    shown = " ".join(m.value for m in at.markdown)
    assert "Does this text contain offences or swear words?" in shown and "Есть ли" not in shown


def test_work_page_of_an_arabic_annotator_holds_arabic_items_marked_with_their_language(tiny_data):
    store = AnnotationStore()
    p = _multilingual_project(store)
    store.update_settings(p.id, Settings(page_size=4, controls_per_page=1, min_page_seconds=0, training=False,
                                         ui_language="ru"))
    ann = store.join(p.access_code, "Omar")
    store.choose_language(ann.id, "ar")
    at = run(AppTest.from_file(ANNOTATE, default_timeout=60))
    at.session_state["ann_id"] = ann.id
    run(at)
    (element,) = annotate_pages(at)
    data = json.loads(element.proto.json)
    assert data["language"] == "Язык текстов: Arabic" and data["question"].startswith("Есть ли")
    assert {part["lang"] for item in data["items"] for part in item} == {"ar"}
    assert len(data["items"]) == 3  # two Arabic outputs and the Arabic control item
    assert data["words"]["submit"].startswith("Отправить")


@pytest.mark.parametrize("ui", ["en", "ru"])
def test_settings_keep_the_instructions_language(tiny_data, monkeypatch, ui):
    store = AnnotationStore()
    p = store.create_project("ui", ["toxicity"], pd.DataFrame([{"system": "s", "idx": 0, "input": "a", "output": "b"}]))
    at = _organizer(monkeypatch)
    at.radio(key="org_set_ui").set_value(ui)
    at.button(key="org_set_save").click()
    run(at)
    assert store.project(p.id).settings.ui_language == ui


def test_settings_take_examples_and_control_items_of_the_projects_languages(tiny_data, monkeypatch):
    store = AnnotationStore()
    p = _multilingual_project(store)
    at = _organizer(monkeypatch)
    at.file_uploader(key="org_examples_upload").set_value((
        "ex.tsv", "lang\ttask\ttext\tanswer\texplanation\nde\ttoxicity\tdu Idiot\tyes\tBeleidigung\n".encode(),
        "text/plain"))
    run(at)
    at.button(key="org_examples_add").click()
    run(at)
    assert "Stored 1 examples" in at.success[0].value
    # German examples added; the Arabic ones stay.
    assert {e.lang for e in store.examples(p.id)} == {"ar", "de"}
    at.file_uploader(key="org_controls_upload").set_value((
        "c.tsv", "lang\ttask\ttext\tgolden\tkind\nde\ttoxicity\tdu Trottel\tyes\texam\nfr\ttoxicity\tx\tno\t\n".encode(),
        "text/plain"))
    run(at)
    at.button(key="org_controls_add").click()
    run(at)
    assert "Nothing added" in at.error[0].value and "c.tsv, line 3" in at.error[0].value
    assert "does not judge French" in at.error[0].value
    assert len(store.items(p.id, kind="exam")) == 0  # nothing of the file was stored
