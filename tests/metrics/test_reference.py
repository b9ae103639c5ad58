"""Reference metrics: BLEU as sacrebleu, ROUGE-L for every script, BERTScore as bert-score,
the RUSSE-2022 script's nltk corpus chrF, and every preset's frame carrying them."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu

from detox_core.metrics import bertscore, reference
from detox_core.metrics.chrf import nltk_corpus_chrf
from detox_core.metrics.reference import REFERENCE_METRICS, UnicodeTokenizer, sentence_bleu, sentence_rouge_l
from detox_core.models import ModelPool
from detox_core.vocab import REFERENCE_METRIC_COLUMNS, SCORE_COLUMNS

PAIRS = [
    ("какой человек это придумывает", ["Кто это придумывает?"]),
    ("в такой ситуации виноваты ребята", ["В такой ситуации виноваты из ростелекома", "виноваты ребята"]),
    ("совсем другое", ["ничего общего", "абсолютно", "совсем не то"]),
    ("", ["что-то"]),
    ("а", ["а"]),
]


def test_the_registry_is_the_vocabulary_s_reference_columns():
    assert tuple(REFERENCE_METRICS) == REFERENCE_METRIC_COLUMNS
    assert set(REFERENCE_METRIC_COLUMNS) <= set(SCORE_COLUMNS)


@pytest.mark.parametrize("hyp, refs", PAIRS)
def test_bleu_equals_sacrebleu_sentence_bleu_with_effective_order(hyp, refs):
    want = sacrebleu.sentence_bleu(hyp, refs, use_effective_order=True).score / 100
    ours = sentence_bleu([hyp], [refs])[0]
    assert ours == pytest.approx(want, abs=1e-12) and 0.0 <= ours <= 1.0


def test_bleu_uses_every_reference_at_once_and_is_nan_without_any():
    hyp = "кот сидит на ковре"
    both = sentence_bleu([hyp], [["кот сидит на полу", "собака лежит на ковре"]])[0]
    best_single = max(sentence_bleu([hyp], [["кот сидит на полу"]])[0], sentence_bleu([hyp], [["собака лежит на ковре"]])[0])
    assert both > best_single  # n-grams matched in either reference count: multi-reference BLEU
    assert math.isnan(sentence_bleu([hyp], [[]])[0]) and math.isnan(sentence_bleu([hyp], [["", ""]])[0])


SCRIPTS = [  # (output, reference, words in common / lengths)
    ("Привет, как твои дела сегодня", "привет как дела"),
    ("مرحبا كيف حالك اليوم", "مرحبا كيف حالك"),
    ("你好今天怎么样", "你好怎么样"),
]


@pytest.mark.parametrize("hyp, ref", SCRIPTS)
def test_rouge_score_default_tokenizer_drops_non_latin_text_and_ours_keeps_it(hyp, ref):
    from rouge_score.rouge_scorer import RougeScorer

    default = RougeScorer(["rougeL"])
    assert default.score(ref, hyp)["rougeL"].fmeasure == 0.0  # every token dropped: the motivation
    assert default._tokenizer.tokenize(hyp) == []
    assert UnicodeTokenizer().tokenize(hyp) != []
    assert sentence_rouge_l([hyp], [[ref]])[0] > 0.5


def test_rouge_l_values_on_crafted_pairs():
    tok = UnicodeTokenizer()
    assert tok.tokenize("Привет, МИР! 42") == ["привет", "мир", "42"]
    assert tok.tokenize("你好 world") == ["你", "好", "world"]
    assert tok.tokenize("हिंदी भाषा") == ["हिंदी", "भाषा"]  # combining vowel signs stay inside the word
    # LCS("привет как твои дела сегодня", "привет как дела") = 3: P = 3/5, R = 3/3, F = 0.75
    assert sentence_rouge_l(["Привет, как твои дела сегодня"], [["привет как дела"]])[0] == pytest.approx(0.75)
    # Arabic: LCS 3 of 4 and 3 -> F = 2 * 0.75 * 1 / 1.75
    assert sentence_rouge_l(["مرحبا كيف حالك اليوم"], [["مرحبا كيف حالك"]])[0] == pytest.approx(1.5 / 1.75)
    # Chinese by character: LCS("你好今天怎么样", "你好怎么样") = 5 of 7 and 5
    assert sentence_rouge_l(["你好今天怎么样"], [["你好怎么样"]])[0] == pytest.approx(2 * (5 / 7) / (5 / 7 + 1))
    # Several references: the best one by F-measure.
    assert sentence_rouge_l(["a b c"], [["x y", "a b c"]])[0] == pytest.approx(1.0)
    assert math.isnan(sentence_rouge_l(["a"], [[]])[0])


# ------------------------------------------------------------------ BERTScore


@pytest.fixture
def pool():
    return ModelPool(device="cpu", backend="torch")


def bert_score_reference(folder, cands, refs, layer):
    """bert-score 0.3.13 itself, with the tiny folder as its model type (its own loading,
    layer cut, tokenization, idf weights and greedy matching)."""
    from bert_score import score

    p, r, f = score(cands, refs, model_type=folder, num_layers=layer, batch_size=4, device="cpu",
                    use_fast_tokenizer=True)
    return np.stack([p.numpy(), r.numpy(), f.numpy()], axis=1)


def test_bertscore_defaults_are_bert_score_s_for_russian():
    from bert_score.utils import lang2model, model2layers

    assert lang2model["ru"] == bertscore.DEFAULT_MODEL == "bert-base-multilingual-cased"
    assert model2layers[bertscore.DEFAULT_MODEL] == bertscore.MODEL_LAYERS[bertscore.DEFAULT_MODEL] == 9
    import inspect

    from bert_score import score

    defaults = inspect.signature(score).parameters
    assert defaults["idf"].default is False and defaults["rescale_with_baseline"].default is False


def test_bertscore_equals_bert_score_on_a_tiny_bert(tiny_models, pool):
    folder = str(tiny_models["sim"])
    cands = ["ты неправ, иди отсюда", "этот человек опять врёт", "какая ерунда", "ну и погода", "ок"]
    refs = ["ты не прав", "этот человек опять врёт", "ерунда эта ваша новость", "хорошая работа, спасибо", "ок"]
    for layer in (1, 2):
        want = bert_score_reference(folder, cands, refs, layer)
        got = bertscore.bertscore_prf(pool, cands, [[r] for r in refs], model="tiny-bert", layer=layer, source=folder)
        np.testing.assert_allclose(got, want, atol=1e-5)
    # Several references: the maximum, as bert-score does with a list of references per candidate.
    multi = [["ты не прав", "иди отсюда"], ["врёт"], ["ерунда"], ["погода сегодня", "ну и погода"], ["ок"]]
    want = bert_score_reference(folder, cands, multi, 2)
    got = bertscore.bertscore_prf(pool, cands, multi, model="tiny-bert", layer=2, source=folder)
    np.testing.assert_allclose(got, want, atol=1e-5)
    # An empty candidate scores 0, as bert-score says it does (bert-score 0.3.13 itself cannot
    # encode an empty sentence under transformers 5: build_inputs_with_special_tokens is gone).
    empty = bertscore.bertscore_prf(pool, ["", "ок"], [["ок"], ["  "]], model="tiny-bert", layer=2, source=folder)
    assert empty[0].tolist() == [0.0, 0.0, 0.0]


def test_bertscore_is_memoised_and_nan_without_references(tiny_models, pool):
    folder = str(tiny_models["sim"])
    first = bertscore.bertscore_prf(pool, ["а б", "в"], [["а"], []], model="tiny-bert", layer=2, source=folder)
    assert np.isnan(first[1]).all() and not np.isnan(first[0]).any()
    before = pool.forward_texts
    again = bertscore.bertscore_prf(pool, ["а б"], [["а"]], model="tiny-bert", layer=2, source=folder)
    assert pool.forward_texts == before and np.array_equal(again[0], first[0])


def test_every_preset_frame_carries_the_reference_columns_and_says_why_bertscore_is_na(tiny_models, monkeypatch):
    from detox_core.metrics import get_preset

    monkeypatch.setattr(bertscore, "_SETTING", bertscore.BertScoreSetting(False, bertscore.DEFAULT_MODEL, 9))
    preset = get_preset("textdetox2024", models={"sta": str(tiny_models["sta"]), "sim": str(tiny_models["st"])})
    frame = preset.score(["ты дебил", "ну и погода"], ["ты неправ", "ну и погода"], [["ты неправ"], []])
    assert set(REFERENCE_METRIC_COLUMNS) <= set(frame.columns)
    assert frame.loc[0, "bleu"] == pytest.approx(1.0) and frame.loc[0, "rouge_l"] == pytest.approx(1.0)
    assert np.isnan(frame.loc[1, ["chrf", "bleu", "rouge_l"]].to_numpy(float)).all()  # no references
    assert np.isnan(frame["bertscore"]).all()
    notes = reference.reference_notes(frame.attrs["signature"])
    assert "only when asked" in notes["bertscore"] and "bleu" not in notes
    # Turned on (with the tiny BERT standing in for the multilingual one): a number.
    monkeypatch.setattr(bertscore, "_SETTING", bertscore.BertScoreSetting(True, "tiny-bert", 2))
    preset.get_pool().map_model("tiny-bert", str(tiny_models["sim"]))
    frame = preset.score(["ты дебил", "ну и погода"], ["ты неправ", "ну и погода"], [["ты неправ"], []])
    assert 0.0 < frame.loc[0, "bertscore"] <= 1.0 + 1e-6 and np.isnan(frame.loc[1, "bertscore"])
    assert frame.attrs["signature"]["references"]["bertscore"].startswith("BERTScore F1|tiny-bert|L2")


def test_a_bertscore_model_that_cannot_load_is_na_with_its_reason(tmp_path, monkeypatch, pool):
    monkeypatch.setattr(bertscore, "_SETTING", bertscore.BertScoreSetting(True, "missing-bert", 9))
    pool.map_model("missing-bert", str(tmp_path / "nowhere"))
    frame = reference.add_reference_columns(
        __import__("pandas").DataFrame(index=range(1)), ["а"], [["а"]], pool)
    assert np.isnan(frame.loc[0, "bertscore"]) and frame.loc[0, "bleu"] == pytest.approx(1.0)


# ------------------------------------------------------------------ the RUSSE-2022 script's chrF


def test_nltk_corpus_chrf_is_the_2022_script_s_call():
    from nltk.translate.chrf_score import corpus_chrf

    outs = ["какой человек это придумывает ", "в такой ситуации виноваты ребята"]
    refs = [["Кто это придумывает?", "", ""], ["В такой ситуации виноваты из ростелекома", "виноваты ребята", ""]]
    assert nltk_corpus_chrf(outs, refs) == pytest.approx(corpus_chrf(refs, [o.strip() for o in outs]))
    # The references are joined into one string: not the best single reference.
    joined = nltk_corpus_chrf(outs[1:], refs[1:])
    best = max(nltk_corpus_chrf(outs[1:], [[r]]) for r in refs[1][:2])
    assert joined < best
    assert math.isnan(nltk_corpus_chrf(outs, [[""], []]))
