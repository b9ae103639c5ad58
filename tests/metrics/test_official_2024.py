"""The textdetox2024 preset equals the task's official evaluate.py on tiny random models.

The official procedure is the one ``benchmarks/bench_textdetox2024.py`` reimplements
from ``clef24/text-detoxification/evaluate.py`` (batches of 32 in file order, fp32,
softmax index 0, 1 - scipy cosine of the LaBSE embeddings, sacrebleu chrF / 100); the
benchmark runs it on full-size models, this test on tiny ones of the same layouts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from detox_core.models import ModelPool
from tests.benchmarks import load_benchmark
from tests.tiny_models import corpus_sentences


bench = load_benchmark("bench_textdetox2024")

# Three inputs per language of the 2024 task, in file order by language.
INPUTS = {
    "uk": ["ти дурень, йди геть звідси", "яка дурна новина сьогодні", "закрий рота нарешті, ідіот"],
    "hi": ["तुम बेवकूफ हो", "चुप रहो मूर्ख आदमी", "यह बकवास खबर है"],
    "zh": ["你这个白痴", "闭嘴吧蠢货", "这条新闻真是垃圾"],
    "ar": ["أنت غبي جدا", "اسكت يا أحمق", "هذا خبر سخيف للغاية"],
    "de": ["du bist ein verdammter idiot", "halt endlich die klappe", "was für ein scheiß wetter heute"],
    "en": ["you are a stupid idiot", "shut up and go away, moron", "this is damn bad news"],
    "ru": ["ты дебил, иди отсюда", "этот мудак опять врёт", "какая хрень эта ваша новость"],
    "am": ["አንተ ደደብ ነህ", "ዝም በል ሞኝ ሰው", "ይህ የማይረባ ዜና ነው"],
    "es": ["eres un idiota de mierda", "cállate ya, imbécil", "qué noticia tan estúpida"],
}
# A wider random init than 0.02 here too: with it every [CLS] state is alike, and the head that spreads
# P(neutral) gets weights in the thousands, which turn float noise of 1e-8 into STA differences of 1e-4.
TINY_XLMR = dict(vocab_size=700, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                 max_position_embeddings=514, initializer_range=0.2)
# A wider random init than BERT's 0.02: a tiny random encoder otherwise embeds every text alike (cosines ~0.99999).
TINY_LABSE = dict(vocab_size=900, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                  max_position_embeddings=512, initializer_range=0.2)


@pytest.fixture(scope="module")
def labse_layout(tmp_path_factory) -> dict[str, Path]:
    """Tiny models with the benchmark's builders: an XLM-R classifier (pad id 1, Unigram
    tokenizer) and a LaBSE-layout sentence transformer (CLS, Dense tanh, Normalize)."""
    root = tmp_path_factory.mktemp("td2024")
    texts = [t for ts in INPUTS.values() for t in ts] + corpus_sentences()
    sta = bench.build_sta(root / "sta", bench.xlmr_tokenizer(texts, vocab_size=600), TINY_XLMR, sample=texts[:27])
    sim = bench.build_sim(root / "sim", bench.bert_tokenizer(texts, vocab_size=800), TINY_LABSE)
    return {"sta": sta, "sim": sim}


def pairs() -> tuple[list[str], list[str], list[str]]:
    """54 pairs (two official batches): each input with a word removed, then each input
    unchanged (the Duplicate baseline: SIM and chrF of 1, and outputs the pool has seen)."""
    inputs = [t for ts in INPUTS.values() for t in ts]
    outputs = [bench.rewrite(t) for t in inputs]
    assert all(o != i for o, i in zip(outputs, inputs))
    return inputs + inputs, outputs + inputs, inputs + inputs  # references: the input itself


def compare(folders: dict[str, Path]) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    inputs, outputs, references = pairs()
    official = bench.official_scores(bench.load_official(folders), inputs, outputs, references)
    preset = bench.preset_for(folders, ModelPool(device="cpu", backend="torch"))
    frame = preset.score(inputs, outputs, [[r] for r in references])
    return bench.differences(frame, official), official


def test_preset_equals_the_official_procedure_on_the_labse_layout(labse_layout):
    diffs, official = compare(labse_layout)
    assert max(diffs.values()) <= 1e-4, diffs
    # Not a vacuous agreement: the random classifier tells the outputs apart ...
    assert official["STA"].min() < 0.3 and official["STA"].max() > 0.7
    # ... a removed word lowers SIM and chrF, a duplicate scores 1 on both.
    n = len(official["SIM"]) // 2
    assert official["CHRF"][:n].max() < 1.0 and np.allclose(official["CHRF"][n:], 1.0)
    assert official["SIM"][:n].min() < 0.95 and np.allclose(official["SIM"][n:], 1.0, atol=1e-6)


def test_preset_equals_the_official_procedure_on_the_project_tiny_models(tiny_models):
    # tests/tiny_models.py: a BERT classifier (0 neutral, 1 toxic) and a CLS + Normalize sentence transformer.
    diffs, _ = compare({"sta": tiny_models["sta"], "sim": tiny_models["st"]})
    assert max(diffs.values()) <= 1e-4, diffs


def test_official_sta_reads_label_0_and_j_is_the_product(labse_layout):
    inputs, outputs, references = pairs()
    loaded = bench.load_official(labse_layout)
    official = bench.official_scores(loaded, inputs, outputs, references)
    model, tokenizer, _ = loaded
    p_toxic = bench.classify_texts(model, tokenizer, outputs, 1)
    assert model.config.id2label[0] == "neutral"
    assert np.allclose(official["STA"] + p_toxic, 1.0, atol=1e-6)
    assert np.allclose(official["J"], official["STA"] * official["SIM"] * official["CHRF"])
