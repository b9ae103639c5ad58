"""Why J is low: the limiting axis, its sentence, and the flags of a rewrite."""

from __future__ import annotations

import numpy as np
import pandas as pd

from detox_core.submissions.explain import FLAGS, explain_frame, explain_j, flags, limiting_factor

LEXICON = frozenset({"дебил", "хрень"})


def test_the_lowest_axis_limits_j_and_is_named():
    assert limiting_factor(0.9, 0.3, 0.8) == "sim"
    assert limiting_factor(0.2, 0.3, 0.8) == "sta"
    assert limiting_factor(np.nan, 0.5, 0.8) == "sim"  # a missing score does not count as the weakest
    assert explain_j(0.9, 0.4, 0.95) == "J 0.34 is held down by meaning: the rewrite drifts from the input (SIM 0.40)."
    assert explain_j(0.95, 0.92, 0.99).startswith("J 0.87: no axis is weak (lowest: SIM 0.92)")


def test_flags_of_a_rewrite():
    assert flags("ты дебил", "ты дебил", LEXICON).labels() == [FLAGS["copy"], FLAGS["lexicon"]]
    assert flags("ты дебил", "  ", LEXICON).labels() == [FLAGS["empty"]]
    assert flags("ну и погода", "ну и хрень", LEXICON).labels() == [FLAGS["more_toxic"], FLAGS["lexicon"]]
    # With classifier scores, "more toxic" compares P(neutral) instead of lexicon hits.
    assert not flags("ну и погода", "ну и хрень", LEXICON, sta_output=0.9, sta_input=0.92).more_toxic
    assert flags("ну и погода", "ну и ладно", LEXICON, sta_output=0.5, sta_input=0.9).more_toxic
    assert flags("Ты ДЕБИЛ!", "ты дебил", LEXICON).copy  # case and punctuation do not make a rewrite


def test_explain_frame_row_by_row():
    frame = pd.DataFrame({"sta": [0.1, 0.95], "sim": [0.9, 0.3], "fl": [0.9, 0.9]}, index=[10, 11])
    out = explain_frame(["ты дебил", "вот хрень"], ["ты дебил", "вот"], frame, LEXICON)
    assert list(out.index) == [10, 11]
    assert out["limiting"].tolist() == ["sta", "sim"]
    assert "toxicity" in out.loc[10, "why"] and "meaning" in out.loc[11, "why"]
    assert out.loc[10, "flags"] == f"{FLAGS['copy']}, {FLAGS['lexicon']}" and out.loc[11, "flags"] == ""
