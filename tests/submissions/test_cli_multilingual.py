"""`python -m detox_core score` for the TextDetox editions: an edition's own inputs, CodaLab
submissions (TSV or zip) matched by text and language as the Submissions page matches them,
results per language with the mean over languages, n/a (never 0) where a preset does not
score a language, and every problem of every file before anything is scored."""

from __future__ import annotations

import csv
import zipfile

import numpy as np
import pandas as pd
import pytest

from detox_core import cli
from detox_core.analysis.corpus import prepare_corpus
from detox_core.data.multilingual import load_multilingual_inputs
from detox_core.editions.textdetox import TEXTDETOX2024, TEXTDETOX2025
from detox_core.submissions.service import language_summary, score_and_store_multilingual, split_rows
from detox_core.submissions.store import Store
from tests.multilingual import MIRROR, hub_named_models, needs_mirror, small_textdetox, tsv

pytestmark = needs_mirror
AXES = ["sta", "sim", "fl", "j"]


@pytest.fixture
def editions_root(tmp_path, monkeypatch, embedded_models):
    """A data folder with both TextDetox editions fetched from the mirror and the trained
    embedded models."""
    root = tmp_path / "data"
    root.mkdir()
    monkeypatch.setenv("DETOX_DATA_DIR", str(root))
    for edition in (TEXTDETOX2024, TEXTDETOX2025):
        assert not edition.fetch(None, [MIRROR], download=False).missing
    (root / "models").symlink_to(embedded_models.parent, target_is_directory=True)
    return root


def rows_of(path) -> tuple[list[str], list[list[str]]]:
    """A TSV's header and rows (a real parser: some fields are quoted)."""
    with open(path, encoding="utf-8", newline="") as f:
        header, *rows = csv.reader(f, delimiter="\t")
    return header, rows


def write(path, header, rows) -> str:
    path.write_text(tsv(header, rows), encoding="utf-8")
    return str(path)


def score(*args) -> int:
    return cli.main(["score", *map(str, args), "-q"])


def test_the_2024_test_set_is_scored_from_the_edition_with_every_language_said(editions_root, tmp_path, capsys):
    out = tmp_path / "out"
    dup = TEXTDETOX2024.path("outputs/duplicate_test.tsv")
    assert score("--edition", "textdetox2024", "--preds", dup, "--out", out) == 0, capsys.readouterr().err
    scores = pd.read_csv(out / "duplicate_test.scores.csv", keep_default_na=False, na_values=[""])
    assert len(scores) == 5400 and list(scores.columns[:5]) == ["input_line", "line", "lang", "input", "output"]
    langs = pd.read_csv(out / "duplicate_test.languages.csv", keep_default_na=False, na_values=[""])
    assert langs["lang"].tolist() == list(TEXTDETOX2024.languages) and (langs["n"] == 600).all()
    ru = langs.set_index("lang").loc["ru"]
    assert ru["j"] == pytest.approx(scores.loc[scores["lang"] == "ru", "j"].mean(), abs=1e-6)
    assert ru["j"] < 0.5  # a copy of a toxic input stays toxic
    # The embedded preset covers every language offline: each scored, none n/a.
    others = langs[langs["lang"] != "ru"]
    assert others["j"].notna().all() and not others["note"].str.contains("covers").any()
    english = scores[scores["lang"] == "en"]
    assert english[AXES].notna().all().all()
    assert (english["sim"] == 1.0).all() and (english["fl"] == 1.0).all()  # a copy keeps meaning and fluency
    summary = pd.read_csv(out / "summary.csv", keep_default_na=False, na_values=[""])
    row = summary.iloc[0]
    assert row["submission"] == "duplicate_test" and not row["partial"] and row["answered"] == "all 9 languages"
    assert row["mean_over"] == "all 9" and np.isnan(row["not_covered"])
    assert row["j_avg"] == pytest.approx(langs["j"].mean(), abs=1e-5)  # the official average: all 9 scored
    assert row["signature"].startswith("preset:embedded|") and "|lang:am,ar,de,en,es,hi,ru,uk,zh|" in row["signature"]


