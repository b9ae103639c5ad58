"""Bootstrap intervals, paired significance and rank ranges."""

from __future__ import annotations

import numpy as np
import pytest

from detox_core.stats.bootstrap import bootstrap_ci, paired_bootstrap_p, rank_systems, resample_indices


def test_bootstrap_ci_brackets_the_mean_and_shrinks_with_n():
    rng = np.random.default_rng(1)
    small = rng.random(50)
    large = rng.random(5000)
    m, lo, hi = bootstrap_ci(small)
    assert lo < m < hi and m == pytest.approx(small.mean())
    _, lo2, hi2 = bootstrap_ci(large)
    assert hi2 - lo2 < hi - lo
    # For the mean of uniform(0,1) the 95% interval half-width is about 1.96 * 0.2887 / sqrt(n).
    assert (hi2 - lo2) / 2 == pytest.approx(1.96 * 0.2887 / np.sqrt(5000), rel=0.15)


def test_paired_bootstrap_detects_a_real_difference_and_not_noise():
    rng = np.random.default_rng(2)
    base = rng.random(800)
    better = np.clip(base + 0.05, 0, 1)
    assert paired_bootstrap_p(better, base) < 0.01
    noise = base + rng.normal(0, 0.001, size=800) * rng.choice([-1, 1], size=800)
    assert paired_bootstrap_p(noise, base) > 0.05
    assert paired_bootstrap_p(base, base) == 1.0
    with pytest.raises(ValueError):
        paired_bootstrap_p(base, base[:10])


def test_rank_systems_groups_ties():
    rng = np.random.default_rng(3)
    base = rng.random(875)
    systems = {
        "A": np.clip(base + 0.10, 0, 1),
        "B": np.clip(base + 0.10 + rng.normal(0, 0.002, 875), 0, 1),  # tied with A
        "C": base,
    }
    ranking = rank_systems(systems)
    t = ranking.table.set_index("system")
    assert t.loc["A", "group"] == t.loc["B", "group"] == 1 and t.loc["C", "group"] == 2
    assert (t.loc["A", "rank_low"], t.loc["A", "rank_high"]) == (1, 2)
    assert (t.loc["C", "rank_low"], t.loc["C", "rank_high"]) == (3, 3)
    assert ranking.p_values.loc["A", "C"] < 0.05 and ranking.p_values.loc["A", "B"] > 0.05
    assert ranking.p_values.loc["A", "C"] == ranking.p_values.loc["C", "A"]


def test_agreement_matches_scipy_and_sklearn():
    from scipy.stats import pearsonr, spearmanr
    from sklearn.metrics import roc_auc_score

    from detox_core.stats.agreement import agreement

    rng = np.random.default_rng(4)
    human = rng.integers(0, 2, 300).astype(float)
    metric = human * 0.3 + rng.random(300)
    a = agreement(metric, human, n_boot=300)
    assert a.n == 300
    assert a.spearman[0] == pytest.approx(spearmanr(metric, human).statistic)
    assert a.pearson[0] == pytest.approx(pearsonr(metric, human).statistic)
    assert a.roc_auc[0] == pytest.approx(roc_auc_score(human, metric))
    for lo_hi in (a.spearman, a.pearson, a.roc_auc):
        assert lo_hi[1] < lo_hi[0] < lo_hi[2]
    # NaNs are dropped, constant labels give NaN rather than an error.
    metric[0] = np.nan
    assert agreement(metric, human, n_boot=50).n == 299
    assert np.isnan(agreement(metric, np.ones(300), n_boot=50).roc_auc[0])


def test_system_agreement():
    from detox_core.stats.agreement import system_agreement

    rng = np.random.default_rng(5)
    systems = np.repeat(["a", "b", "c", "d"], 200)
    quality = np.repeat([0.2, 0.4, 0.6, 0.8], 200)
    human = (rng.random(800) < quality).astype(float)
    metric = quality + rng.normal(0, 0.05, 800)
    out = system_agreement(metric, human, systems, n_boot=200)
    assert out["n_systems"] == 4
    assert out["spearman"][0] == pytest.approx(1.0) and out["ranking_accuracy"][0] == pytest.approx(1.0)
    reversed_metric = -metric
    assert system_agreement(reversed_metric, human, systems, n_boot=50)["ranking_accuracy"][0] == pytest.approx(0.0)


