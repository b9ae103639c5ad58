"""Failure kinds: a system's worst outputs grouped by meaning, with vectors built here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.analysis.failure_groups import (
    choose_k,
    group_failures,
    limiting_axis,
    pair_features,
    system_failures,
    worst_outputs,
)
from detox_core.errors import DetoxInputError


def score_frame(n: int = 40, seed: int = 0) -> pd.DataFrame:
    """``n`` scored sentences: the first half fail on SIM (meaning lost), the second half on
    STA (still toxic), the rest of the J spread over good outputs."""
    rng = np.random.default_rng(seed)
    sta = np.where(np.arange(n) < n // 2, rng.uniform(0.8, 1.0, n), rng.uniform(0.0, 0.2, n))
    sim = np.where(np.arange(n) < n // 2, rng.uniform(0.0, 0.2, n), rng.uniform(0.8, 1.0, n))
    fl = rng.uniform(0.85, 1.0, n)
    return pd.DataFrame({"idx": range(n), "input": [f"input {i}" for i in range(n)],
                         "output": [f"output {i}" for i in range(n)], "sta": sta, "sim": sim, "fl": fl,
                         "j": sta * sim * fl})


def two_kinds(frame: pd.DataFrame, seed: int = 1) -> np.ndarray:
    """Features of two well separated kinds: the outputs that lost the meaning, the others."""
    rng = np.random.default_rng(seed)
    centre = np.where((frame["sim"] < 0.5).to_numpy()[:, None], [5.0, 0.0, 0.0], [0.0, 5.0, 0.0])
    return centre + rng.normal(0, 0.3, (len(frame), 3))


def test_worst_outputs_are_the_lowest_j_and_skip_unscored_rows():
    frame = pd.DataFrame({"idx": range(5), "j": [0.5, np.nan, 0.1, 0.9, 0.1]})
    worst = worst_outputs(frame, 3)
    assert worst["idx"].tolist() == [2, 4, 0]  # ties keep the input order; no NaN row
    assert len(worst_outputs(frame, 99)) == 4
    # Among equal J (many zeros), the lowest axes come first, not the first lines of the file.
    zeros = pd.DataFrame({"idx": range(4), "sta": [0.9, 0.0, 0.5, 0.0], "sim": [0.0, 0.1, 0.0, 0.0],
                          "fl": [1.0, 1.0, 1.0, 1.0], "j": [0.0, 0.0, 0.0, 0.0]})
    assert worst_outputs(zeros, 2)["idx"].tolist() == [3, 1]
    with pytest.raises(DetoxInputError, match="at least 1"):
        worst_outputs(frame, 0)


def test_groups_cover_exactly_the_worst_rows_and_separate_the_two_kinds():
    frame = score_frame(80)
    worst = worst_outputs(frame, 40)
    result = group_failures(worst, two_kinds(worst))
    assert sorted(result.members["idx"]) == sorted(worst["idx"])
    assert result.groups["size"].sum() == 40 and result.groups["share"].sum() == pytest.approx(1.0)
    assert result.k == 2 and result.silhouettes[2] == max(result.silhouettes.values())
    # Each group is one kind, and says which axis pulls its J down.
    kinds = result.members.groupby("group")["sim"].apply(lambda s: frozenset(s < 0.5))
    assert all(len(k) == 1 for k in kinds)
    assert sorted(result.groups["limiting"]) == ["sim", "sta"]
    for g in result.groups.itertuples():
        part = result.members[result.members["group"] == g.group]
        assert g.j == pytest.approx(part["j"].mean()) and g.size == len(part)


def test_representative_examples_belong_to_their_group_and_are_closest_to_its_centre():
    frame = score_frame(60)
    result = group_failures(frame, two_kinds(frame))
    for g, examples in result.examples.items():
        members = result.members[result.members["group"] == g]
        assert len(examples) == 3 and set(examples["idx"]) <= set(members["idx"])
        assert examples["distance"].tolist() == sorted(members["distance"])[:3]
        assert {"input", "output", "j"} <= set(examples.columns)


def test_grouping_is_deterministic_and_ignores_row_order():
    frame = score_frame(50, seed=3)
    features = np.random.default_rng(7).normal(size=(50, 6))  # no structure: the hardest case for stability
    first, again = group_failures(frame, features), group_failures(frame, features)
    assert first.k == again.k and first.members["group"].tolist() == again.members["group"].tolist()
    pd.testing.assert_frame_equal(first.groups, again.groups)
    order = np.random.default_rng(0).permutation(50)
    shuffled = group_failures(frame.iloc[order], features[order])
    by_idx = lambda r: dict(zip(r.members["idx"], r.members["group"]))  # noqa: E731
    assert shuffled.k == first.k and by_idx(shuffled) == by_idx(first)


def test_a_frame_smaller_than_asked_still_groups():
    frame = score_frame(4)
    result = group_failures(worst_outputs(frame, 60), two_kinds(frame), k=8)
    assert len(result.members) == 4 and result.groups["size"].sum() == 4
    assert result.k <= 4
    one = group_failures(frame.head(1), two_kinds(frame.head(1)))
    assert one.k == 1 and one.groups["size"].tolist() == [1] and len(one.examples[1]) == 1


def test_user_set_k_and_bad_inputs():
    frame = score_frame(30)
    assert group_failures(frame, two_kinds(frame), k=3).groups["size"].sum() == 30
    assert len(group_failures(frame, two_kinds(frame), k=3).groups) == 3
    with pytest.raises(DetoxInputError, match="one feature row per output"):
        group_failures(frame, np.ones((3, 2)))
    with pytest.raises(DetoxInputError, match="no scored outputs"):
        group_failures(frame.head(0), np.ones((0, 2)))
    with pytest.raises(DetoxInputError, match="at least 1"):
        group_failures(frame, two_kinds(frame), k=0)


def test_pair_features_and_limiting_axis():
    x, y = np.eye(2), np.array([[1.0, 0.0], [1.0, 0.0]])
    assert pair_features(x, y).tolist() == [[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, -1.0]]
    with pytest.raises(DetoxInputError):
        pair_features(x, y[:1])
    assert limiting_axis(pd.Series({"sta": 0.9, "sim": 0.2, "fl": np.nan, "j": 0.0})) == "sim"
    assert limiting_axis(pd.Series({"j": 0.1})) == ""
    assert choose_k(np.ones((5, 2)))[0] == 1  # identical rows cannot be split


def test_system_failures_embeds_inputs_and_outputs_once():
    frame = score_frame(20)
    seen: list[list[str]] = []

    def embed(texts, progress=None):
        seen.append(list(texts))
        # Outputs of the SIM half point one way, the STA half the other; inputs all alike.
        return np.array([[1.0, 0.0] if t.startswith("input") else
                         ([0.0, 1.0] if int(t.split()[1]) < 10 else [1.0, 1.0]) for t in texts])

    result = system_failures(frame, 10, embed=embed)
    worst = worst_outputs(frame, 10)
    assert seen == [[*worst["input"], *worst["output"]]]
    assert sorted(result.members["idx"]) == sorted(worst["idx"])


def test_several_languages_are_grouped_by_meaning_not_by_language():
    # Two failure kinds (meaning lost / still toxic) in two languages: each language adds its
    # own large offset to every vector, as multilingual embeddings do.
    frame = score_frame(40).assign(lang=["ru", "de"] * 20)
    offset = {"ru": np.array([0.0, 0.0, 4.0, 0.0]), "de": np.array([0.0, 0.0, 0.0, 4.0])}
    kind = {True: np.array([1.0, 0.0, 0.0, 0.0]), False: np.array([0.0, 1.0, 0.0, 0.0])}
    jitter = np.random.default_rng(2)

    def embed(texts, progress=None):
        row = frame.set_index(frame["input"]).to_dict("index") | frame.set_index(frame["output"]).to_dict("index")
        return np.stack([offset[row[t]["lang"]] + (kind[bool(row[t]["sim"] < 0.5)] if t.startswith("output")
                                                   else 0) + jitter.normal(0, 0.05, 4) for t in texts])

    result = system_failures(frame, 40, embed=embed)
    assert result.centred and result.k == 2
    kinds = result.members.groupby("group")["sim"].apply(lambda s: frozenset(s < 0.5))
    assert all(len(k) == 1 for k in kinds)  # each group one kind, both languages in it
    assert all(part["lang"].nunique() == 2 for _, part in result.members.groupby("group"))


def test_distinct_kinds_are_kinds_and_overlapping_or_stray_groups_are_not():
    frame = score_frame(80)
    worst = worst_outputs(frame, 40)
    assert group_failures(worst, two_kinds(worst)).no_kinds_reason() is None  # two clear kinds
    # One cloud of outputs (the RUSSE case: five groups, silhouette 0.03): no kinds, whatever k.
    cloud = np.random.default_rng(3).normal(0, 1, (40, 16))
    for k in (None, 5):
        result = group_failures(worst, cloud, k)
        assert result.silhouette < 0.10
        assert "silhouette" in result.no_kinds_reason()
    # One kind and two stray outputs: the stray ones are no kind of failure.
    stray = np.vstack([np.random.default_rng(4).normal(0, 0.3, (38, 3)), [[40.0, 0, 0], [0, 40.0, 0]]])
    result = group_failures(worst, stray, 3)
    assert sorted(result.groups["size"]) == [1, 1, 38] and result.kinds() == 1
    assert "stray" in result.no_kinds_reason()