def test_the_2025_dev_split_has_15_languages(editions_root, tmp_path, capsys):
    out = tmp_path / "out"
    dup = TEXTDETOX2025.path("outputs/duplicate_dev.tsv")
    assert score("--edition", "textdetox2025", "--split", "dev", "--preds", dup, "--out", out) == 0, \
        capsys.readouterr().err
    langs = pd.read_csv(out / "duplicate_dev.languages.csv", keep_default_na=False, na_values=[""]).set_index("lang")
    assert list(langs.index) == list(TEXTDETOX2025.languages)
    # the Duplicate baseline copies the toxic inputs: J 0 in every language (a copy stays toxic)
    assert langs.loc["ru", "n"] == 600 and langs.loc["tt", "n"] == 100 and langs.loc["ru", "j"] == 0
    summary = pd.read_csv(out / "summary.csv").iloc[0]
    # Every language scored offline: both official averages exist (9 languages of 2024, 6 new ones).
    assert summary["j_avg_p"] == pytest.approx(langs.loc[list(TEXTDETOX2024.languages), "j"].mean(), abs=1e-5)
    new = [c for c in TEXTDETOX2025.languages if c not in TEXTDETOX2024.languages]
    assert summary["j_avg_np"] == pytest.approx(langs.loc[new, "j"].mean(), abs=1e-5)


def test_a_split_the_edition_lacks_is_named(editions_root, tmp_path, capsys):
    dup = TEXTDETOX2025.path("outputs/duplicate_dev.tsv")
    assert score("--edition", "textdetox2025", "--split", "train", "--preds", dup, "--out", tmp_path / "o") == 2
    assert "has no split 'train'; its splits: dev, test" in capsys.readouterr().err


def test_a_zip_and_a_partial_submission_in_one_run(editions_root, tmp_path, capsys):
    header, rows = rows_of(TEXTDETOX2024.path("outputs/duplicate_test.tsv"))
    partial = write(tmp_path / "partial.tsv", header, [r for r in rows if r[2] in ("ru", "en")])
    with zipfile.ZipFile(tmp_path / "team.zip", "w") as archive:
        archive.write(partial, "answer.tsv")
    out = tmp_path / "out"
    assert score("--edition", "textdetox2024", "--preds", tmp_path / "team.zip", TEXTDETOX2024.path(
        "outputs/duplicate_test.tsv"), "--out", out) == 0, capsys.readouterr().err
    summary = pd.read_csv(out / "summary.csv", keep_default_na=False).set_index("submission")
    assert summary.loc["team", "partial"] == True  # noqa: E712 (read from CSV)
    assert summary.loc["team", "missing_languages"].split() == ["am", "ar", "de", "es", "hi", "uk", "zh"]
    assert summary.loc["team", "answered"].startswith("partial: 2 of 9 languages")
    langs = pd.read_csv(out / "team.languages.csv", keep_default_na=False).set_index("lang")
    assert langs.loc["de", "note"] == "not answered" and langs.loc["de", "n"] == 0
    # The same Russian and English rows score the same in both files (one pool, one memo).
    for lang in ("ru", "en"):
        assert float(langs.loc[lang, "j"]) == pytest.approx(float(summary.loc["duplicate_test", f"j_{lang}"]), abs=1e-6)


def test_every_problem_of_every_file_before_anything_is_scored(editions_root, tmp_path, capsys):
    header, rows = rows_of(TEXTDETOX2024.path("outputs/duplicate_test.tsv"))
    other_language = [list(r) for r in rows]
    other_language[4][2] = "fr"  # a 2025 language in a 2024 file: line 6
    not_an_input = [list(r) for r in rows]
    not_an_input[9][0] = "this sentence is not an input"  # line 11
    twice = [list(r) for r in rows] + [rows[20]]
    files = [write(tmp_path / f"{name}.tsv", header, body) for name, body in
             (("fr", other_language), ("stranger", not_an_input), ("twice", twice))]
    out = tmp_path / "out"
    assert score("--edition", "textdetox2024", "--preds", *files, "--out", out) == 1
    err = capsys.readouterr().err
    assert "3 files have problems" in err
    assert "fr.tsv, line 6" in err and "fr (French) is in TextDetox 2025" in err
    assert "stranger.tsv, line 11" in err and "not inputs of this split" in err
    assert "twice.tsv, line 5404" in err and "answered twice" in err and "repeats line 22" in err
    assert not out.exists()


