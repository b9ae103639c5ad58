"""LLM-judge labels read as judgements: the human columns, empty answers as NaN, pairs
joined by id, agreement between judges, and a judge against a metric."""

from __future__ import annotations

import math

import numpy as np
import pytest

from detox_core.analysis.meta_eval import meta_eval
from detox_core.config import SHARED_MIRRORS
from detox_core.data.judge_labels import (add_judge_columns, cohen_kappa, judge_agreement_by_language,
                                          judge_agreement_table, judge_columns, load_any_judgements,
                                          load_hub_human_judgements, load_judges, load_llm_judgements, load_pairs)
from detox_core.errors import DetoxInputError

PAIRS = ("id\tsystem\tindex\tlang\ttoxic_sentence\tneutral_sentence\n"
         "a_1_en\ta\t1\ten\tyou idiot\tyou are wrong\n"
         "a_2_ar\ta\t2\tar\tأنت غبي\tأنت مخطئ\n"
         "b_1_en\tb\t1\ten\tyou idiot\tyou idiot\n")
JUDGE = ("id\tcontent_score\ttoxic_pairwise_score\ttoxic_fluency\tneutral_fluency\tfluency_score\n"
         "a_1_en\t1\t1.0\t0.5\t1.0\t1\n"
         "a_2_ar\t\t1.0\t1.0\t1.0\t1\n"
         "b_1_en\t1\t0.5\t0.5\t0.5\t1\n")


def pairs():
    return load_pairs(PAIRS.encode(), name="pairs.tsv")


def test_a_judge_reads_as_judgements_with_empty_answers_as_missing():
    frame = load_llm_judgements(JUDGE.encode(), pairs=pairs(), name="gpt.tsv")
    assert frame["judge"].unique().tolist() == ["gpt"]
    assert frame["participant_name"].tolist() == ["a", "a", "b"] and frame["lang"].tolist() == ["en", "ar", "en"]
    assert frame["non-toxicity"].tolist() == [1.0, 1.0, 0.5]
    assert frame["content"].iloc[0] == 1.0 and math.isnan(frame["content"].iloc[1])  # no answer, not a zero
    assert frame["J"].iloc[0] == 1.0 and math.isnan(frame["J"].iloc[1]) and frame["J"].iloc[2] == 0.5
    assert frame["neutral_fluency"].tolist() == [1.0, 1.0, 0.5]


def test_a_judge_without_fluency_has_no_j():
    judge = "id\tcontent_score\ttoxic_pairwise_score\na_1_en\t1\t1.0\n"
    frame = load_llm_judgements(judge.encode(), pairs=pairs(), name="judgelm.tsv")
    assert math.isnan(frame["fluency"].iloc[0]) and math.isnan(frame["J"].iloc[0])


@pytest.mark.parametrize("text, message", [
    ("id\tcontent_score\ttoxic_pairwise_score\na_1_en\t2\t1.0\n", "judge.tsv, line 2, column 'content_score': expected one of 0, 1, found '2'"),
    ("id\tcontent_score\ttoxic_pairwise_score\na_1_en\t1\tyes\n", "line 2, column 'toxic_pairwise_score': expected a number, found 'yes'"),
    ("id\tcontent_score\ttoxic_pairwise_score\nzz_9_en\t1\t1\n", "line 2, column 'id': id 'zz_9_en' is not in the pairs file"),
])
def test_values_a_judge_cannot_give_are_named(text, message):
    with pytest.raises(DetoxInputError) as err:
        load_llm_judgements(text.encode(), pairs=pairs(), name="judge.tsv")
    assert message in str(err.value)


def test_a_self_contained_judge_file_needs_no_pairs():
    text = ("participant_name\tidx\ttoxic_sentence\tneutral_sentence\tcontent_score\ttoxic_pairwise_score\t"
            "toxic_fluency\tneutral_fluency\tfluency_score\norzhan\t0\tты дебил\tты неправ\t1\t1.0\t1.0\t1.0\t1\n")
    frame = load_llm_judgements(text.encode(), name="llama.tsv")
    assert frame[["participant_name", "toxic_sentence", "J"]].values.tolist() == [["orzhan", "ты дебил", 1.0]]
    with pytest.raises(DetoxInputError, match="names its pairs by id: give the pairs file too"):
        load_llm_judgements(JUDGE.encode(), name="gpt.tsv")


