"""The registry of published seq2seq detox models: one per language, never another language's."""

from __future__ import annotations

from types import SimpleNamespace

import torch

from detox_core.editions.textdetox import LANGUAGES_2024
from detox_core.rewriters.baselines import Seq2SeqDetoxifier
from detox_core.rewriters.seq2seq_models import SEQ2SEQ_MODELS, seq2seq_model


def test_each_language_gets_its_own_model_or_none():
    assert seq2seq_model("ru").model_id == "s-nlp/ruT5-base-detox"
    assert seq2seq_model("en").model_id == "s-nlp/bart-base-detox"
    # Every TextDetox 2024 language has a model; only Russian gets the Russian one.
    assert all(seq2seq_model(lang) is not None for lang in LANGUAGES_2024)
    assert [lang for lang, m in SEQ2SEQ_MODELS.items() if "ruT5" in m.model_id] == ["ru"]
    assert seq2seq_model("de").model_id == "s-nlp/mt0-xl-detox-orpo" and seq2seq_model("de").prefix == "Entgiften: "
    for lang in ("it", "ja", "tt", "he", "hin", None):
        assert seq2seq_model(lang) is None


class _Tokenizer:
    def __init__(self):
        self.seen = []

    def __call__(self, texts, **kwargs):
        self.seen += texts
        return SimpleNamespace(to=lambda device: {"input_ids": torch.zeros((len(texts), 1), dtype=torch.long)})

    def batch_decode(self, out, skip_special_tokens=True):
        return [" ok "] * len(out)


def test_the_models_task_prompt_goes_before_the_input():
    tok = _Tokenizer()
    model = SimpleNamespace(generate=lambda **kw: kw["input_ids"])
    pool = SimpleNamespace(device="cpu", get=lambda *a, **k: SimpleNamespace(tokenizer=tok, model=model))
    out = Seq2SeqDetoxifier("s-nlp/mt0-xl-detox-orpo", pool=pool, prefix="Entgiften: ").rewrite(["Du Penner!"])
    assert out == ["ok"] and tok.seen == ["Entgiften: Du Penner!"]
