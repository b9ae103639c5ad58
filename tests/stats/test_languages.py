"""Per-language scores and the ranking by the mean over languages (stratified bootstrap)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.stats.languages import language_mean, per_language, rank_by_language_mean
from detox_core.stats.bootstrap import bootstrap_ci, macro_weights, rank_systems, resample_indices, stratified_indices
from detox_core.errors import DetoxInputError


def scored(j_by_lang: dict[str, list[float]], chrf_missing: tuple[str, ...] = ()) -> pd.DataFrame:
    rows = [(lang, j) for lang, values in j_by_lang.items() for j in values]
    frame = pd.DataFrame(rows, columns=["lang", "j"])
    frame["chrf"] = np.where(frame["lang"].isin(chrf_missing), np.nan, 0.5)
    return frame


def test_stratified_resamples_stay_within_each_language():
    strata = np.array(["en"] * 5 + ["ar"] * 2 + ["en"] * 3)
    idx = stratified_indices(strata, n_boot=200, seed=3)
    assert idx.shape == (200, 10)
    assert (strata[idx] == strata).all()  # every position keeps a sentence of its own language
    assert set(np.unique(idx[:, 5])) == {5, 6}
    # One language: exactly the plain resample, so single-language results do not move.
    assert np.array_equal(stratified_indices(np.array(["ru"] * 7), 50, 1), resample_indices(7, 50, 1))


def test_the_mean_over_languages_counts_each_language_once():
    frame = scored({"en": [0.9] * 90, "ar": [0.1] * 10})
    assert frame["j"].mean() == pytest.approx(0.82)  # the mean over sentences
    mean, unscored = language_mean(frame)
    assert mean == pytest.approx(0.5) and unscored == []
    weights = macro_weights(frame["lang"].to_numpy())
    assert weights.sum() == pytest.approx(1.0)
    idx = stratified_indices(frame["lang"].to_numpy(), 300)
    point, low, high = bootstrap_ci(frame["j"].to_numpy(), 300, indices=idx, weights=weights)
    assert point == pytest.approx(0.5) and low == pytest.approx(0.5) and high == pytest.approx(0.5)
    table = per_language(frame)
    assert table[["lang", "n"]].values.tolist() == [["en", 90], ["ar", 10]]
    assert table["j"].tolist() == pytest.approx([0.9, 0.1])


def test_a_language_without_references_is_left_out_and_named_not_zero():
    frame = scored({"en": [0.5, 0.7], "am": [0.2, 0.4]}, chrf_missing=("am",))
    mean, unscored = language_mean(frame, "chrf")
    assert mean == pytest.approx(0.5) and unscored == ["am"]
    assert np.isnan(per_language(frame).set_index("lang").loc["am", "chrf"])


def test_systems_are_ranked_by_the_mean_over_languages():
    rng = np.random.default_rng(0)
    # A is excellent on the big English set and poor on the small Arabic one; B is even.
    a = scored({"en": list(np.clip(rng.normal(0.9, 0.05, 200), 0, 1)), "ar": list(np.clip(rng.normal(0.1, 0.05, 20), 0, 1))})
    b = scored({"en": list(np.clip(rng.normal(0.6, 0.05, 200), 0, 1)), "ar": list(np.clip(rng.normal(0.6, 0.05, 20), 0, 1))})
    assert a["j"].mean() > b["j"].mean()  # by sentences A would win
    ranking = rank_by_language_mean({"A": a, "B": b}, n_boot=300)
    table = ranking.table
    assert table["system"].tolist() == ["B", "A"]
    assert table.loc[0, "mean"] == pytest.approx(b.groupby("lang")["j"].mean().mean())
    assert ranking.overall.p_values.loc["A", "B"] < 0.05 and table["group"].tolist() == [1, 2]
    assert ranking.by_language["en"].table["system"].tolist() == ["A", "B"]  # per language, A leads English
    assert table.set_index("system").loc["A", "en"] == pytest.approx(a[a["lang"] == "en"]["j"].mean())
    # With one language, the stratified ranking is the plain one.
    ru = {n: scored({"ru": list(rng.random(30))}) for n in ("x", "y")}
    plain = rank_systems({n: f["j"].to_numpy() for n, f in ru.items()}, n_boot=200)
    strat = rank_by_language_mean(ru, n_boot=200).overall
    pd.testing.assert_frame_equal(plain.table, strat.table)


def test_mismatched_inputs_are_refused():
    with pytest.raises(DetoxInputError, match="B does not answer the same inputs as A"):
        rank_by_language_mean({"A": scored({"en": [0.1, 0.2]}), "B": scored({"ar": [0.1, 0.2]})})


# ------------------------------------------------------------------ boards: partial submissions apart, n/a languages


def submission(j_by_lang: dict[str, list[float]]) -> pd.DataFrame:
    """A stored submission's rows: the inputs are numbered per language so systems pair up."""
    rows = [(lang, f"{lang}-{i}", j) for lang, values in j_by_lang.items() for i, j in enumerate(values)]
    return pd.DataFrame(rows, columns=["lang", "input", "j"])


