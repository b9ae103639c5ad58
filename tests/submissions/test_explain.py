"""Why J is low: the limiting axis, its sentence, and the flags of a rewrite."""

from __future__ import annotations

import numpy as np
import pandas as pd

from detox_core.metrics.embedded.preset import EmbeddedPreset
from detox_core.submissions.explain import (FLAGS, RELIABLE_AUC, RELIABILITY_HELP, axis_agreement, explain_frame,
                                            explain_j, flags, limiting_factor)

LEXICON = frozenset({"дебил", "хрень"})


def test_the_lowest_axis_limits_j_and_is_named():
    assert limiting_factor(0.9, 0.3, 0.8) == "sim"
    assert limiting_factor(0.2, 0.3, 0.8) == "sta"
    assert limiting_factor(np.nan, 0.5, 0.8) == "sim"  # a missing score does not count as the weakest
    assert explain_j(0.9, 0.4, 0.95, {"sim": 0.76}) == (
        "J 0.34: the meaning score (SIM 0.40) is the lowest axis and caps J (this preset's SIM agrees with "
        "people's \"same meaning or not\" at ROC-AUC 0.76).")
    assert explain_j(0.95, 0.92, 0.99).startswith("J 0.87: no axis scores low (the lowest is the meaning score, SIM 0.92)")


def test_a_weak_axis_is_named_as_measured_never_as_a_fact_about_the_text():
    """An axis that agrees with people under the threshold is the lowest score, not the reason."""
    weak = explain_j(0.99, 0.95, 0.39, {"sta": 0.756, "sim": 0.757, "fl": 0.556})
    assert weak.startswith("J 0.37: the fluency score (FL 0.39) is the lowest axis, but this preset's FL agrees "
                           "weakly with people (ROC-AUC 0.56")
    assert "caps J" not in weak and "does not read fluently" not in weak
    # Exactly at the threshold the axis is reliable enough to be named as the reason.
    assert "caps J" in explain_j(0.99, 0.95, 0.39, {"fl": RELIABLE_AUC})
    just_under = explain_j(0.99, 0.95, 0.39, {"fl": RELIABLE_AUC - 0.0015})
    assert "agrees weakly" in just_under
    # a figure that two decimals would round up to the bar keeps its third: never "0.70, under 0.70"
    assert f"ROC-AUC {RELIABLE_AUC - 0.0015:.3f} against" in just_under and f"under {RELIABLE_AUC:.2f}" in just_under
    # A preset whose agreement was never measured says so, and claims nothing.
    unmeasured = explain_j(0.99, 0.95, 0.39, axis_agreement("textdetox2025"))
    assert "has not been measured" in unmeasured and "caps J" not in unmeasured
    assert f"{RELIABLE_AUC:.2f}" in RELIABILITY_HELP  # the help mark states the threshold


def test_the_embedded_preset_explains_a_low_fl_by_its_measured_agreement():
    """Two near-identical polite rewrites with FL far apart under a preset whose FL agrees
    weakly with people: the lower one's FL is named as what the metric measured, with its
    figure, and neither rewrite is called disfluent."""
    assert axis_agreement("embedded") == EmbeddedPreset.axis_agreement
    assert EmbeddedPreset.axis_agreement["fl"] < RELIABLE_AUC <= EmbeddedPreset.axis_agreement["sta"]
    inputs = ["Ты дурак, заткнись"] * 2
    outputs = ["Ты не прав, помолчи, пожалуйста", "Ты ошибаешься, пожалуйста, помолчи"]
    frame = pd.DataFrame({"sta": [0.9, 0.9], "sim": [0.9, 0.9], "fl": [0.3, 0.95]})
    out = explain_frame(inputs, outputs, frame, preset="embedded")
    assert out["limiting"].iloc[0] == "fl"
    assert f"agrees weakly with people (ROC-AUC {EmbeddedPreset.axis_agreement['fl']:.2f}" in out["why"].iloc[0]
    assert "does not read fluently" not in " ".join(out["why"])


