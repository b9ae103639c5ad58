"""The character LM: a proper distribution, and fluent text scores higher."""

from __future__ import annotations

import math

import pytest

from detox_core.embedded.charlm import BOS, CharLM
from tests.tiny_models import corpus_sentences


@pytest.fixture(scope="module")
def lm():
    return CharLM(order=4).fit(corpus_sentences())


def test_probabilities_sum_to_one(lm):
    # Every symbol of the vocabulary (BOS included) plus one unknown symbol.
    alphabet = {g for g in lm.counts_ if len(g) == 1} | {BOS}
    assert len(alphabet) + 1 == lm.vocab_size_
    for history in ["ты д", "   ", "xyz", BOS * 3]:
        total = sum(lm._prob(history, c) for c in alphabet) + lm._prob(history, "☃")
        assert total == pytest.approx(1.0, abs=1e-9)


def test_fluent_text_scores_higher(lm):
    assert lm.mean_logprob("этот человек опять врёт") > lm.mean_logprob("ьтэ кевлочеъ тяпо тёрв")


def test_save_and_load(lm, tmp_path):
    lm.save(tmp_path / "lm.pkl")
    again = CharLM.load(tmp_path / "lm.pkl")
    assert again.mean_logprob("ну и погода") == pytest.approx(lm.mean_logprob("ну и погода"))
    assert math.isfinite(again.mean_logprob("☃☃☃"))  # unseen characters still have a probability
