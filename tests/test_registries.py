"""A preset and an edition registered in one place appear everywhere: the preset picker,
the model settings, the CLI and the leaderboard; the dataset picker, fetch-data and the
published leaderboard. Nothing else is touched: the toy entries live in this file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from detox_core import cli
from detox_core.analysis.corpus import prepare_corpus
from detox_core.data import PROJECT_ROOT
from detox_core.data.fetch import DataFile, count_corpus, count_lines
from detox_core.editions import Edition, editions, get_edition, register_edition, unregister_edition
from detox_core.errors import UnknownNameError
from detox_core.metrics import Preset, check_pairs, get_preset, make_score_frame, register_preset, unregister_preset
from detox_core.metrics.chrf import sentence_chrf
from detox_core.submissions.service import score_and_store, split_inputs
from detox_core.submissions.store import Store
from tests.app.helpers import run

PAGES = PROJECT_ROOT / "pages"
TOY_MODEL = "toy-org/toy-toxicity"


class ToyPreset(Preset):
    """STA: 0 when the output keeps a word of the toy lexicon; SIM: length ratio; FL: 0.5."""

    name = "toy"
    version = "7"
    title = "Toy recipe for the tests"
    label = "Toy preset"
    description = "A preset registered by a test."
    model_kinds = {"sta": "classifier"}
    axis_help = {"fl": "Toy fluency: always one half."}

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {"sta": TOY_MODEL}

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        sta = np.array([0.0 if "дурак" in o else 1.0 for o in outputs])
        sim = np.array([min(len(i), len(o)) / max(len(i), len(o), 1) for i, o in zip(inputs, outputs)])
        return make_score_frame(sta, sim, np.full(len(outputs), 0.5), sentence_chrf(outputs, refs),
                                self.signature(calibrated))


TOY_TEST = "toxic_comment\tneutral_comment1\nты дурак\tты неправ\nвот дурак опять\tвот опять\n"
TOY_EDITION = Edition(
    name="toyed",
    title="Toy edition (Russian)",
    short="TOY",
    languages=("ru",),
    splits={"test": ("test.tsv",)},
    files=(DataFile("test.tsv", 2, count_corpus), DataFile("outputs/keep_test.txt", 2, count_lines)),
    outputs="outputs",
    leaderboard="leaderboard.csv",
    presets=("toy",),
)


@pytest.fixture
def toy(tiny_data, tmp_path, monkeypatch):
    """The toy preset and edition registered, the edition's files in a mirror and in the
    app's data folder, its model's folder on this machine (pages offer to score only with
    presets whose models are here); both are removed from the registries afterwards."""
    models = tmp_path / "models"
    (models / TOY_MODEL.replace("/", "__")).mkdir(parents=True)
    monkeypatch.setenv("DETOX_MODEL_DIR", str(models))
    mirror = tmp_path / "mirror"
    (mirror / "outputs").mkdir(parents=True)
    (mirror / "test.tsv").write_text(TOY_TEST, encoding="utf-8")
    (mirror / "outputs" / "keep_test.txt").write_text("ты дурак\nвот опять\n", encoding="utf-8")
    folder = tiny_data / "toyed"
    (folder / "outputs").mkdir(parents=True)
    (folder / "test.tsv").write_text(TOY_TEST, encoding="utf-8")
    (folder / "outputs" / "keep_test.txt").write_text("ты дурак\nвот опять\n", encoding="utf-8")
    (folder / "leaderboard.csv").write_text("team,method,j_auto,j_human\nToyTeam,rewrite,0.42,0.55\n",
                                            encoding="utf-8")
    register_preset(ToyPreset)
    register_edition(TOY_EDITION)
    yield mirror
    unregister_preset("toy")
    unregister_edition("toyed")


def test_the_cli_lists_and_runs_the_toy_preset_and_edition(toy, tiny_data, tmp_path, capsys):
    helps = cli.build_parser()._subparsers._group_actions[0].choices  # noqa: SLF001 - the sub-commands' parsers
    assert "toy: Toy recipe for the tests" in helps["score"].format_help()
    assert "toyed" in helps["fetch-data"].format_help()
    out = tmp_path / "scores"
    folder = tiny_data / "toyed"
    code = cli.main(["score", "--preset", "toy", "--inputs", str(folder / "test.tsv"),
                     "--preds", str(folder / "outputs" / "keep_test.txt"), "--out", str(out), "-q"])
    assert code == 0, capsys.readouterr().err
    frame = pd.read_csv(out / "keep_test.scores.csv")
    assert frame["sta"].tolist() == [0.0, 1.0] and frame["fl"].tolist() == [0.5, 0.5]
    signature = json.loads((out / "keep_test.signature.json").read_text(encoding="utf-8"))
    assert (signature["preset"], signature["preset_version"]) == ("toy", "7")
    # fetch-data fills the toy edition's folder from its mirror, and only that edition with --edition.
    target = tmp_path / "fetched"
    code = cli.main(["fetch-data", "--edition", "toyed", "--target", str(target), "--mirror", str(toy),
                     "--no-download", "-q"])
    assert code == 0 and "2 files verified" in capsys.readouterr().out
    assert (target / "outputs" / "keep_test.txt").is_file()


def test_an_unregistered_name_is_a_clear_error(toy):
    unregister_preset("toy")
    with pytest.raises(UnknownNameError, match="unknown preset 'toy'; known: embedded"):
        get_preset("toy")
    unregister_edition("toyed")
    assert "toyed" not in [e.name for e in editions()]
    with pytest.raises(UnknownNameError, match="unknown edition 'toyed'"):
        get_edition("toyed")


def test_the_preset_picker_offers_the_toy_preset(toy):
    at = AppTest.from_file(str(PAGES / "live_scoring.py"), default_timeout=60)
    at.session_state["live_input"] = "ты дурак"
    at.session_state["live_candidates"] = "ты неправ\nты дурак"
    run(at)
    picker = at.segmented_control(key="preset")
    assert "Toy preset" in picker.options
    picker.set_value("Toy preset")
    run(at)
    values = {m.label: [] for m in at.metric}
    for m in at.metric:
        values[m.label].append(m.value)
    assert values["STA"] == ["1.00", "0.00"] and values["FL"] == ["0.50", "0.50"]
    # The preset's own help for its axes, and no calibration to switch.
    assert any(m.help == "Toy fluency: always one half." for m in at.metric if m.label == "FL")
    assert at.toggle(key="preset_cal_none").disabled


def test_the_model_settings_list_the_toy_presets_model(toy):
    at = run(AppTest.from_file(str(PROJECT_ROOT / "tests" / "app" / "model_settings_harness.py"),
                               default_timeout=60))
    assert at.sidebar.text_input(key=f"model_dir::{TOY_MODEL}").label == f"{TOY_MODEL} (Toy preset STA)"


def test_the_leaderboard_shows_the_toy_edition_and_groups_by_the_toy_preset(toy, tiny_data):
    store = Store(f"sqlite:///{tiny_data / 'detox.sqlite'}")
    inputs, refs = split_inputs(prepare_corpus(get_edition("toyed").load(["test"])), "test")
    for name, text in (("keep_test.txt", "ты дурак\nвот опять\n"), ("copy_test.txt", "ты дурак\nвот дурак опять\n")):
        score_and_store(store, text.encode(), name, dataset="toyed", split="test", inputs=inputs, references=refs,
                        preset="toy", calibrated=True, source="upload")
    at = AppTest.from_file(str(PAGES / "leaderboard.py"), default_timeout=60)
    run(at)
    assert "TOY" in at.sidebar.selectbox(key="dataset").options
    at.sidebar.selectbox(key="dataset").set_value("TOY")
    run(at)
    assert any(s.value == "TOY: the published leaderboard" for s in at.subheader)
    published = at.dataframe[0].value
    assert published["team"].tolist() == ["ToyTeam"] and published["j_human"].tolist() == [0.55]
    assert any(m.value == "#### Toy preset" for m in at.markdown)
    board = at.dataframe[1].value
    assert set(board["system"]) == {"keep_test.txt", "copy_test.txt"}
    assert board["system"].tolist()[0] == "keep_test.txt"  # higher J first
