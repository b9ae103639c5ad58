"""Human-vs-automatic: 2025 recipes, meta-evaluation, joins, calibration with LOSO."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.errors import DetoxInputError

from detox_core.calibration.evaluation import Calibrator, leave_one_system_out
from detox_core.metrics.textdetox2025 import add_2025_recipes
from detox_core.analysis.meta_eval import available_metrics, confusion, disagreements, join_score_files, meta_eval


def frame(n_per=60, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for k, system in enumerate(["a", "b", "c"]):
        for i in range(n_per):
            tox = float(rng.random() < 0.4 + 0.2 * k)
            rows.append({"toxic_sentence": f"in {i}", "neutral_sentence": f"out {system} {i}", "participant_name": system,
                         "non-toxicity": tox, "content": float(rng.random() < 0.6), "fluency": 1.0, "J": tox,
                         "CLS_OLD_GEN": 0.6 * tox + 0.4 * rng.random(),
                         "CLS_NEW_INPUT": rng.random(), "CLS_NEW_GEN": rng.random(), "CLS_NEW_REF": rng.random(),
                         "SIM-INPUT-GEN": rng.random(), "SIM-GEN-REF": rng.random(), "XCOMET-LITE": rng.random()})
    return pd.DataFrame(rows)


def test_2025_recipes_by_hand():
    f = add_2025_recipes(frame())
    r = f.iloc[0]
    p_in, p_gen, p_ref = r["CLS_NEW_INPUT"], r["CLS_NEW_GEN"], r["CLS_NEW_REF"]
    expected = max(float(p_ref <= p_gen), (p_gen + float(p_in <= p_gen)) / 2)
    assert r["CLS-NEW"] == pytest.approx(expected)
    assert r["SIM-JOINED"] == pytest.approx(0.4 * r["SIM-INPUT-GEN"] + 0.6 * r["SIM-GEN-REF"])
    assert r["J-2025"] == pytest.approx(r["CLS-NEW"] * r["SIM-JOINED"] * r["XCOMET-LITE"])
    metrics = available_metrics(f)
    assert {"CLS_OLD_GEN", "CLS-NEW"} <= set(metrics["sta"]) and "J-2025" in metrics["j"]


def test_meta_eval_ranks_the_informative_metric_first():
    table = meta_eval(add_2025_recipes(frame()), n_boot=100)
    sta = table[(table["axis"] == "sta") & (table["level"] == "sentence")]
    assert sta.iloc[0]["metric"] == "CLS_OLD_GEN" and sta.iloc[0]["roc_auc"] > 0.9
    assert set(table["level"]) == {"sentence", "system"}


def test_confusion_and_disagreements():
    f = frame()
    conf = confusion(f, "sta", "CLS_OLD_GEN", 0.5)
    assert conf.values.sum() == len(f)
    d = disagreements(f, "sta", "CLS_OLD_GEN", 0.5)
    assert len(d["human yes, metric no"]) == conf.loc["human: yes", "metric: no"]
    assert len(d["human no, metric yes"]) == conf.loc["human: no", "metric: yes"]


def test_leave_one_system_out_never_sees_the_held_out_system():
    f = frame()
    # System c's labels are inverted relative to the score: a calibrator fitted with c
    # would learn a weaker slope; held out, c is predicted from a and b only.
    f.loc[f["participant_name"] == "c", "non-toxicity"] = 1 - f.loc[f["participant_name"] == "c", "non-toxicity"]
    held = leave_one_system_out(f, "logistic", ["CLS_OLD_GEN"], "non-toxicity")
    fit_ab = Calibrator("logistic", ["CLS_OLD_GEN"], "non-toxicity").fit(f[f["participant_name"] != "c"])
    c = f["participant_name"] == "c"
    assert np.allclose(held[c.to_numpy()], fit_ab.predict(f[c]))


@pytest.mark.parametrize("kind", ["linear", "isotonic", "logistic"])
def test_calibrator_round_trip(kind, tmp_path):
    f = frame()
    cal = Calibrator(kind, ["CLS_OLD_GEN"], "non-toxicity", meta={"n": len(f)}).fit(f)
    pred = cal.predict(f)
    assert pred.min() >= 0 and pred.max() <= 1
    cal.save(tmp_path / "cal.json")
    assert b"\x80" not in (tmp_path / "cal.json").read_bytes()[:2]  # plain JSON, not a pickle
    again = Calibrator.load(tmp_path / "cal.json")
    assert np.allclose(again.predict(f), pred) and again.signature()["calibrator"] == kind
    # The same numbers as the scikit-learn estimator it was fitted with.
    from sklearn.isotonic import IsotonicRegression
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = f[["CLS_OLD_GEN"]].to_numpy(float), f["non-toxicity"].to_numpy(float)
    if kind == "isotonic":
        want = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x[:, 0], y).predict(x[:, 0])
    elif kind == "logistic":
        want = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(x, y >= 0.5).predict_proba(x)[:, 1]
    else:
        want = np.clip(LinearRegression().fit(x, y).predict(x), 0, 1)
    assert np.allclose(pred, want, atol=1e-6)


def test_a_calibrator_file_that_is_not_one_is_refused_by_name(tmp_path):
    bad = tmp_path / "cal.joblib"
    bad.write_bytes(b"\x80\x04\x95 pickled")
    with pytest.raises(DetoxInputError, match="cal.joblib: not a calibrator file"):
        Calibrator.load(bad)


def test_join_score_files(tmp_path):
    f = frame(n_per=3)
    scores = pd.DataFrame({"input": f["toxic_sentence"][:3], "output": f["neutral_sentence"][:3],
                           "sta": [0.1, 0.2, 0.3], "sim": 0.5, "fl": 0.5, "j": 0.1})
    scores.to_csv(tmp_path / "a_test.scores.csv", index=False)
    (tmp_path / "a_test.signature.json").write_text('{"preset": "embedded"}', encoding="utf-8")
    joined = join_score_files(f, tmp_path)
    assert list(joined["embedded:sta"][:3]) == [0.1, 0.2, 0.3]
    assert joined["embedded:sta"][3:].isna().all()  # other systems: no scores


def test_a_score_folder_written_spreadsheet_safe_joins_outputs_that_start_like_formulas(tmp_path):
    """``score --out`` writes its texts as every CSV of the app does (an output "- you are wrong"
    led by a quote); the meta-evaluation reads them back as scored and joins them."""
    from detox_core.data.spreadsheet import csv_text

    f = frame(n_per=3)
    f.loc[:2, "neutral_sentence"] = ["- you are wrong", "=1+1", "'- as typed"]
    scores = pd.DataFrame({"input": f["toxic_sentence"][:3], "output": f["neutral_sentence"][:3],
                           "sta": [0.1, 0.2, 0.3], "sim": 0.5, "fl": 0.5, "j": 0.1})
    (tmp_path / "a_test.scores.csv").write_text(csv_text(scores), encoding="utf-8")
    assert "'- you are wrong" in (tmp_path / "a_test.scores.csv").read_text(encoding="utf-8")
    (tmp_path / "a_test.signature.json").write_text('{"preset": "embedded"}', encoding="utf-8")
    joined = join_score_files(f, tmp_path)
    assert list(joined["embedded:sta"][:3]) == [0.1, 0.2, 0.3]


def test_join_stored_and_apply_calibrator(tmp_path):
    from detox_core.calibration.evaluation import apply_calibrator
    from detox_core.analysis.meta_eval import join_stored
    from detox_core.metrics.base import Signature, make_score_frame
    from detox_core.submissions.store import Store

    f = frame(n_per=3)
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    scores = make_score_frame(np.array([0.1, 0.2, 0.3]), np.ones(3) * 0.5, np.ones(3), np.full(3, np.nan),
                              Signature(preset="embedded", preset_version="1"))
    store.add(name="b_test.txt", sha256="x", dataset="russe2022", split="test", preset="embedded", calibrated=True,
              source="upload", inputs=f["toxic_sentence"][3:6].tolist(), outputs=f["neutral_sentence"][3:6].tolist(),
              scores=scores)
    joined = join_stored(f, store)
    assert list(joined["embedded:sta"][3:6]) == [0.1, 0.2, 0.3] and joined["embedded:sta"][:3].isna().all()

    cal = Calibrator("linear", ["sta"], "non-toxicity").fit(pd.DataFrame({"sta": [0.0, 1.0], "non-toxicity": [0.2, 0.8]}))
    out = apply_calibrator(scores, cal, "sta")
    assert np.allclose(out["sta"], 0.2 + 0.6 * np.array([0.1, 0.2, 0.3]))
    assert np.allclose(out["j"], out["sta"] * out["sim"] * out["fl"])
    assert out.attrs["signature"]["calibrators"]["sta"]["calibrator"] == "linear"


def test_join_stored_says_what_it_joined(tmp_path):
    from detox_core.analysis.meta_eval import join_stored_report
    from detox_core.metrics.base import Signature, make_score_frame
    from detox_core.submissions.store import Store

    f = frame(n_per=3)
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    scores = make_score_frame(np.array([0.1, 0.2]), np.ones(2), np.ones(2), np.full(2, np.nan),
                              Signature(preset="embedded", preset_version="1"))
    # Two of system b's three judged pairs, and a submission of a system nobody judged.
    for name in ("b_test.txt", "zzz_test.txt"):
        store.add(name=name, sha256=name, dataset="russe2022", split="test", preset="embedded", calibrated=True,
                  source="upload", inputs=f["toxic_sentence"][3:5].tolist(),
                  outputs=f["neutral_sentence"][3:5].tolist(), scores=scores)
    joined, report = join_stored_report(f, store)
    assert report.to_dict("records") == [{"submission": "b_test.txt", "system": "b", "preset": "embedded",
                                          "columns": "embedded:sta, embedded:sim, embedded:fl, embedded:j",
                                          "rows": 2}]
    assert joined["embedded:sta"].notna().sum() == 2
    empty = Store(f"sqlite:///{tmp_path / 'empty.sqlite'}")
    assert join_stored_report(f, empty)[1].empty


def test_stored_shipped_samples_join_their_judged_systems(tmp_path):
    """Scoring the shipped TextDetox 2024 sample outputs (``<system>_sample.tsv``) on the
    Submissions page joins each to the judged system it is named after, and to no other."""
    from detox_core.analysis.meta_eval import join_stored_report
    from detox_core.editions.textdetox import SAMPLE_SYSTEMS
    from detox_core.metrics.base import Signature, make_score_frame
    from detox_core.submissions.store import Store

    f = pd.DataFrame({"participant_name": [s for s in SAMPLE_SYSTEMS for _ in range(2)] + ["Team"] * 2,
                      "toxic_sentence": [f"x{i}" for i in range(2)] * (len(SAMPLE_SYSTEMS) + 1),
                      "neutral_sentence": [f"{s} y{i}" for s in (*SAMPLE_SYSTEMS, "Team") for i in range(2)],
                      "non-toxicity": 1.0, "content": 1.0, "fluency": 1.0, "J": 1.0})
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    scores = make_score_frame(np.array([0.1, 0.2]), np.ones(2), np.ones(2), np.full(2, np.nan),
                              Signature(preset="embedded", preset_version="1"))
    for system in SAMPLE_SYSTEMS:
        store.add(name=f"{system}_sample.tsv", sha256=system, dataset="textdetox2024", split="sample",
                  preset="embedded", calibrated=True, source="shipped", inputs=["x0", "x1"],
                  outputs=[f"{system} y0", f"{system} y1"], scores=scores)
    joined, report = join_stored_report(f, store)
    assert dict(zip(report["submission"], report["system"])) == {f"{s}_sample.tsv": s for s in SAMPLE_SYSTEMS}
    assert report["rows"].tolist() == [2] * len(SAMPLE_SYSTEMS)
    # "Team_SINAI_sample.tsv" is Team_SINAI's, not the judged system "Team"'s.
    assert joined.loc[f["participant_name"] == "Team", "embedded:sta"].isna().all()


def test_reliability_curve_bins_predictions_against_human_labels():
    from detox_core.calibration.evaluation import calibration_curves, reliability_curve

    pred = np.array([0.05, 0.15, 0.12, 0.95, 0.91, np.nan, 1.0])
    human = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    curve = reliability_curve(pred, human, bins=10)
    assert curve["bin"].tolist() == [0, 1, 9]  # empty bins and the unscored row left out; 1.0 in the last bin
    assert curve.set_index("bin").loc[1, "observed"] == pytest.approx(0.5)
    assert curve.set_index("bin").loc[9, "n"] == 3 and curve["n"].sum() == 6
    f = frame()
    curves = calibration_curves(f, {"isotonic on CLS_OLD_GEN": ("isotonic", ["CLS_OLD_GEN"], "non-toxicity")}, bins=5)
    assert set(curves["curve"]) == {"isotonic on CLS_OLD_GEN", "raw CLS_OLD_GEN"}
    assert curves["predicted"].between(0, 1).all() and curves["observed"].between(0, 1).all()


def test_embedded_scores_are_kept_on_disk(trained, tmp_path, monkeypatch):
    from detox_core.analysis import meta_eval as humaneval

    judged = pd.DataFrame({"toxic_sentence": ["ты дебил", "вот хрень"], "neutral_sentence": ["ты неправ", "вот ерунда"],
                           "neutral_sentence_reference": ["ты не прав", ""]})
    first = humaneval.embedded_scores(judged, tmp_path)
    assert len(list(tmp_path.glob("embedded-scores-*.pkl"))) == 1

    def no_scoring(*args, **kwargs):
        raise AssertionError("scored again")

    monkeypatch.setattr("detox_core.metrics.score_frame", no_scoring)
    monkeypatch.setattr(humaneval, "_SCORES_MEMO", {})  # as after a restart
    again = humaneval.embedded_scores(judged, tmp_path)  # read from the disk, not scored
    assert np.allclose(again["j"], first["j"])
    other = judged.assign(neutral_sentence=["ты не прав", "вот ерунда"])
    with pytest.raises(AssertionError, match="scored again"):
        humaneval.embedded_scores(other, tmp_path)  # other pairs: other key


def test_the_bootstrap_table_is_kept_on_disk_and_keyed_by_what_it_reads(tmp_path, monkeypatch):
    """Human vs automatic's Correlations tab: a restarted server reads the agreement table
    instead of resampling for seconds; changed labels are resampled, never served stale."""
    from detox_core.analysis import meta_eval as module

    judged = add_2025_recipes(frame())
    first = module.kept_meta_eval(judged, n_boot=100, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(first, meta_eval(judged, n_boot=100))
    assert len(list(tmp_path.glob("meta-eval-*.pkl"))) == 1

    def resampled(*args, **kwargs):
        raise AssertionError("resampled although the table is kept")

    monkeypatch.setattr(module, "meta_eval", resampled)
    pd.testing.assert_frame_equal(module.kept_meta_eval(judged, n_boot=100, cache_dir=tmp_path), first)
    monkeypatch.undo()
    changed = judged.copy()
    changed.loc[0, "non-toxicity"] = 1.0 - changed.loc[0, "non-toxicity"]
    module.kept_meta_eval(changed, n_boot=100, cache_dir=tmp_path)
    module.kept_meta_eval(judged, n_boot=200, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("meta-eval-*.pkl"))) == 3
