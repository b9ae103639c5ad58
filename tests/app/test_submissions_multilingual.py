"""AppTest of the Submissions page on a multilingual edition: CodaLab submissions scored
with the TextDetox 2024 preset (tiny models under the real ids, loaded through the real
code), per language, with the official mean over languages and what is missing said."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from detox_core.analysis.corpus import prepare_corpus
from detox_core.data import PROJECT_ROOT
from detox_core.errors import DetoxInputError
from detox_core.submissions.service import score_and_store_multilingual, split_rows
from detox_core.editions.textdetox import TEXTDETOX2024
from detox_core.submissions.store import Store
from tests.app.helpers import run
from tests.multilingual import hub_named_models, needs_mirror, small_textdetox, tsv

PAGE = str(PROJECT_ROOT / "pages" / "submissions.py")
pytestmark = [needs_mirror, pytest.mark.usefixtures("no_shipped_agreement")]  # tables read by position


@pytest.fixture
def textdetox(tmp_path, tiny_models, monkeypatch):
    base = small_textdetox(tmp_path)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'detox.sqlite'}")  # not the environment's database
    monkeypatch.setenv("DETOX_MODEL_DIR", str(hub_named_models(tiny_models, tmp_path / "hub_models")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return base


def open_page(preset: str = "TextDetox 2024") -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["dataset"] = TEXTDETOX2024.short
    run(at)
    at.selectbox(key="split").set_value("dev")
    at.segmented_control(key="sub_preset").set_value(preset)
    return run(at)


def store_of(base) -> Store:
    return Store(f"sqlite:///{base.parent / 'detox.sqlite'}")


def test_a_shipped_submission_is_scored_per_language_with_the_mean_over_languages(textdetox):
    at = open_page()
    next(b for b in at.button if b.label == "Score this output").click()
    run(at)
    assert any("scored and stored" in s.value for s in at.success), [e.value for e in at.error]
    stored = store_of(textdetox)
    sid = int(stored.list().loc[0, "id"])
    scores = stored.scores(sid)
    assert len(scores) == 36 and scores["lang"].value_counts().to_dict() == dict.fromkeys(TEXTDETOX2024.languages, 4)
    # STA and SIM everywhere; FL and J only where references exist, never a zero in their place.
    assert scores[["sta", "sim"]].notna().all().all()
    no_refs = scores["lang"].isin(["am", "zh"])
    assert scores.loc[no_refs, ["fl", "j"]].isna().all().all() and scores.loc[~no_refs, "j"].notna().all()
    by_language = next(d.value for d in at.dataframe if "language" in d.value.columns)
    assert list(by_language["lang"]) == list(TEXTDETOX2024.languages)
    assert by_language.set_index("lang").loc[["am", "zh"], "j"].isna().all()
    assert any("FL and J are n/a for Amharic, Chinese" in i.value for i in at.info), [i.value for i in at.info]
    # Each language's mean J counts once, over the 7 languages with references: a mean over a subset,
    # said as such (not the official average, which needs all 9).
    expected = scores[~no_refs].groupby("lang")["j"].mean().mean()
    assert any(f"Mean J over 7 of 9 languages: **{expected:.3f}**. Not the official average" in c.value
               for c in at.caption), [c.value for c in at.caption]
    listed = at.dataframe[0].value if "languages" in at.dataframe[0].value.columns else None
    assert listed is not None and listed.loc[0, "languages"] == "9/9"
    assert np.isclose(listed.loc[0, "j"], expected)
    sentences = next(d.value for d in at.dataframe if "output" in d.value.columns and "lang" in d.value.columns)
    assert len(sentences) == 36


def test_a_partial_submission_is_accepted_and_marked(textdetox):
    dev = TEXTDETOX2024.load(["dev"])
    part = dev[dev["lang"].isin(["ar", "zh"])]
    content = tsv(("toxic_sentence", "neutral_sentence", "lang"),
                  zip(part["toxic_comment"], part["toxic_comment"], part["lang"])).encode("utf-8")
    at = open_page()
    result = score_and_store_multilingual(store_of(textdetox), content, "partial.tsv", dataset=TEXTDETOX2024.name,
                                          split="dev", rows=split_rows(prepare_corpus(dev), "dev"),
                                          preset="textdetox2024", calibrated=True, source="upload")
    assert result.submission.partial and set(result.submission.languages) == {"ar", "zh"}
    assert result.submission.describe().startswith("partial: 2 of 9 languages")
    run(at)
    listed = at.dataframe[0].value
    assert listed.loc[0, "languages"] == "2/9"
    assert any("Partial: the file does not answer Amharic, German" in w.value for w in at.warning)
    assert set(result.stored.answered) == {"ar", "zh"}


def test_a_bad_upload_is_refused_with_each_line_named_and_nothing_stored(textdetox):
    dev = TEXTDETOX2024.load(["dev"])
    rows = list(zip(dev["toxic_comment"], dev["toxic_comment"], dev["lang"]))
    rows[2] = (rows[2][0], rows[2][1], "xx")  # line 4 of the file: an unknown language code
    del rows[9]  # the German input of line 11 of the inputs: no row
    content = tsv(("toxic_sentence", "neutral_sentence", "lang"), rows).encode("utf-8")
    with pytest.raises(DetoxInputError) as err:
        score_and_store_multilingual(store_of(textdetox), content, "bad.tsv", dataset=TEXTDETOX2024.name, split="dev",
                                     rows=split_rows(prepare_corpus(dev), "dev"), preset="textdetox2024",
                                     calibrated=True, source="upload")
    message = str(err.value)
    # Both problems at once, each with its line (the input whose row had the wrong code has no row either).
    assert "1 row(s) in language(s) this split does not have, on line(s) 4: 'xx' is no language code" in message and "input line(s) 4, 11 of the split" in message
    assert store_of(textdetox).list().empty


def test_the_offline_preset_scores_only_the_language_it_covers(textdetox, embedded_models, monkeypatch):
    """A preset that covers Russian only (the embedded one, told so: it covers every language
    since it learnt them; RUSSE-2022's and MERA's presets cover Russian only but need models)."""
    from detox_core.metrics.embedded.preset import EmbeddedPreset

    monkeypatch.setattr(EmbeddedPreset, "languages", ("ru",))
    (textdetox.parent / "models").symlink_to(embedded_models.parent, target_is_directory=True)
    at = open_page("Embedded (offline CPU)")
    assert any("Embedded (offline CPU) covers Russian only" in c.value for c in at.caption)
    next(b for b in at.button if b.label == "Score this output").click()
    run(at)
    assert any("Not scored:" in w.value and "Amharic" in w.value and "Russian" not in w.value.split("(")[0]
               for w in at.warning), [w.value for w in at.warning] + [e.value for e in at.error]
    listed = store_of(textdetox).list()
    scores = store_of(textdetox).scores(int(listed.loc[0, "id"]))
    assert set(scores["lang"]) == {"ru"} and len(scores) == 4
    # A complete file scored by a Russian-only preset: complete (it answers all 9), its mean over 1 of 9.
    assert set(listed.loc[0, "answered"]) == set(TEXTDETOX2024.languages)
    run(at)
    assert at.dataframe[0].value.loc[0, "languages"] == "9/9, 1 scored"
    assert not any("Partial" in w.value for w in at.warning)
    captions = " ".join(c.value for c in at.caption)
    assert "Mean J over 1 of 9 languages" in captions and "Official average" not in captions
    assert any("Answered but not scored: Amharic" in i.value and "covers Russian only" in i.value for i in at.info)


def test_a_file_stored_before_its_languages_were_kept_gets_them_when_uploaded_again(textdetox):
    dev = TEXTDETOX2024.load(["dev"])
    part = dev[dev["lang"].isin(["ar", "zh"])]
    content = tsv(("toxic_sentence", "neutral_sentence", "lang"),
                  zip(part["toxic_comment"], part["toxic_comment"], part["lang"])).encode("utf-8")
    kwargs = dict(dataset=TEXTDETOX2024.name, split="dev", rows=split_rows(prepare_corpus(dev), "dev"),
                  preset="textdetox2024", calibrated=True, source="upload")
    store = store_of(textdetox)
    first = score_and_store_multilingual(store, content, "partial.tsv", **kwargs)
    with store.engine.begin() as conn:  # as a database of an earlier version holds it
        conn.exec_driver_sql("UPDATE submissions SET answered = NULL")
    assert store.get(first.stored.id).answered is None
    again = score_and_store_multilingual(store, content, "partial.tsv", **kwargs)
    assert again.already and set(again.stored.answered) == {"ar", "zh"}
    assert set(store.get(first.stored.id).answered) == {"ar", "zh"}


def test_outputs_in_another_language_are_flagged_said_and_filtered(textdetox):
    """English rewrites of the German and Russian inputs: the page says how many outputs are in
    another language than their input, flags them, and the flag's filter shows only them."""
    from detox_core.submissions.explain import FLAGS

    dev = TEXTDETOX2024.load(["dev"])
    english = dev[dev["lang"] == "en"]["toxic_comment"].tolist()
    outputs = [english[k % len(english)] if lang in ("de", "ru") else text
               for k, (text, lang) in enumerate(zip(dev["toxic_comment"], dev["lang"]))]
    content = tsv(("toxic_sentence", "neutral_sentence", "lang"),
                  zip(dev["toxic_comment"], outputs, dev["lang"])).encode("utf-8")
    at = open_page()
    score_and_store_multilingual(store_of(textdetox), content, "english.tsv", dataset=TEXTDETOX2024.name,
                                 split="dev", rows=split_rows(prepare_corpus(dev), "dev"), preset="textdetox2024",
                                 calibrated=True, source="upload")
    run(at)
    sentences = next(d.value for d in at.dataframe if "output" in d.value.columns and "lang" in d.value.columns)
    flagged = sentences["flags"].str.contains(FLAGS["language"], regex=False)
    assert set(sentences.loc[flagged, "lang"]) == {"de", "ru"} and flagged.sum() == 8, sentences[["lang", "flags"]]
    assert any(w.value.startswith("8 of 36 outputs are in another language or script than their input")
               for w in at.warning), [w.value for w in at.warning]
    at.multiselect(key="sub_flags").set_value([FLAGS["language"]])
    run(at)
    shown = next(d.value for d in at.dataframe if "output" in d.value.columns and "lang" in d.value.columns)
    assert len(shown) == 8 and set(shown["lang"]) == {"de", "ru"}
    # The uploader says which file this edition takes.
    assert any("toxic_sentence⇥neutral_sentence⇥lang" in c.value for c in at.caption)