def test_flags_of_a_rewrite():
    assert flags("ты дебил", "ты дебил", LEXICON).labels() == [FLAGS["copy"], FLAGS["lexicon"]]
    assert flags("ты дебил", "  ", LEXICON).labels() == [FLAGS["empty"]]
    assert flags("ну и погода", "ну и хрень", LEXICON).labels() == [FLAGS["more_toxic"], FLAGS["lexicon"]]
    # With classifier scores, a lower P(neutral) is "more toxic" too; an added lexicon word still is,
    # whatever P(neutral) says (the Tatar rewrite adding «сволочь» at P(neutral) 0.42 against 0.00).
    assert flags("ну и погода", "ну и хрень", LEXICON, sta_output=0.9, sta_input=0.92).more_toxic
    assert not flags("ну и погода", "ну и ладно", LEXICON, sta_output=0.9, sta_input=0.92).more_toxic
    assert flags("ну и погода", "ну и ладно", LEXICON, sta_output=0.5, sta_input=0.9).more_toxic
    assert flags("Ты ДЕБИЛ!", "ты дебил", LEXICON).copy  # case and punctuation do not make a rewrite


def test_explain_frame_row_by_row():
    frame = pd.DataFrame({"sta": [0.1, 0.95], "sim": [0.9, 0.3], "fl": [0.9, 0.9]}, index=[10, 11])
    out = explain_frame(["ты дебил", "вот хрень"], ["ты дебил", "вот"], frame, LEXICON)
    assert list(out.index) == [10, 11]
    assert out["limiting"].tolist() == ["sta", "sim"]
    assert "non-toxicity score" in out.loc[10, "why"] and "meaning score" in out.loc[11, "why"]
    assert out.loc[10, "flags"] == f"{FLAGS['copy']}, {FLAGS['lexicon']}" and out.loc[11, "flags"] == ""


def test_a_figure_measured_on_russian_is_not_claimed_for_another_language():
    """The per-axis figures come from RUSSE-2022's Russian judgements: a Tatar or English
    pair's low axis is named, with no Russian ROC-AUC attached to it."""
    assert axis_agreement("embedded", "ru") == axis_agreement("embedded") != {}
    assert axis_agreement("embedded", "") == axis_agreement("embedded")  # a stored RUSSE-2022 row has no language
    assert axis_agreement("embedded", "tt") == {} and axis_agreement("embedded", "en") == {}
    frame = pd.DataFrame({"sta": [0.3, 0.3], "sim": [0.9, 0.9], "fl": [1.0, 1.0]})
    out = explain_frame(["a b", "a b"], ["a", "a"], frame, preset="embedded", langs=["ru", "tt"])
    assert "agrees weakly" not in out["why"][1] and "ROC-AUC" not in out["why"][1]
    assert "has not been measured" in out["why"][1]
    assert "ROC-AUC" in out["why"][0]  # Russian keeps its measured figure


def test_an_output_in_another_language_is_flagged_by_the_pairs_language():
    """English rewrites of German and Russian inputs are flagged (by lingua for German, by
    script for Russian), as Live scoring finds them; a German rewrite of a German input and a
    pair of no known language are not."""
    inputs = ["Halt die Fresse, du Idiot, niemand will das hören.", "Du bist ein Idiot und hast keine Ahnung davon.",
              "ты дебил и ничего не понимаешь", "ты дебил и ничего не понимаешь"]
    outputs = ["Please be quiet, nobody wants to hear this.", "Du hast davon leider keine Ahnung.",
               "you do not understand anything at all", "ты ничего не понимаешь"]
    frame = pd.DataFrame({"sta": [0.9] * 4, "sim": [0.8] * 4, "fl": [0.9] * 4})
    out = explain_frame(inputs, outputs, frame, langs=["de", "de", "ru", "ru"])
    assert [FLAGS["language"] in f for f in out["flags"]] == [True, False, True, False], out["flags"].tolist()
    one = explain_frame(inputs[2:], outputs[2:], frame.iloc[2:], language="ru")
    assert [FLAGS["language"] in f for f in one["flags"]] == [True, False]
    unknown = explain_frame(inputs[2:], outputs[2:], frame.iloc[2:])
    assert not unknown["flags"].str.contains(FLAGS["language"]).any()
