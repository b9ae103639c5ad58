"""Which rewrite Live scoring may call the best: never a copy, a rewrite in another language
or an unrelated sentence, whatever their J (the people-written cases of every language)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from detox_core.embedded import meaning
from detox_core.submissions.best import REASONS, choose_best

CASES = pd.read_csv(Path(__file__).resolve().parent.parent / "embedded" / "data" / "judge_cases.tsv", sep="\t",
                    dtype=str, quoting=3, keep_default_na=False)


def test_a_copy_is_never_best_even_with_the_highest_j():
    choice = choose_best("You are an idiot!", ["you are an IDIOT", "You are wrong."], [0.9, 0.4], "en")
    assert choice.best == 1 and choice.excluded[0] == "copy"
    assert choice.reason(0) == REASONS["copy"]


def test_no_star_when_every_rewrite_has_j_zero_or_is_out():
    choice = choose_best("You are an idiot!", ["You are an idiot!", "Please go."], [0.8, 0.0], "en")
    assert choice.best is None and choice.excluded[0] == "copy" and choice.excluded.get(1) != "copy"


@pytest.mark.parametrize("lang", sorted(CASES["lang"].unique()))
def test_the_polite_rewrite_is_the_only_one_that_may_be_best(lang, embedded_models):
    if meaning.unavailable_reason():
        pytest.skip(f"the model of meaning does not run here: {meaning.unavailable_reason()}")
    for case in CASES[CASES["lang"] == lang].itertuples():
        candidates = [case.polite, case.toxic, case.unrelated, case.other_text]
        # J as a preset that cannot tell them apart would give: the copy and the unrelated sentence highest.
        choice = choose_best(case.toxic, candidates, [0.2, 0.9, 0.8, 0.7], lang)
        assert choice.best == 0, (lang, choice)
        assert sorted(choice.excluded) == [1, 2, 3] and choice.excluded[1] == "copy", (lang, choice)
        assert choice.excluded[2] == "unrelated", (lang, choice)
