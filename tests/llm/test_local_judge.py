"""The llm-judge preset on a local causal LM through the model pool (constrained choice):
a tiny random 2-layer Llama and its tokenizer, built here, saved and loaded through the
same code path as a real fine-tuned judge."""

from __future__ import annotations

import numpy as np
import pytest

from detox_core.llm.local import KIND
from detox_core.metrics import get_preset
from detox_core.models import ModelPool


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-llama")
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(["Text A: you idiot. Text B: you are wrong. Which is more toxic? A B equal yes no "
                             "fluent partially not user assistant system"] * 20, vocab_size=300, min_frequency=1,
                            special_tokens=["<s>", "</s>", "<pad>"])
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>",
                                  pad_token="<pad>")
    tok.save_pretrained(folder)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=4096,
                         bos_token_id=0, eos_token_id=1, pad_token_id=2)
    LlamaForCausalLM(config).save_pretrained(folder)
    return folder


def test_local_causal_lm_answers_every_question_by_constrained_choice(tiny_llama):
    pool = ModelPool(device="cpu", batch_size=4)
    preset = get_preset("llm-judge", pool=pool, local_model=str(tiny_llama))
    inputs = ["you idiot, shut up", "what a stupid idea", "you idiot, shut up"]
    outputs = ["please stop", "an odd idea", "be quiet please"]
    frame = preset.score(inputs, outputs)
    # Every question gets one of its allowed answers: nothing is missing.
    assert frame[["sta", "sim", "fl", "j"]].notna().all().all()
    assert set(frame["sta"]) <= {0, 0.5, 1} and set(frame["sim"]) <= {0, 1} and set(frame["fl"]) <= {0, 1}
    assert np.allclose(frame["j"], frame["sta"] * frame["sim"] * frame["fl"])
    judge = frame.attrs["signature"]["models"]["judge"]
    assert judge["kind"] == KIND and judge["template"] == "textdetox-judge" and "endpoint" not in judge
    # The first input's fluency is asked once for both of its outputs; a rerun is memoised.
    ran = pool.forward_texts
    assert ran == 3 + 3 + 2 + 3  # STA and SIM of 3 pairs, fluency of the 2 distinct inputs and the 3 outputs
    again = preset.score(inputs, outputs)
    assert pool.forward_texts == ran and again["j"].equals(frame["j"])
    # The same scores whatever the order of the pairs.
    flipped = preset.score(inputs[::-1], outputs[::-1])
    assert np.allclose(flipped["j"].to_numpy()[::-1], frame["j"].to_numpy())
