"""Agreement language by language (values worked out by hand), and a preset's scores of
some judged rows only, kept on disk."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from detox_core.analysis.meta_eval import ALL_LANGUAGES, per_language_agreement, preset_scores


def judged() -> pd.DataFrame:
    # English: the metric orders the four outputs as the judgements do (two ties in the
    # judgements); Arabic: the metric has no score at all.
    return pd.DataFrame({
        "lang": ["en", "en", "en", "en", "ar", "ar"],
        "participant_name": ["a", "a", "b", "b", "a", "b"],
        "toxic_sentence": ["t1", "t2", "t1", "t2", "t3", "t3"],
        "neutral_sentence": ["o1", "o2", "o3", "o4", "o5", "o6"],
        "non-toxicity": [0.0, 0.0, 1.0, 1.0, 1.0, 0.0],
        "metric": [0.1, 0.2, 0.3, 0.4, np.nan, np.nan],
    })


def test_per_language_agreement_by_hand():
    table = per_language_agreement(judged(), "sta", "metric", n_boot=50).set_index("lang")
    assert table.index.tolist() == ["en", "ar", ALL_LANGUAGES]
    en = table.loc["en"]
    assert en["n"] == 4
    # Spearman: Pearson of the ranks (1, 2, 3, 4) and (1.5, 1.5, 3.5, 3.5) = 4 / (2 * sqrt(5)).
    assert en["spearman"] == pytest.approx(4 / (2 * math.sqrt(5)))
    # Kendall tau-b: 4 concordant pairs, none discordant, 2 tied in the judgements: 4 / sqrt(6 * 4).
    assert en["kendall"] == pytest.approx(4 / math.sqrt(24))
    assert en["roc_auc"] == 1.0
    # System level: a (mean 0.15, judged 0) below b (0.35, judged 1): the same order.
    assert en["systems"] == 2 and en["system_spearman"] == pytest.approx(1.0)
    assert en["system_kendall"] == pytest.approx(1.0) and en["ranking_accuracy"] == 1.0
    # A language where the metric has no score: counted as missing, never as zero.
    assert table.loc["ar", "n"] == 0 and math.isnan(table.loc["ar", "spearman"])
    # All languages pooled: only the scored rows.
    assert table.loc[ALL_LANGUAGES, "n"] == 4 and table.loc[ALL_LANGUAGES, "kendall"] == pytest.approx(en["kendall"])


def test_one_language_has_no_pooled_row_and_no_lang_column_is_one_row():
    en = judged()[lambda f: f["lang"] == "en"]
    assert per_language_agreement(en, "sta", "metric", n_boot=10)["lang"].tolist() == ["en"]
    assert per_language_agreement(en.drop(columns="lang"), "sta", "metric", n_boot=10)["lang"].tolist() == [ALL_LANGUAGES]


def test_a_preset_scores_some_rows_and_keeps_them_on_disk(trained, tmp_path, monkeypatch):
    from detox_core.analysis import meta_eval

    frame = pd.DataFrame({"toxic_sentence": ["ты дебил", "you idiot", "вот хрень"],
                          "neutral_sentence": ["ты неправ", "you are wrong", "вот ерунда"],
                          "lang": ["ru", "en", "ru"]})
    russian = (frame["lang"] == "ru").to_numpy()
    assert preset_scores(frame, "embedded", rows=russian, cache_dir=tmp_path, cached_only=True) is None
    scores = preset_scores(frame, "embedded", rows=russian, cache_dir=tmp_path)
    assert len(scores) == 3 and scores.loc[[0, 2], "sta"].notna().all() and math.isnan(scores.loc[1, "sta"])
    assert len(list(tmp_path.glob("embedded-scores-*.pkl"))) == 1

    def no_scoring(*args, **kwargs):
        raise AssertionError("scored again")

    monkeypatch.setattr("detox_core.metrics.score_frame", no_scoring)
    monkeypatch.setattr(meta_eval, "_SCORES_MEMO", {})  # as after a restart
    again = preset_scores(frame, "embedded", rows=russian, cache_dir=tmp_path, cached_only=True)
    assert np.allclose(again.loc[[0, 2], "j"], scores.loc[[0, 2], "j"])
