"""The pool's extension points: a tokenizer taken from another model, single-logit
classifiers, sentence-pair classifiers and registered model kinds."""

from __future__ import annotations

import numpy as np
import pytest

from detox_core.errors import DetoxInputError, ModelUnavailableError
from detox_core.models import CustomKind, ModelPool, register_kind
from detox_core.models.kinds import CUSTOM_KINDS

TEXTS = ["ты неправ", "какая ерунда эта ваша новость, честно говоря", "ок"]


def pool() -> ModelPool:
    return ModelPool(device="cpu", backend="torch")


def test_a_classifier_read_with_another_models_tokenizer(tiny_models, tmp_path):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    p = pool()
    p.map_model("org/tokenizer", str(tiny_models["fl"]))  # another folder with the same vocabulary
    probs = p.probabilities("org/clf", TEXTS, source=str(tiny_models["sta"]), tokenizer="org/tokenizer")
    tok = AutoTokenizer.from_pretrained(tiny_models["fl"])
    model = AutoModelForSequenceClassification.from_pretrained(tiny_models["sta"]).eval()
    with torch.no_grad():
        want = torch.softmax(model(**tok(TEXTS, padding=True, return_tensors="pt")).logits, -1).numpy()
    np.testing.assert_allclose(probs, want, atol=1e-5)
    info = p.info("org/clf", "classifier", source=str(tiny_models["sta"]), tokenizer="org/tokenizer")
    assert info["tokenizer"]["id"] == "org/tokenizer" and info["tokenizer"]["source"] == str(tiny_models["fl"])
    with pytest.raises(ModelUnavailableError, match="tokenizer folder"):
        p.map_model("org/missing", str(tmp_path / "nowhere"))
        p.probabilities("org/clf", TEXTS, source=str(tiny_models["sta"]), tokenizer="org/missing")


def test_a_single_logit_classifier_gives_its_sigmoid(tmp_path):
    import torch
    from transformers import BertForSequenceClassification

    from tests.tiny_models import _config, build_tokenizer

    tok = build_tokenizer(tmp_path)
    torch.manual_seed(0)
    model = BertForSequenceClassification(_config(tok, num_labels=1)).eval()
    model.save_pretrained(tmp_path)
    probs = pool().probabilities("one-logit", TEXTS, source=str(tmp_path))
    with torch.no_grad():
        logits = model(**tok(TEXTS, padding=True, return_tensors="pt")).logits
    assert probs.shape == (3, 1)
    np.testing.assert_allclose(probs[:, 0], torch.sigmoid(logits)[:, 0].numpy(), atol=1e-6)


def test_pairs_are_encoded_as_two_segments_and_memoised(tiny_models):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    p = pool()
    firsts, seconds = TEXTS, ["ты прав", "новость", "ок"]
    probs = p.pair_probabilities("pair", firsts, seconds, source=str(tiny_models["sta"]))
    tok = AutoTokenizer.from_pretrained(tiny_models["sta"])
    model = AutoModelForSequenceClassification.from_pretrained(tiny_models["sta"]).eval()
    with torch.no_grad():
        want = torch.softmax(model(**tok(firsts, seconds, padding=True, return_tensors="pt")).logits, -1).numpy()
    np.testing.assert_allclose(probs, want, atol=1e-5)
    # Not the same as the single texts, and a second call runs nothing.
    assert not np.allclose(probs, p.probabilities("pair", firsts, source=str(tiny_models["sta"])))
    before = p.forward_texts
    np.testing.assert_allclose(p.pair_probabilities("pair", firsts, seconds, source=str(tiny_models["sta"])), probs)
    assert p.forward_texts == before
    with pytest.raises(DetoxInputError, match="as many second texts"):
        p.pair_probabilities("pair", firsts, seconds[:1], source=str(tiny_models["sta"]))


def test_a_registered_kind_loads_once_and_is_memoised(tmp_path):
    loads = []

    def load(loaded, cache_only):
        loads.append(loaded.source)
        loaded.model = len

    register_kind("test-length", CustomKind(load=load, run=lambda loaded, items: [np.array([loaded.model(i)]) for i in items]))
    try:
        p = pool()
        p.batch_size = 2
        seen = []
        out = p.run_custom("x", "test-length", ["a", "bbb", "cc", "a"], source=str(tmp_path),
                           progress=lambda d, t: seen.append((d, t)))
        assert out[:, 0].tolist() == [1, 3, 2, 1]
        assert p.run_custom("x", "test-length", ["bbb"], source=str(tmp_path))[0, 0] == 3
        assert loads == [str(tmp_path)] and p.forward_texts == 3
        assert seen[-1] == (4, 4)
        with pytest.raises(DetoxInputError, match="unknown model kind"):
            p.run_custom("x", "no-such-kind", ["a"])
    finally:
        CUSTOM_KINDS.pop("test-length", None)
