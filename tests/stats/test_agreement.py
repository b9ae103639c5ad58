"""One ROC-AUC and one system-level bootstrap for every figure of agreement with people."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score

from detox_core.stats.agreement import paired_system_spearman, roc_auc, system_agreement, system_spearman_draws


def test_roc_auc_takes_the_positive_threshold_and_leaves_out_unlabelled_pairs():
    rng = np.random.default_rng(4)
    label = rng.choice([0.0, 0.5, 1.0], size=300)
    score = label * 0.3 + rng.random(300)
    assert roc_auc(score, label) == pytest.approx(roc_auc_score(label >= 0.5, score), abs=1e-12)
    assert roc_auc(score, label, positive_from=1) == pytest.approx(roc_auc_score(label >= 1, score), abs=1e-12)
    # A judge's missing label (NaN) is left out, not counted as a negative.
    holed = label.copy()
    holed[:50] = np.nan
    assert roc_auc(score, holed, positive_from=1) == pytest.approx(roc_auc_score(label[50:] >= 1, score[50:]),
                                                                   abs=1e-12)
    assert np.isnan(roc_auc(score, np.ones(300)))


def _paired_reference(by_system: dict[str, np.ndarray], human: dict[str, float], n_boot: int) -> np.ndarray:
    """The paired system bootstrap written out plainly: draw inputs, the same for every
    system; Spearman of the systems' mean scores against their human figure."""
    names = list(by_system)
    matrix = np.vstack([by_system[n] for n in names])
    rng = np.random.default_rng(0)
    idx = np.vstack([np.arange(matrix.shape[1]), rng.integers(0, matrix.shape[1], size=(n_boot, matrix.shape[1]))])
    means = np.stack([np.nanmean(matrix[:, row], axis=1) for row in idx])
    h = rankdata([human[n] for n in names])
    ranks = rankdata(means, axis=1)
    hc, rc = h - h.mean(), ranks - ranks.mean(axis=1, keepdims=True)
    return (rc @ hc) / (np.sqrt((rc ** 2).sum(axis=1)) * np.sqrt((hc ** 2).sum()))


def test_the_paired_system_spearman_draws_inputs_shared_by_every_system():
    rng = np.random.default_rng(1)
    human = {"a": 0.6, "b": 0.5, "c": 0.4, "d": 0.2, "e": 0.45}
    j = {name: np.clip(h + rng.normal(0, 0.2, 120), 0, 1) for name, h in human.items()}
    ours = paired_system_spearman(j, human, n_boot=300)
    assert ours.shape == (301,)
    np.testing.assert_allclose(ours, _paired_reference(j, human, 300), atol=1e-12)


def test_one_function_for_both_designs_with_the_same_means_on_the_observed_row():
    """The same rows read as a paired design (items given) or as independent samples per
    system: the observed Spearman is the same, only the resampling differs."""
    rng = np.random.default_rng(2)
    systems = np.repeat(["a", "b", "c", "d"], 50)
    items = np.tile(np.arange(50), 4)
    human = np.repeat([0.8, 0.6, 0.4, 0.2], 50) + rng.normal(0, 0.05, 200)
    metric = human + rng.normal(0, 0.1, 200)
    close = np.repeat([0.5, 0.49, 0.48, 0.47], 50) + rng.normal(0, 0.2, 200)
    paired = system_spearman_draws(close, human, systems, items, n_boot=200)
    unpaired = system_spearman_draws(close, human, systems, None, n_boot=200)
    assert paired[0] == unpaired[0]
    assert not np.array_equal(paired[1:], unpaired[1:])
    out = system_agreement(metric, human, systems, n_boot=200, items=items)
    assert out["n_systems"] == 4 and out["spearman"][0] == pytest.approx(1.0)
    assert out["ranking_accuracy"][0] == pytest.approx(1.0)