@pytest.mark.parametrize("distinct", [1, 2, 3, 17, None])
def test_resample_ranks_equal_scipy_rankdata_ties_included(distinct):
    from scipy.stats import rankdata

    from detox_core.stats.agreement import resample_ranks

    rng = np.random.default_rng(distinct or 0)
    values = rng.normal(size=400) if distinct is None else rng.integers(0, distinct, 400).astype(float) / 2
    idx = resample_indices(values.size, 300, seed=5)
    assert np.array_equal(resample_ranks(values, idx), rankdata(values[idx], axis=1))


def test_roc_auc_is_sklearn_s_with_ties_and_the_human_ranks_are_shared_between_metrics():
    from sklearn.metrics import roc_auc_score

    from detox_core.stats import agreement as stats

    rng = np.random.default_rng(3)
    human = rng.choice([0.0, 0.5, 1.0, 0.25], size=400)
    for metric in (rng.random(400), np.round(rng.random(400), 1), human * 0.5 + rng.random(400) * 0.1):
        assert stats.roc_auc(metric, human) == pytest.approx(roc_auc_score(human >= 0.5, metric), abs=1e-12)
    assert np.isnan(stats.roc_auc(rng.random(10), np.ones(10)))
    # The same labels against two metrics: resampled ranks computed once, intervals unchanged.
    stats._HUMAN_RANKS.clear()
    a = stats.agreement(rng.random(400), human, n_boot=200, seed=1)
    b = stats.agreement(rng.random(400), human, n_boot=200, seed=1)
    assert len(stats._HUMAN_RANKS) == 1
    stats._HUMAN_RANKS.clear()
    again = stats.agreement(np.arange(400, dtype=float), human, n_boot=200, seed=1)
    fresh = stats.agreement(np.arange(400, dtype=float), human, n_boot=200, seed=1)
    assert again == fresh and a.n == b.n == 400


def test_the_paired_p_value_is_never_zero():
    rng = np.random.default_rng(3)
    base = rng.random(300)
    p = paired_bootstrap_p(base + 1.0, base, n_boot=1000)  # better on every sentence
    assert p == pytest.approx(2 / 1001)


def _calibrated(p_values: list[float]) -> bool:
    """p-values of 600 comparisons under the null are uniform on both tails: about 5% below
    0.05 (13-50 of 600) and about half above 0.5 (255-345 of 600), binomial 99.9% ranges.
    A one-sided p-value (the share of resamples on the other side of zero, not doubled)
    rejects at 5% about as often but never exceeds 0.5: the upper tail tells them apart."""
    p = np.asarray(p_values)
    return 13 <= int(np.sum(p < 0.05)) <= 50 and 255 <= int(np.sum(p > 0.5)) <= 345


def test_under_the_null_the_p_value_is_two_sided_and_uniform():
    """Two systems whose scores come from the same distribution: p < 0.05 for about 5% of 600
    independent comparisons, and p > 0.5 for about half (a two-sided p-value is uniform on
    (0, 1]). The one-sided value of the same resamples, computed here, fails that check; and
    the p-value does not depend on which system is named first (a one-sided test in a fixed
    direction, also uniform, would give 1 - p with the two swapped)."""
    rng = np.random.default_rng(11)
    two_sided, one_sided = [], []
    for i in range(600):
        a, b = rng.normal(0.5, 0.2, 150), rng.normal(0.5, 0.2, 150)
        seed = int(rng.integers(1 << 30))
        p = paired_bootstrap_p(a, b, n_boot=1000, seed=seed)
        two_sided.append(p)
        diff = a - b
        resampled = diff[resample_indices(diff.size, 1000, seed)].mean(axis=1)
        other_side = np.sum(resampled <= 0) if diff.mean() > 0 else np.sum(resampled >= 0)
        one_sided.append((other_side + 1) / (resampled.size + 1))
        if i < 20:
            assert paired_bootstrap_p(b, a, n_boot=1000, seed=seed) == pytest.approx(p)
    assert _calibrated(two_sided), (sum(p < 0.05 for p in two_sided), sum(p > 0.5 for p in two_sided))
    assert not _calibrated(one_sided)  # the check would catch the doubling left out