def test_a_submission_with_a_header_only_is_said_to_have_no_rows(editions_root, tmp_path, capsys):
    empty = write(tmp_path / "empty.tsv", ("toxic_sentence", "neutral_sentence", "lang"), [])
    assert score("--edition", "textdetox2024", "--preds", empty, "--out", tmp_path / "o") == 1
    assert "empty.tsv: expected at least one row after the header, found none" in capsys.readouterr().err


def test_an_inputs_file_with_a_code_no_edition_has_names_line_and_column(tmp_path, capsys):
    inputs = write(tmp_path / "inputs.tsv", ("toxic_sentence", "lang"), [("you idiot", "en"), ("du idiot", "xx")])
    preds = write(tmp_path / "p.tsv", ("toxic_sentence", "neutral_sentence", "lang"), [("you idiot", "you", "en")])
    assert score("--inputs", inputs, "--preds", preds, "--out", tmp_path / "o") == 1
    err = capsys.readouterr().err
    assert "inputs.tsv, line 3, column 'lang'" in err and "unknown language code 'xx'" in err


def test_references_from_the_inputs_file_or_a_references_file(tmp_path, embedded_models, capsys):
    dev = load_multilingual_inputs(MIRROR / "textdetox2024" / "dev_inputs.tsv")
    texts = dev.loc[dev["lang"] == "ru", "toxic_comment"].head(20).tolist()
    refs = [t.replace("!", "") + " (ref)" for t in texts]
    with_refs = write(tmp_path / "inputs.tsv", ("toxic_sentence", "neutral_sentence", "lang"),
                      [(t, r, "ru") for t, r in zip(texts, refs)])
    bare = write(tmp_path / "bare.tsv", ("toxic_sentence", "lang"), [(t, "ru") for t in texts])
    ref_file = write(tmp_path / "refs.tsv", ("toxic_sentence", "neutral_sentence", "lang"),
                     [(t, r, "ru") for t, r in reversed(list(zip(texts, refs)))])  # matched by text, not position
    preds = write(tmp_path / "team.tsv", ("toxic_sentence", "neutral_sentence", "lang"), [(t, r, "ru") for t, r in
                                                                                         zip(texts, refs)])
    assert score("--inputs", with_refs, "--preds", preds, "--out", tmp_path / "a") == 0, capsys.readouterr().err
    assert score("--inputs", bare, "--refs", ref_file, "--preds", preds, "--out", tmp_path / "b") == 0
    a = pd.read_csv(tmp_path / "a" / "team.scores.csv")
    b = pd.read_csv(tmp_path / "b" / "team.scores.csv")
    assert (a["chrf"] == 1.0).all() and a["reference1"].tolist() == refs  # the output is the reference
    pd.testing.assert_frame_equal(a, b)
    stray = write(tmp_path / "stray.tsv", ("toxic_sentence", "neutral_sentence", "lang"), [("not an input", "x", "ru")])
    assert score("--inputs", bare, "--refs", stray, "--preds", preds, "--out", tmp_path / "c") == 1
    assert "stray.tsv, line 2, column 'toxic_sentence': this Russian input is not in the inputs file" in \
        capsys.readouterr().err
    italian = write(tmp_path / "it.tsv", ("toxic_sentence", "neutral_sentence", "lang"), [(texts[0], "x", "it")])
    assert score("--inputs", bare, "--refs", italian, "--preds", preds, "--out", tmp_path / "d") == 1
    assert "it.tsv, line 2, column 'lang': a reference in Italian, but the inputs have no Italian (it); they have ru" \
        in capsys.readouterr().err


