"""Aggregation on simulated crowds with known worker accuracies, and agreement."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.annotation.aggregation import (
    DawidSkene, MajorityVote, control_accuracy, filter_workers, krippendorff_alpha, review_queue, worker_stats,
)


def simulate(n_tasks=300, overlap=5, seed=0):
    """Binary tasks; 12 workers with accuracies 0.6-0.95 and 4 spammers answering at random."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_tasks)
    workers = {f"good{k}": acc for k, acc in enumerate(np.linspace(0.6, 0.95, 12))}
    workers.update({f"spam{k}": 0.5 for k in range(4)})
    names = list(workers)
    rows = []
    for t in range(n_tasks):
        for w in rng.choice(names, size=overlap, replace=False):
            correct = rng.random() < workers[w]
            rows.append({"worker": w, "task": t, "label": int(truth[t] if correct else 1 - truth[t])})
    return pd.DataFrame(rows), pd.Series(truth)


def test_dawid_skene_recovers_labels_at_least_as_well_as_majority_vote():
    answers, truth = simulate()
    ds = DawidSkene().fit(answers)
    mv = MajorityVote(min_votes=1).fit(answers)
    acc_ds = (ds.labels_.sort_index().to_numpy() == truth.to_numpy()).mean()
    covered = mv.labels_.notna()
    acc_mv = (mv.labels_[covered].astype(int).to_numpy() == truth[covered.to_numpy()].to_numpy()).mean()
    assert acc_ds >= acc_mv and acc_ds > 0.85
    assert ds.confidence_.between(0, 1).all()


def test_dawid_skene_matches_crowd_kit_directly():
    from crowdkit.aggregation import DawidSkene as CK

    answers, _ = simulate(n_tasks=120, seed=1)
    ours = DawidSkene(n_iter=100).fit(answers).labels_.sort_index()
    theirs = CK(n_iter=100).fit(answers[["worker", "task", "label"]]).labels_.sort_index()
    assert (ours.to_numpy() == theirs.to_numpy()).all()


def test_majority_vote_needs_three_votes_by_hand():
    answers = pd.DataFrame({
        "worker": ["a", "b", "c", "d", "e", "a", "b", "c", "a", "b", "c", "d"],
        "task": [1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3],
        "label": [1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0],
    })
    mv = MajorityVote(min_votes=3).fit(answers)
    # Task 1: 3 vs 2 -> 1 (confidence 3/5); task 2: only 2 votes for the winner -> none;
    # task 3: a 2-2 tie -> none.
    assert mv.labels_[1] == 1 and mv.confidence_[1] == pytest.approx(0.6)
    assert pd.isna(mv.labels_[2]) and pd.isna(mv.labels_[3]) and mv.unlabelled_ == 2
    assert list(review_queue(mv.confidence_, 0.9)) == [1, 2, 3]


def test_control_accuracy_and_filtering():
    answers = pd.DataFrame({
        "worker": ["a", "a", "b", "b", "a", "b"],
        "task": ["c1", "c2", "c1", "c2", "t1", "t1"],
        "label": [1, 0, 0, 0, 1, 0],
        "golden": [1, 0, 1, 1, None, None],
    })
    acc = control_accuracy(answers)
    assert acc["a"] == 1.0 and acc["b"] == 0.0
    kept = filter_workers(answers, 0.5)
    assert list(kept["worker"]) == ["a"] and kept["golden"].isna().all()


def test_krippendorff_alpha_matches_the_package():
    import krippendorff

    answers = pd.DataFrame({
        "worker": ["a", "a", "a", "b", "b", "b", "c", "c"],
        "task": [1, 2, 3, 1, 2, 3, 1, 3],
        "label": [1.0, 0.5, 0.0, 1.0, 0.0, 0.0, 0.5, 0.0],
    })
    matrix = [[1.0, 0.5, 0.0], [1.0, 0.0, 0.0], [0.5, np.nan, 0.0]]
    assert krippendorff_alpha(answers, "ordinal") == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[0.0, 0.5, 1.0]))
    nominal = [[2, 1, 0], [2, 0, 0], [1, np.nan, 0]]  # codes of "0.0" < "0.5" < "1.0"
    assert krippendorff_alpha(answers, "nominal") == pytest.approx(
        krippendorff.alpha(reliability_data=nominal, level_of_measurement="nominal"))

    # Everyone gave the same answer everywhere: alpha is undefined, not an error.
    same = answers.assign(label=1.0)
    assert np.isnan(krippendorff_alpha(same, "ordinal")) and np.isnan(krippendorff_alpha(same, "nominal"))


def test_worker_stats():
    answers, truth = simulate(n_tasks=80, seed=2)
    answers["seconds"] = 3.0
    answers["golden"] = None
    labels = DawidSkene().fit(answers).labels_
    stats = worker_stats(answers, labels)
    assert stats["answers"].sum() == len(answers) and (stats["median_seconds"] == 3.0).all()
    good = stats.loc[[w for w in stats.index if w.startswith("good")], "agreement_with_aggregate"].mean()
    spam = stats.loc[[w for w in stats.index if w.startswith("spam")], "agreement_with_aggregate"].mean()
    assert good > spam