def test_judges_agree_where_both_answered():
    other = JUDGE.replace("b_1_en\t1\t", "b_1_en\t0\t")
    judges = {"x": load_llm_judgements(JUDGE.encode(), pairs=pairs(), name="x.tsv"),
              "y": load_llm_judgements(other.encode(), pairs=pairs(), name="y.tsv")}
    table = judge_agreement_table(judges, "content")
    assert table.loc["x", "x"] == 1.0 and table.loc["x", "y"] == pytest.approx(0.5)  # a_2_ar unanswered: left out


MIRROR = SHARED_MIRRORS / "textdetox" / "textdetoxeval"


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no offline mirror of the TextDetox files beside the project")
def test_the_mirrors_five_judges_of_the_nine_language_sample():
    judges = load_judges(MIRROR / "llm_judgements", load_pairs(MIRROR / "pairs.tsv"))
    assert len(judges) == 5 and all(len(f) == 4320 for f in judges.values())
    assert all(f["lang"].nunique() == 9 and f["participant_name"].nunique() == 6 for f in judges.values())
    assert judges["judgelm_llama_31_8b_ckpt_ep2_merged"]["fluency"].isna().all()  # that judge gives no fluency
    # A judge put against another judge's labels as a metric, per language, like any metric.
    frame = judges["gpt-4.1-mini"].copy()
    frame["CLS-NEW"] = judges["llama_31_8b_tuned"]["non-toxicity"].to_numpy()
    table = meta_eval(frame[frame["lang"] == "en"], n_boot=50)
    row = table[(table["metric"] == "CLS-NEW") & (table["level"] == "sentence")].iloc[0]
    assert row["n"] == 480 and -1 <= row["spearman"] <= 1


# ---------------------------------------------------------------- the multilingual human-evaluation schema

# As pandas writes it (an unnamed index column first), with a reference and metric columns.
HUB_HUMAN = (",toxic_sentence,neutral_sentence,lang,toxic_fluency,neutral_fluency,fluency_score,content_score,"
             "toxic_pairwise_score,participant_name,neutral_sentence_gold,CLS_OLD_GEN,SIM-INPUT-GEN,XCOMET-LITE\n"
             "0,you idiot,you are wrong,en,1.0,1.0,1.0,1.0,1.0,a,you are mistaken,0.9,0.8,0.7\n"
             "1,أنت غبي,أنت مخطئ,ar,1.0,1.0,0.5,0.6666,1.0,a,,0.8,0.9,\n"
             "2,you idiot,you idiot,en,1.0,1.0,1.0,1.0,0.5,b,you are mistaken,0.1,1.0,0.9\n")


def test_the_multilingual_human_schema_loads_as_judgements():
    frame = load_hub_human_judgements(HUB_HUMAN.encode(), name="humaneval.csv")
    assert frame["lang"].tolist() == ["en", "ar", "en"] and frame["participant_name"].tolist() == ["a", "a", "b"]
    assert frame["non-toxicity"].tolist() == [1.0, 1.0, 0.5]
    assert frame["content"].iloc[1] == pytest.approx(0.6666)  # an aggregated label: any number in [0, 1]
    assert frame["J"].tolist() == pytest.approx([1.0, 0.5 * 0.6666, 0.5])
    assert frame["neutral_sentence_reference"].tolist() == ["you are mistaken", "", "you are mistaken"]
    assert frame["CLS_OLD_GEN"].tolist() == [0.9, 0.8, 0.1] and math.isnan(frame["XCOMET-LITE"].iloc[1])
    assert frame["line"].tolist() == [2, 3, 4] and "row" not in frame


def test_either_schema_is_told_by_its_header(real_data):
    assert load_any_judgements(HUB_HUMAN.encode(), name="h.csv")["lang"].nunique() == 2
    russe = load_any_judgements(real_data / "human_eval_test.csv")
    assert len(russe) == 2625 and "lang" not in russe
    with pytest.raises(DetoxInputError, match="line 1: expected the labels 'toxic_pairwise_score'"):
        load_any_judgements(b"toxic_sentence,neutral_sentence,content_score\na,b,1\n", name="x.csv")


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("0.6666,1.0,a", "1.5,1.0,a"), "h.csv, line 3, column 'content_score': expected a number in [0, 1], found '1.5'"),
    (lambda t: t.replace("0.6666,1.0,a", "yes,1.0,a"), "line 3, column 'content_score': expected a number, found 'yes'"),
    (lambda t: t.replace("2,you idiot,you idiot", "2,you idiot,"), "line 4, column 'neutral_sentence': neutral_sentence is empty"),
    (lambda t: t.replace(",0.1,1.0,0.9", ",0.1,inf,0.9"), "line 4, column 'SIM-INPUT-GEN': expected a finite number"),
    (lambda t: t.replace("participant_name", "team"), "missing column(s) 'participant_name' or 'system'"),
])
def test_a_bad_multilingual_file_is_named_by_line_and_column(edit, message):
    with pytest.raises(DetoxInputError) as err:
        load_any_judgements(edit(HUB_HUMAN).encode(), name="h.csv")
    assert message in str(err.value)


