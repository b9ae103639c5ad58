"""``benchmarks/bench_embedded_multilingual.py`` section 5 fits on the LLM judges' labels,
leaving systems out: a held-out system's scores must not depend on its own labels, and the
soft-label fit must learn what the labels say."""

from __future__ import annotations

import numpy as np

from tests.benchmarks import load_benchmark


def _bench():
    return load_benchmark("bench_embedded_multilingual")


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(600, 3))
    y = 1.0 / (1.0 + np.exp(-(2.0 * x[:, 0] - x[:, 1])))  # soft labels, as the judges' mean
    return x, y


def test_a_held_out_system_is_scored_without_its_own_labels():
    bench = _bench()
    x, y = _data()
    held = np.zeros(len(y), dtype=bool)
    held[:100] = True
    before = bench._soft_logistic(x, y, ~held, held)
    flipped = y.copy()
    flipped[held] = 1.0 - flipped[held]  # the held-out system's labels turned upside down
    flipped[5] = np.nan  # an unlabelled pair is left out, not an error
    after = bench._soft_logistic(x, flipped, ~held, held)
    np.testing.assert_allclose(before, after)
    # and its own labels would have changed the fit, had it seen them
    seen = bench._soft_logistic(x, flipped, np.ones(len(y), dtype=bool), held)
    assert np.abs(seen - before).max() > 0.05


def test_the_soft_label_fit_learns_the_labels():
    from scipy.stats import spearmanr

    bench = _bench()
    x, y = _data(1)
    train = np.arange(len(y)) >= 200
    p = bench._soft_logistic(x, y, train, ~train)
    assert p.min() >= 0.0 and p.max() <= 1.0
    assert spearmanr(p, y[~train]).statistic > 0.95
