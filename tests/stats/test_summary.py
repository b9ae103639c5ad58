"""One summary of scored pairs: means with 95% intervals, over languages for several, n/a where
a language has a single pair (an interval of no width would claim certainty)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.stats.summary import TOO_FEW, summarize


def _frame(values: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"lang": lang, "j": v, "sta": v} for lang, vs in values.items() for v in vs])


def test_one_pair_per_language_gives_the_mean_and_says_its_interval_cannot_be_estimated():
    summary = summarize(_frame({"en": [0.2], "de": [0.4], "zh": [0.9]}))
    j = summary.figures["j"]
    assert j.mean == pytest.approx(0.5) and np.isnan(j.low) and np.isnan(j.high) and j.note == TOO_FEW
    assert j.text() == "0.500 (interval n/a, too few pairs)"
    assert summary.averaged == "over 3 languages" and summary.languages == ["en", "de", "zh"]
    n, by_lang = summary.by_language["de"]
    assert n == 1 and by_lang["j"].note == TOO_FEW
    row = summary.row()
    assert row["j_interval"] == TOO_FEW and np.isnan(row["j_low"])


def test_several_languages_count_once_each_and_their_interval_contains_the_mean():
    frame = _frame({"en": [0.1, 0.2, 0.3, 0.2], "ru": [0.9, 0.8]})
    j = summarize(frame).figures["j"]
    assert j.mean == pytest.approx((0.2 + 0.85) / 2)  # not the mean over the six pairs
    assert j.low < j.mean < j.high and not j.note
    # a language with one pair makes the whole interval n/a, not narrower
    assert summarize(_frame({"en": [0.1, 0.2, 0.3], "ru": [0.9]})).figures["j"].note == TOO_FEW


def test_named_averages_only_when_every_language_of_the_group_is_scored():
    summary = summarize(_frame({"en": [0.2, 0.4], "de": [0.6, 0.8]}),
                        averages={"p": ("en", "de"), "np": ("en", "ja")})
    assert summary.averages["p"] == pytest.approx(0.5) and np.isnan(summary.averages["np"])


def test_unscored_pairs_are_left_out_and_nothing_scored_is_nan():
    frame = pd.DataFrame({"lang": ["en"] * 3, "j": [0.2, np.nan, 0.4], "chrf": [np.nan] * 3})
    summary = summarize(frame)
    assert summary.figures["j"].mean == pytest.approx(0.3) and np.isnan(summary.figures["chrf"].mean)
    assert summary.figures["chrf"].text() == "n/a"