def test_the_page_and_the_shell_give_identical_numbers(editions_root, tmp_path, capsys, monkeypatch):
    # A preset that covers Russian only (as the embedded one did before it learnt the other
    # languages): the languages it does not cover are said, the same way by both.
    from detox_core.metrics.embedded.preset import EmbeddedPreset

    monkeypatch.setattr(EmbeddedPreset, "languages", ("ru",))
    """One matching and one scoring for both: the stored frame of the Submissions page and
    the CLI's score file agree sentence by sentence, and per language."""
    header, rows = rows_of(TEXTDETOX2024.path("outputs/duplicate_test.tsv"))
    # A partial submission, rows shuffled, some rewrites changed: matched by text and language.
    body = [r if k % 3 else [r[0], r[0].split()[0], r[2]] for k, r in enumerate(rows) if r[2] in ("ru", "uk")]
    body = body[::-1]
    path = tmp_path / "mixed.tsv"
    write(path, header, body)
    out = tmp_path / "out"
    assert score("--edition", "textdetox2024", "--preds", path, "--out", out) == 0, capsys.readouterr().err
    shell = pd.read_csv(out / "mixed.scores.csv", keep_default_na=False, na_values=[""])
    split = split_rows(prepare_corpus(TEXTDETOX2024.load(["test"])), "test")
    store = Store(f"sqlite:///{tmp_path / 'detox.sqlite'}")
    result = score_and_store_multilingual(store, path.read_bytes(), "mixed.tsv", dataset="textdetox2024", split="test",
                                          rows=split, preset="embedded", calibrated=True, source="upload")
    assert result.not_covered == ("uk",) and result.submission.partial
    page = store.scores(result.stored.id)
    scored = shell[shell["note"].isna()].reset_index(drop=True)
    assert scored["input"].tolist() == page["input"].tolist() and scored["output"].tolist() == page["output"].tolist()
    for axis in AXES:
        np.testing.assert_allclose(scored[axis].to_numpy(), page[axis].to_numpy(), atol=1e-6)
    per_lang = pd.read_csv(out / "mixed.languages.csv").set_index("lang")
    shown = language_summary(page, list(TEXTDETOX2024.languages))
    for axis in AXES:
        assert per_lang.loc["ru", axis] == pytest.approx(float(shown.table.set_index("lang").loc["ru", axis]), abs=1e-6)
        assert pd.read_csv(out / "summary.csv").iloc[0][axis] == pytest.approx(shown.means[axis], abs=1e-6)


def test_the_2024_recipe_scores_every_language_with_references(tmp_path, tiny_models, monkeypatch, capsys):
    """With a preset covering all nine languages (tiny models under the real ids), every
    language gets J, except Amharic, whose inputs have no reference: n/a, said, left out of
    the mean."""
    small_textdetox(tmp_path, per_language=4, without_references=("am",))
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DETOX_MODEL_DIR", str(hub_named_models(tiny_models, tmp_path / "hub_models")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "out"
    assert score("--edition", "textdetox2024", "--split", "dev", "--preset", "textdetox2024", "--backend", "torch",
                 "--preds", TEXTDETOX2024.path("outputs/duplicate_dev.tsv"), "--out", out) == 0, capsys.readouterr().err
    langs = pd.read_csv(out / "duplicate_dev.languages.csv", keep_default_na=False, na_values=[""]).set_index("lang")
    assert langs.drop(index="am")["j"].notna().all() and np.isnan(langs.loc["am", "j"])
    assert "no references" in langs.loc["am", "note"]
    summary = pd.read_csv(out / "summary.csv", keep_default_na=False, na_values=[""]).iloc[0]
    assert summary["mean_over"].split() == [c for c in TEXTDETOX2024.languages if c != "am"]
    assert summary["j"] == pytest.approx(langs.drop(index="am")["j"].mean(), abs=1e-6)
