"""Side-by-side tables, largest differences and win/tie/loss counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.analysis.compare import (
    AXES,
    largest_differences,
    paired_differences,
    side_by_side,
    system_means,
    win_tie_loss,
)


def frame(outputs, j, chrf=None):
    n = len(outputs)
    return pd.DataFrame({"idx": range(n), "input": [f"in{i}" for i in range(n)], "output": outputs,
                         "sta": j, "sim": j, "fl": j, "j": j, "chrf": chrf if chrf is not None else [np.nan] * n})


def test_side_by_side_and_win_tie_loss():
    a = frame(["x", "y", "z", "same"], [0.9, 0.5, 0.2, 0.4])
    b = frame(["x2", "y2", "z2", "same"], [0.1, 0.52, 0.6, 0.9])
    table = side_by_side({"A": a, "B": b})
    assert list(table["line"]) == [1, 2, 3, 4] and list(table["output:B"]) == ["x2", "y2", "z2", "same"]
    wtl = win_tie_loss(table, "A", "B").set_index("axis")
    # Row 1 A wins, row 2 tie (0.02 < 0.05), row 3 loss, row 4 identical outputs = tie.
    assert wtl.loc["j"].to_dict() == {"win": 1, "tie": 2, "loss": 1}
    assert wtl.loc["chrf"].to_dict() == {"win": 0, "tie": 0, "loss": 0}  # no references
    top = largest_differences(table, "A", "B")
    assert list(top["line"])[:2] == [1, 4]


def test_different_inputs_are_refused():
    a = frame(["x"], [0.5])
    b = frame(["y", "z"], [0.5, 0.5])
    with pytest.raises(ValueError, match="same inputs"):
        side_by_side({"A": a, "B": b})
    with pytest.raises(ValueError, match="at least two"):
        side_by_side({"A": a})


def _table_of(scores: dict[str, np.ndarray]) -> pd.DataFrame:
    n = len(next(iter(scores.values())))
    frames = {name: pd.DataFrame({"idx": range(n), "input": [f"вход {i}" for i in range(n)],
                                  "output": [f"{name} {i}" for i in range(n)],
                                  **{axis: values for axis in AXES}}) for name, values in scores.items()}
    return side_by_side(frames)


def test_paired_bootstrap_of_identical_systems_is_not_significant():
    rng = np.random.default_rng(1)
    same = rng.uniform(0, 1, 300)
    out = paired_differences(_table_of({"a": same, "b": same.copy()}), ["a", "b"])
    assert len(out) == len(AXES) and set(out["axis"]) == set(AXES)
    assert (out["p"] == 1.0).all() and not out["significant"].any()
    assert ((out["low"] <= 0) & (out["high"] >= 0)).all()


def test_paired_bootstrap_finds_a_system_better_on_every_sentence():
    rng = np.random.default_rng(2)
    base = rng.uniform(0, 0.9, 200)
    out = paired_differences(_table_of({"good": base + 0.05, "bad": base, "noisy": base + rng.normal(0, 0.3, 200)}),
                             ["good", "bad", "noisy"], n_boot=500)
    assert len(out) == 3 * len(AXES)  # three pairs, every axis
    good_bad = out[(out["a"] == "good") & (out["b"] == "bad")]
    assert (good_bad["p"] < 0.05).all() and good_bad["significant"].all()
    assert np.allclose(good_bad["delta"], 0.05) and (good_bad["low"] > 0).all()
    # Same seed, same figures.
    again = paired_differences(_table_of({"good": base + 0.05, "bad": base, "noisy": base + rng.normal(0, 0.3, 200)}),
                               ["good", "bad", "noisy"], n_boot=500)
    assert again.loc[:2, ["delta", "low", "high"]].equals(out.loc[:2, ["delta", "low", "high"]])


def test_paired_bootstrap_leaves_out_sentences_without_a_score():
    a, b = np.linspace(0, 1, 50), np.linspace(0, 1, 50) - 0.1
    a[:10] = np.nan  # chrF without references
    out = paired_differences(_table_of({"a": a, "b": b}), ["a", "b"], n_boot=200)
    assert (out["n"] == 40).all() and np.allclose(out["delta"], 0.1)
    means = system_means(_table_of({"a": a, "b": b}), ["a", "b"], n_boot=200)
    row = means[(means["system"] == "b") & (means["axis"] == "j")].iloc[0]
    assert row["low"] <= row["mean"] <= row["high"] and row["mean"] == pytest.approx(np.mean(b))


def test_multilingual_means_and_differences_are_over_languages_and_skip_unscored_ones():
    from detox_core.analysis.compare import per_language_means

    def ml(j, chrf):
        f = frame(["x"] * 5, j, chrf)
        f["lang"] = ["en", "en", "en", "en", "ar"]
        return f

    # A: English 1.0 (4 sentences), Arabic 0.0; B: 0.5 everywhere. By sentences A = 0.8 leads; by languages 0.5 = 0.5.
    table = side_by_side({"A": ml([1, 1, 1, 1, 0], [0.5] * 4 + [np.nan]), "B": ml([0.5] * 5, [0.3] * 4 + [np.nan])})
    assert table["lang"].tolist() == ["en", "en", "en", "en", "ar"]
    means = system_means(table, ["A", "B"], 200, by_language=True).set_index(["system", "axis"])
    assert means.loc[("A", "j"), "mean"] == pytest.approx(0.5) and means.loc[("A", "j"), "unscored"] == ""
    # chrF has no Arabic references: the mean is over English, and Arabic is named.
    assert means.loc[("A", "chrf"), "mean"] == pytest.approx(0.5) and means.loc[("A", "chrf"), "unscored"] == "ar"
    pairs = paired_differences(table, ["A", "B"], 200, by_language=True).set_index("axis")
    assert pairs.loc["j", "delta"] == pytest.approx(0.0) and not pairs.loc["j", "significant"]
    assert pairs.loc["chrf", "delta"] == pytest.approx(0.2) and pairs.loc["chrf", "n"] == 4
    assert pairs.loc["chrf", "unscored"] == "ar"
    assert paired_differences(table, ["A", "B"], 200).set_index("axis").loc["j", "delta"] == pytest.approx(0.3)
    per = per_language_means(table, ["A", "B"], "chrf").set_index("system")
    assert per.columns.tolist() == ["en", "ar"] and np.isnan(per.loc["A", "ar"]) and per.loc["B", "en"] == 0.3
