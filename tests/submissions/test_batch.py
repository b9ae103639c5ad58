"""`python -m detox_core score`: files written, signatures, and clean failures."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from detox_core import cli
from detox_core.metrics.base import signature_text
from detox_core.submissions.batch_inputs import load_inputs

INPUTS_TSV = (
    "toxic_comment\tneutral_comment1\tneutral_comment2\n"
    "ты дебил, иди отсюда\tты неправ, иди отсюда\tуйди\n"
    "этот мудак опять врёт\tэтот человек опять врёт\t\n"
    "какая хрень эта ваша новость\tкакая ерунда\t\n"
)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "inputs.tsv").write_text(INPUTS_TSV, encoding="utf-8")
    (tmp_path / "a.txt").write_text("ты неправ, иди отсюда\nэтот человек опять врёт\nкакая ерунда\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("иди отсюда\nэтот опять врёт\nэта новость\n", encoding="utf-8")
    (tmp_path / "short.txt").write_text("одна строка\n", encoding="utf-8")
    return tmp_path


def model_args(tiny_models):
    return ["--model", f"sta={tiny_models['sta']}", "--model", f"sim={tiny_models['sim']}", "--model", f"fl={tiny_models['fl']}"]


def test_score_writes_per_sentence_files_and_summary(files, tiny_models, capsys):
    out = files / "out"
    code = cli.main(["score", "--inputs", str(files / "inputs.tsv"), "--preds", str(files / "a.txt"), str(files / "b.txt"),
                     "--preset", "russe2022", *model_args(tiny_models), "--out", str(out), "--backend", "torch", "-q"])
    assert code == 0, capsys.readouterr().err
    a = pd.read_csv(out / "a.scores.csv", keep_default_na=False)
    assert list(a.columns[:5]) == ["lang", "input", "output", "reference1", "reference2"]
    assert {"sta", "sim", "fl", "j", "chrf", "sta_raw", "sim_raw", "fl_raw", "j_raw"} <= set(a.columns)
    assert a.loc[0, "reference2"] == "уйди" and len(a) == 3
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["submission"]) == ["a", "b"]
    assert summary.loc[0, "j"] == pytest.approx(a["j"].mean(), abs=1e-5)
    # the summary's figures are detox_core.score's: the mean with its 95% interval, and the signature in one line
    assert summary.loc[0, "j_low"] <= summary.loc[0, "j"] <= summary.loc[0, "j_high"]
    assert summary.loc[0, "j_raw"] == pytest.approx(a["j_raw"].mean(), abs=1e-5)  # the other columns' means too
    sig = json.loads((out / "a.signature.json").read_text(encoding="utf-8"))
    assert sig["preset"] == "russe2022" and sig["models"]["fl"]["id"] == "s-nlp/rubert-base-corruption-detector"
    assert summary.loc[0, "signature"] == signature_text(sig, lang="ru", langid="detected")


def test_raw_flag(files, tiny_models):
    out = files / "raw"
    assert cli.main(["score", "--inputs", str(files / "inputs.tsv"), "--preds", str(files / "a.txt"), "--preset", "russe2022",
                     *model_args(tiny_models), "--raw", "--out", str(out), "--backend", "torch", "-q"]) == 0
    a = pd.read_csv(out / "a.scores.csv")
    assert (a["sta"] == a["sta_raw"]).all()
    assert json.loads((out / "a.signature.json").read_text(encoding="utf-8"))["calibrated"] is False


def test_line_count_mismatch_fails_and_writes_nothing(files, tiny_models, capsys):
    out = files / "bad"
    code = cli.main(["score", "--inputs", str(files / "inputs.tsv"), "--preds", str(files / "a.txt"), str(files / "short.txt"),
                     "--preset", "russe2022", *model_args(tiny_models), "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 1 and "short.txt" in err and "expected 3 outputs" in err
    assert not out.exists()


def test_empty_submission_fails(files, tiny_models, capsys):
    (files / "empty.txt").write_bytes(b"")
    code = cli.main(["score", "--inputs", str(files / "inputs.tsv"), "--preds", str(files / "empty.txt"),
                     "--preset", "russe2022", *model_args(tiny_models), "--out", str(files / "o"), "-q"])
    assert code == 1 and "empty" in capsys.readouterr().err


def test_unreadable_model_fails_with_exit_3(files, tmp_path, capsys):
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "config.json").write_text("{}", encoding="utf-8")
    code = cli.main(["score", "--inputs", str(files / "inputs.tsv"), "--preds", str(files / "a.txt"), "--preset", "russe2022",
                     "--model", f"sta={broken}", "--out", str(files / "o2"), "--backend", "torch", "-q"])
    err = capsys.readouterr().err
    assert code == 3 and "Cannot load the sta model" in err and "--model sta=DIR" in err
    assert not (files / "o2").exists()


def test_bad_model_argument_and_unknown_preset(files, capsys):
    assert cli.main(["score", "--inputs", str(files / "inputs.tsv"), "--preds", str(files / "a.txt"),
                     "--model", "sta", "--out", str(files / "o3"), "-q"]) == 2
    assert "ROLE=DIR" in capsys.readouterr().err
    assert cli.main(["score", "--inputs", str(files / "inputs.tsv"), "--preds", str(files / "a.txt"),
                     "--preset", "nope", "--out", str(files / "o4"), "-q"]) == 2
    assert "unknown preset" in capsys.readouterr().err


def test_inputs_as_plain_text_and_separate_references(files):
    (files / "inputs.txt").write_text("первый\nвторой\n", encoding="utf-8")
    (files / "refs.tsv").write_text("toxic_comment\tneutral_comment1\nп\tref1\nв\tref2\n", encoding="utf-8")
    inputs, refs = load_inputs(files / "inputs.txt")
    assert inputs == ["первый", "второй"] and refs == [[], []]
    inputs, refs = load_inputs(files / "inputs.txt", files / "refs.tsv")
    assert refs == [["ref1"], ["ref2"]]


def test_embedded_preset_on_the_real_test_set(real_data, embedded_models, tmp_path, capsys):
    out = tmp_path / "emb"
    code = cli.main(["score", "--inputs", str(real_data / "test_references.tsv"),
                     "--preds", str(real_data / "outputs" / "delete_test.txt"), str(real_data / "outputs" / "orzhan_test.txt"),
                     "--out", str(out), "-q"])
    assert code == 0, capsys.readouterr().err
    summary = pd.read_csv(out / "summary.csv").set_index("submission")
    # A fine-tuned ruT5 detoxifies better than deleting lexicon words (human J 0.56 vs 0.16).
    assert summary.loc["orzhan_test", "j"] > summary.loc["delete_test", "j"]
    assert summary.loc["orzhan_test", "sta"] > summary.loc["delete_test", "sta"]


def test_an_edition_split_is_scored_like_its_inputs_file(real_data, embedded_models, tmp_path, capsys):
    """`--edition russe2022` takes the test split's inputs and references from the data
    folder (the inputs with their public reference): the same numbers as giving that file."""
    preds = real_data / "outputs" / "delete_test.txt"
    assert cli.main(["score", "--edition", "russe2022", "--preds", str(preds), "--out", str(tmp_path / "a"), "-q"]) == 0, \
        capsys.readouterr().err
    assert cli.main(["score", "--inputs", str(real_data / "test_references.tsv"), "--preds", str(preds), "--out",
                     str(tmp_path / "b"), "-q"]) == 0
    a = pd.read_csv(tmp_path / "a" / "delete_test.scores.csv")
    b = pd.read_csv(tmp_path / "b" / "delete_test.scores.csv")
    assert len(a) == 875
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(SystemExit) as exit_:  # one source of inputs, not two
        cli.main(["score", "--edition", "russe2022", "--inputs", str(real_data / "test.tsv"), "--preds", str(preds),
                  "--out", str(tmp_path / "c")])
    assert exit_.value.code == 2 and "not allowed with argument --edition" in capsys.readouterr().err


def test_a_second_score_run_reads_the_models_outputs_from_disk(files, tiny_models, monkeypatch):
    """The shell's ``score`` keeps every model output on disk (under the data folder): run
    again (a new process), it gives the same files without running a model."""
    from detox_core.models import ModelPool

    monkeypatch.setenv("DETOX_DATA_DIR", str(files / "data"))
    runs = []
    real_init = ModelPool.__init__

    def spy(self, *a, **kw):
        real_init(self, *a, **kw)
        runs.append(self)

    monkeypatch.setattr(ModelPool, "__init__", spy)
    args = ["score", "--inputs", str(files / "inputs.tsv"), "--preds", str(files / "a.txt"), "--preset", "russe2022",
            *model_args(tiny_models), "--backend", "torch", "-q"]
    assert cli.main([*args, "--out", str(files / "one")]) == 0
    assert cli.main([*args, "--out", str(files / "two")]) == 0
    assert runs[0].forward_texts > 0 and runs[1].forward_texts == 0
    assert (files / "data" / "cache" / "model_outputs" / "outputs.sqlite").is_file()
    one = pd.read_csv(files / "one" / "a.scores.csv")
    two = pd.read_csv(files / "two" / "a.scores.csv")
    pd.testing.assert_frame_equal(one, two)
    assert cli.main([*args, "--out", str(files / "three"), "--no-disk-cache"]) == 0
    assert runs[2].disk is None and runs[2].forward_texts > 0


def test_an_llm_judge_s_estimate_is_asked_for_only_when_it_is_shown(capsys):
    """`score --quiet` plans no request and reads no cache before scoring; without it the
    estimate and the cost are said on stderr, nothing on stdout."""
    import pandas as pd

    from detox_core.cli.score import TerminalReporter
    from detox_core.submissions.batch import Reporter, _run

    class Estimate:
        def text(self) -> str:
            return "2 requests, about $0.01"

    class Judge:
        def __init__(self) -> None:
            self.estimated = 0
            self.langs: list[str] | None = None

        def estimate(self, inputs, outputs, langs):
            self.estimated += 1
            assert langs == ["en", "en"]
            return Estimate()

        def score(self, inputs, outputs, references, *, calibrated, progress, langs):
            self.langs = langs
            progress("judge", len(outputs), len(outputs))
            return pd.DataFrame({"j": [0.5] * len(outputs)})

    for reporter, asked in ((Reporter(), 0), (TerminalReporter(quiet=True), 0), (TerminalReporter(quiet=False), 1)):
        judge = Judge()
        frame = _run(judge, "team", ["a", "b"], ["c", "d"], [[], []], ["en", "en"], True, reporter)
        assert judge.estimated == asked and list(frame["j"]) == [0.5, 0.5]
        assert judge.langs == ["en", "en"]  # the judge is told the languages either way
    out, err = capsys.readouterr()
    assert out == "" and err.count("team: 2 requests, about $0.01") == 1
