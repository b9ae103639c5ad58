"""AppTests of the MERA ruDetox parts of two pages: Annotation projects (three crowd
exports -> the kept pairs, scored) and Human vs automatic (fit and save the preset's
calibrators), on tiny models mapped in place of the real ids."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.calibration import fitted as fitted_calibration
from detox_core.metrics import get_preset, preset_class
from detox_core.models import default_pool
from tests.annotation.test_crowd_filter import PAIRS, export_text, votes_for, write_table
from tests.metrics.test_rudetox_mera import build_pair_classifier, build_roberta_classifier, write_judgements
from tests.tiny_models import build_classifier

HARNESS = str(PROJECT_ROOT / "tests" / "app" / "rudetox_harness.py")


@pytest.fixture(scope="module")
def mapped_models(tmp_path_factory):
    """The preset's three model ids mapped to tiny local models in the shared pool."""
    root = tmp_path_factory.mktemp("mera_app")
    folders = {
        "sta": build_classifier(root / "sta", {0: "neutral", 1: "toxic"}, seed=11),
        "sim": build_pair_classifier(root / "sim", {0: "not_paraphrase", 1: "paraphrase"}, seed=12),
        "fl": build_roberta_classifier(root / "fl", {0: "unacceptable", 1: "acceptable"}, seed=13),
    }
    pool = default_pool()
    ids = preset_class("rudetox-mera").default_models()
    for role, folder in folders.items():
        pool.map_model(ids[role], str(folder))
    yield folders
    for model_id in ids.values():
        pool.map_model(model_id, None)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("DETOX_ORGANIZER_PASSWORD", raising=False)
    return tmp_path


def crowd_files(tmp_path) -> dict[str, str]:
    files = {"cf_table": str(write_table(tmp_path / "dataset.csv"))}
    for task in ("toxicity", "content", "fluency"):
        path = tmp_path / f"{task}.tsv"
        path.write_text(export_text(task, votes_for(task)), encoding="utf-8")
        files[f"cf_{task}"] = str(path)
    return files


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_three_exports_to_the_kept_pairs_and_their_scores(mapped_models, data_dir):
    at = AppTest.from_file(HARNESS, default_timeout=120)
    at.session_state["_view"] = "crowd"
    run(at)
    assert any("Upload the table and the three exports" in c.value for c in at.caption)
    at.session_state["_uploads"] = crowd_files(data_dir)
    run(at)
    reports = at.dataframe[0].value  # the per-export report
    assert reports["left out"].tolist() == [2, 2, 2] and reports["unmatched"].tolist() == [0, 0, 0]
    kept = at.dataframe[1].value  # the kept pairs
    assert kept["input"].tolist() == [PAIRS[0][0], PAIRS[1][0]]
    assert any("2 pairs kept" in m.value for m in at.markdown)
    assert at.selectbox(key="cf_preset").value == "rudetox-mera"
    assert any("No calibrator fitted yet" in c.value for c in at.caption)  # raw, and said
    at.button(key="cf_score").click()
    run(at)
    assert any("on the 2 kept pairs (raw)" in m.value for m in at.markdown)
    values = {m.label: float(m.value) for m in at.metric}
    assert set(values) == {"STA", "SIM", "FL", "J"} and all(0 <= v <= 1 for v in values.values())
    direct = get_preset("rudetox-mera", pool=default_pool()).score(kept["input"].tolist(), kept["output"].tolist())
    for axis in ("sta", "sim", "fl", "j"):
        assert values[axis.upper()] == pytest.approx(direct[axis].mean(), abs=5e-4)  # shown to 3 decimals


def test_an_export_that_matches_nothing_is_named(mapped_models, data_dir):
    files = crowd_files(data_dir)
    other = data_dir / "other.tsv"
    other.write_text(export_text("fluency", {("совсем другой текст",): [(w, "fluent") for w in
                                                                        ("w0", "w1", "w2", "w3")]}), encoding="utf-8")
    files["cf_fluency"] = str(other)
    at = AppTest.from_file(HARNESS, default_timeout=120)
    at.session_state["_view"] = "crowd"
    at.session_state["_uploads"] = files
    run(at)
    assert at.error and "other.tsv" in at.error[0].value


def test_organizer_fits_and_saves_the_calibrators(mapped_models, data_dir):
    at = AppTest.from_file(HARNESS, default_timeout=120)
    at.session_state["_view"] = "fit"
    at.session_state["_judgements"] = str(write_judgements(data_dir / "human.tsv"))
    run(at)
    assert any("No calibrator fitted yet" in c.value for c in at.caption)
    assert not preset_class("rudetox-mera").has_calibration()
    at.button(key="he_fit_rudetox-mera").click()
    run(at)
    assert at.success and "12 judged pairs" in at.success[0].value
    assert not any("No calibrator fitted yet" in c.value for c in at.caption)  # the note says the new state
    saved = fitted_calibration.load_saved("rudetox-mera")
    assert saved.fitted_on["n"] == 12 and saved.fitted_on["description"].startswith("human.tsv")
    assert preset_class("rudetox-mera").has_calibration()  # the Calibrated switch turns on
    assert "fitted on human.tsv" in preset_class("rudetox-mera").calibration_note()


def test_the_calibrated_switch_says_why_it_is_off(data_dir):
    at = AppTest.from_file(HARNESS, default_timeout=60)
    at.session_state["_view"] = "picker"
    run(at)
    at.segmented_control(key="preset").set_value("MERA ruDetox")
    run(at)
    switch = at.toggle(key="preset_cal_none")
    assert switch.disabled and "No calibrator fitted yet" in switch.help
    raw, human = {a: [0.1, 0.9, 0.5] for a in ("sta", "sim", "fl")}, {a: [0.0, 1.0, 1.0] for a in ("sta", "sim", "fl")}
    fitted_calibration.save(fitted_calibration.fit_set("rudetox-mera", raw, human, "isotonic", "three pairs"))
    run(at)
    switch = at.toggle(key="preset_cal")
    assert not switch.disabled and switch.value and "fitted on three pairs" in switch.help
    # What they were fitted on may be a user's file name: shown as text, never as markup.
    fitted_calibration.save(fitted_calibration.fit_set("rudetox-mera", raw, human, "isotonic", "**bold** <b>x</b>.tsv"))
    run(at)
    assert "\\*\\*bold\\*\\*" in at.toggle(key="preset_cal").help and "<b>" not in at.toggle(key="preset_cal").help


def test_organizer_saves_the_published_calibrator(data_dir):
    at = AppTest.from_file(HARNESS, default_timeout=60)
    at.session_state["_view"] = "fit"
    at.session_state["_judgements"] = str(write_judgements(data_dir / "human.tsv"))
    run(at)
    at.button(key="he_published_rudetox-mera").click()
    run(at)
    assert at.success and "published" in at.success[0].value
    assert not any("No calibrator fitted yet" in c.value for c in at.caption)
    assert any("published" in c.value for c in at.caption)
    assert fitted_calibration.load_saved("rudetox-mera").fitted_on["published"]
    assert "published" in preset_class("rudetox-mera").calibration_note()