def test_board_ranks_complete_submissions_by_the_mean_over_languages_and_lists_partial_ones_apart():
    from detox_core.stats.languages import language_board

    # en has 12 sentences, ar 4: the mean over languages is not the mean over sentences.
    full_a = submission({"en": [0.9] * 12, "ar": [0.1, 0.2, 0.2, 0.1]})  # (0.9 + 0.15) / 2 = 0.525; sentences 0.7125
    full_b = submission({"en": [0.6] * 12, "ar": [0.6] * 4})  # 0.6 either way
    part = submission({"en": [1.0] * 12})  # answers English only
    board = language_board({"A": full_a, "B": full_b, "P": part}, ["en", "ar"], n_boot=200)
    t = board.table.set_index("system")
    assert t.loc["A", "mean"] == pytest.approx(0.525) and full_a["j"].mean() == pytest.approx(0.7125)
    assert board.table["system"].tolist() == ["B", "A", "P"]  # ranked ones, then the partial one
    assert t.loc["B", "rank_low"] == 1 and t.loc["A", "rank_low"] == 2 and t.loc["A", "group"] == 2
    assert not t.loc["P", "complete"] and np.isnan(t.loc["P", "rank_low"]) and np.isnan(t.loc["P", "group"])
    assert t.loc["P", "coverage"] == "1 of 2 (no ar)" and t.loc["P", "mean_over"] == "1 of 2: en"
    assert t.loc["P", "mean"] == pytest.approx(1.0) and np.isnan(t.loc["P", "ar"])  # not answered: no value, not 0
    assert t.loc["A", "coverage"] == "all 2" and t.loc["A", "mean_over"] == "all 2" and t.loc["A", "en"] == pytest.approx(0.9)
    assert board.p_values.loc["A", "B"] < 0.05
    # Each language ranked on its own, the partial one included where it answers.
    en = board.by_language["en"]
    assert en["system"].tolist() == ["P", "A", "B"] and en["n"].tolist() == [12, 12, 12]
    assert en["group"].tolist() == [1, 2, 3]
    assert board.by_language["ar"]["system"].tolist() == ["B", "A"]


def test_board_says_which_languages_have_no_scores_instead_of_counting_zero():
    from detox_core.stats.languages import language_board

    a = submission({"en": [0.8, 0.6], "am": [np.nan, np.nan]})
    b = submission({"en": [0.4, 0.2], "am": [np.nan, np.nan]})
    board = language_board({"A": a, "B": b}, ["en", "am"], n_boot=100)
    assert board.unscored == ["am"]
    t = board.table.set_index("system")
    assert t.loc["A", "mean"] == pytest.approx(0.7)  # over English only, not (0.7 + 0) / 2
    assert t.loc["A", "mean_over"] == "1 of 2: en" and np.isnan(t.loc["A", "am"]) and "am" not in board.by_language
    assert t.loc["A", "complete"]  # answered, only not scorable
    # No language scorable at all: nothing ranked, every mean n/a.
    none = language_board({"A": a[a["lang"] == "am"], "B": b[b["lang"] == "am"]}, ["am"], n_boot=50)
    assert none.unscored == ["am"] and none.table["mean"].isna().all() and none.p_values is None


def test_the_official_averages_need_every_one_of_their_languages():
    from detox_core.stats.languages import language_board

    a = submission({"en": [0.8, 0.6], "ar": [0.2, 0.2], "fr": [np.nan, np.nan]})
    p = submission({"en": [1.0, 1.0]})
    board = language_board({"A": a, "P": p}, ["en"], n_boot=50,
                           averages={"avg_p": ("en", "ar"), "avg_np": ("fr",), "avg": ("en", "ar", "fr")})
    t = board.table.set_index("system")
    # Over its languages whichever are picked (here only English is): (0.7 + 0.2) / 2.
    assert t.loc["A", "avg_p"] == pytest.approx(0.45) and t.loc["A", "mean"] == pytest.approx(0.7)
    assert np.isnan(t.loc["A", "avg_np"]) and np.isnan(t.loc["A", "avg"])  # French not scored: n/a, not 0.45 nor 0.3
    assert np.isnan(t.loc["P", "avg_p"])  # Arabic not answered


def _ru_only(j: float, n: int = 6) -> pd.DataFrame:
    """A submission's stored rows under a preset that covers Russian only: ru rows alone."""
    return pd.DataFrame({"lang": ["ru"] * n, "input": [f"x{k}" for k in range(n)], "j": [j] * n})


def test_what_a_file_answers_is_kept_apart_from_what_the_preset_scored():
    from detox_core.stats.languages import language_board, mean_scope

    languages = ("en", "ru", "uk")
    scores = {"whole.tsv": _ru_only(0.6), "whole2.tsv": _ru_only(0.4), "two.tsv": _ru_only(0.5)}
    answered = {"whole.tsv": ("en", "ru", "uk"), "whole2.tsv": ("en", "ru", "uk"), "two.tsv": ("en", "ru")}
    board = language_board(scores, languages, "j", n_boot=100, answered=answered)
    t = board.table.set_index("system")
    # Complete = answers every language, whatever the preset covers; the 2-language file is partial.
    assert t.loc["whole.tsv", "complete"] and t.loc["whole2.tsv", "complete"] and not t.loc["two.tsv", "complete"]
    assert t.loc["whole.tsv", "coverage"] == "all 3" and t.loc["two.tsv", "coverage"].startswith("2 of 3")
    # The mean is over the one scored language, and says so; the uncovered ones are n/a, not "no references".
    assert t.loc["whole.tsv", "mean_over"] == "1 of 3: ru" and t.loc["whole.tsv", "mean"] == pytest.approx(0.6)
    assert board.uncovered == ["en", "uk"] and board.unscored == []
    # Only the complete ones are ranked (against each other, on the same subset); the partial one is not.
    assert t.loc["whole.tsv", "rank_low"] == 1 and np.isnan(t.loc["two.tsv", "rank_low"])
    assert np.isnan(t.loc["whole.tsv", "en"])
    # Without what was answered (older stored submissions), the rows stand in: the old reading.
    old = language_board(scores, languages, "j", n_boot=100).table.set_index("system")
    assert old.loc["whole.tsv", "coverage"] == "all 1"
    assert mean_scope(["en", "ru", "uk"], languages) == "all 3" and mean_scope([], languages) == "none"