def test_judges_become_metric_columns_matched_by_id_or_text():
    gpt = load_llm_judgements(JUDGE.encode(), pairs=pairs(), name="gpt.tsv")
    nano = load_llm_judgements(JUDGE.replace("b_1_en\t1\t0.5", "b_1_en\t0\t0.0").encode(), pairs=pairs(), name="nano.tsv")
    frame = add_judge_columns(gpt, {"gpt": gpt, "nano": nano}, skip=["gpt"])
    assert judge_columns("nano")["sta"] == "nano (LLM):sta" and "gpt (LLM):sta" not in frame
    assert frame["nano (LLM):sta"].tolist() == [1.0, 1.0, 0.0] and frame["nano (LLM):sim"].tolist()[2] == 0.0
    # Human judgements of the same pairs (no ids): matched by system, input and output.
    human = load_hub_human_judgements(HUB_HUMAN.encode(), name="h.csv")
    joined = add_judge_columns(human, {"nano": nano})
    assert joined["nano (LLM):sta"].tolist() == [1.0, 1.0, 0.0]
    human.loc[1, "neutral_sentence"] = "أنت على خطأ"  # an output the judge did not see: no label, never a zero
    assert math.isnan(add_judge_columns(human, {"nano": nano})["nano (LLM):sta"].iloc[1])


def test_cohen_kappa_by_hand():
    # Observed agreement 3/4; chance 1/2 * 1/4 + 1/2 * 3/4 = 1/2; kappa = (3/4 - 1/2) / (1 - 1/2).
    assert cohen_kappa(np.array([1, 1, 0, 0]), np.array([1, 0, 0, 0])) == pytest.approx(0.5)
    assert cohen_kappa(np.array([1, 0]), np.array([1, 0])) == pytest.approx(1.0)
    assert math.isnan(cohen_kappa(np.array([1, 1]), np.array([1, 1])))  # chance agreement is certain


def test_judge_agreement_by_language():
    gpt = load_llm_judgements(JUDGE.encode(), pairs=pairs(), name="gpt.tsv")
    other = load_llm_judgements(JUDGE.replace("b_1_en\t1\t0.5", "b_1_en\t1\t1.0").encode(), pairs=pairs(), name="o.tsv")
    table = judge_agreement_by_language({"gpt": gpt, "other": other}, "non-toxicity").set_index("lang")
    assert table.index.tolist() == ["en", "ar", "all"]
    assert table.loc["en", "n"] == 2 and table.loc["en", "agreement"] == 0.5  # b_1_en: 0.5 against 1.0
    assert table.loc["ar", "agreement"] == 1.0 and table.loc["all", "n"] == 3
    assert table.loc["all", "agreement"] == pytest.approx(2 / 3)


def test_a_judge_prompted_otherwise_is_the_same_judge_and_never_the_default_metric():
    from detox_core.data.judge_labels import column_judge, default_metric, judge_model

    assert judge_model("gpt-4.1-mini_fewshot") == judge_model("gpt-4.1-mini_few_shot") == "gpt-4.1-mini"
    assert judge_model("gpt-4.1-nano") != judge_model("gpt-4.1-mini")
    assert column_judge("gpt-4.1-nano (LLM):sta") == "gpt-4.1-nano" and column_judge("CLS_NEW_GEN") is None
    judges = ["gpt-4.1-mini_fewshot (LLM):sta", "gpt-4.1-nano (LLM):sta", "llama_31_8b_tuned (LLM):sta"]
    # A judge's labels: never its own (another prompt of it), a metric that is no judge first.
    assert judges[default_metric(judges, "gpt-4.1-mini")] == "gpt-4.1-nano (LLM):sta"
    assert [*judges, "embedded:sta"][default_metric([*judges, "embedded:sta"], "gpt-4.1-mini")] == "embedded:sta"
    # People's judgements: the first metric, whatever it is.
    assert default_metric(judges, None) == 0
    # Nothing else to put against it: its own labels, which the page then says.
    assert default_metric(judges[:1], "gpt-4.1-mini") == 0
