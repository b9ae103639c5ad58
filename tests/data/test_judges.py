"""LLM-judge labels read as judgements: the human columns, empty answers as NaN, pairs
joined by id, agreement between judges, and a judge against a metric."""

from __future__ import annotations

import math

import pytest

from detox_core.analysis.meta_eval import meta_eval
from detox_core.config import SHARED_MIRRORS
from detox_core.data.judges import judge_agreement_table, load_judges, load_llm_judgements, load_pairs
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
