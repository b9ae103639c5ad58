"""The Delete baseline and the seq2seq rewriter (on a tiny T5 built here)."""

from __future__ import annotations

import pytest

from detox_core.submissions.baselines import delete_baseline, Seq2SeqDetoxifier
from detox_core.models import ModelPool

LEX = frozenset({"дебил", "сука", "нахрен", "блять"})


@pytest.mark.parametrize("text, expected", [
    ("ты дебил, иди отсюда", "ты, иди отсюда"),
    ("ну ты и дебил, сука", "ну ты и"),
    ("Сука, как же надоело", "Как же надоело"),
    ("иди нахрен !", "иди!"),
    ("ничего токсичного", "ничего токсичного"),
    ("блять", ""),
    ("Ёлки, ДЕБИЛ опять", "Ёлки, опять"),
])
def test_delete_baseline(text, expected):
    assert delete_baseline(text, LEX) == expected


def test_seq2seq_rewriter_through_the_pool(tmp_path):
    from transformers import T5Config, T5ForConditionalGeneration

    from tests.tiny_models import build_tokenizer

    tok = build_tokenizer(tmp_path)
    cfg = T5Config(vocab_size=len(tok), d_model=32, d_ff=64, num_layers=1, num_heads=2, d_kv=16,
                   decoder_start_token_id=tok.pad_token_id, pad_token_id=tok.pad_token_id, eos_token_id=tok.sep_token_id)
    T5ForConditionalGeneration(cfg).eval().save_pretrained(tmp_path)
    pool = ModelPool(device="cpu", backend="torch", model_map={"s-nlp/ruT5-base-detox": str(tmp_path)})
    rewriter = Seq2SeqDetoxifier("s-nlp/ruT5-base-detox", pool=pool, max_new_tokens=8)
    out = rewriter.rewrite(["ты дебил, иди отсюда", "ну и погода"])
    assert len(out) == 2 and all(isinstance(t, str) for t in out)
    assert out == rewriter.rewrite(["ты дебил, иди отсюда", "ну и погода"])  # greedy: reproducible
