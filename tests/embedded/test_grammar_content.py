"""The embedded preset's parts: the grammatical-tag model (FL) and the content recall (SIM)."""

from __future__ import annotations

import numpy as np
import pytest

from detox_core.embedded.content import soft_recall, toxic_words, vector_closeness, without_words
from detox_core.embedded.grammar import TagLM
from detox_core.embedded.recipe import morph_analyzer, tag_of_parse, unit_vector

SENTENCES = [
    "я иду в магазин", "мы пошли в кино", "она читает новую книгу", "он купил хороший дом",
    "дети играют во дворе", "мама готовит вкусный ужин", "я живу в большом городе", "мы говорили о погоде",
] * 5


def tagger(word: str) -> str:
    return tag_of_parse(morph_analyzer().parse(word)[0].tag)


@pytest.fixture(scope="module")
def lm() -> TagLM:
    model = TagLM(tagger).fit(SENTENCES)
    model.standardise(SENTENCES)
    return model


def test_a_broken_sentence_is_less_grammatical(lm):
    assert lm.score("я иду в магазин") > lm.score("я в иду магазин")
    assert lm.score("мы говорили о погоде") > lm.score("мы говорили о")  # ends on a preposition
    assert lm.score("она читает новую книгу") > lm.score("она новую читает в")


def test_the_model_survives_a_round_trip(lm, tmp_path):
    lm.save(tmp_path / "lm.json")
    again = TagLM.load(tmp_path / "lm.json", tagger)
    for text in ("я в иду магазин", "дети играют во дворе", ""):
        assert again.score(text) == pytest.approx(lm.score(text))


def test_content_recall_forgives_deleted_insults_not_deleted_content():
    lexicon = frozenset({"дебил"})
    no_model = lambda ws: {w: 1.0 for w in ws}  # noqa: E731 - the lexicon alone decides here
    src = ["ты", "дебил", "купил", "новую", "машину"]
    toxic = toxic_words(src, lexicon, no_model, 0.25)
    assert toxic == {"дебил"}
    kept = [w for w in src if w not in toxic]
    assert soft_recall(kept, ["ты", "купил", "новую", "машину"], vector_closeness(unit_vector)) == 1.0
    lost = soft_recall(kept, ["ты", "купил"], vector_closeness(unit_vector))
    assert 0.5 <= lost < 1.0
    # A synonym keeps part of the meaning (navec vectors), an unrelated word less.
    near = soft_recall(["машину"], ["автомобиль"], vector_closeness(unit_vector))
    far = soft_recall(["машину"], ["погоду"], vector_closeness(unit_vector))
    assert 0 < far < near < 1.0
    assert soft_recall([], ["что", "угодно"], vector_closeness(unit_vector)) == 1.0  # nothing but insults to keep
    assert without_words("Ты ДЕБИЛ, купил машину!", {"дебил"}) == "ты купил машину"


def test_the_classifier_finds_toxic_words_the_lexicon_misses():
    scores = {"мразь": 0.05, "погода": 0.9}
    assert toxic_words(["эта", "мразь", "погода"], frozenset(), lambda ws: {w: scores.get(w, 0.8) for w in ws},
                       0.25) == {"мразь"}
    assert np.isfinite(unit_vector("погода")).all() and unit_vector("ыфвафыва") is None


def test_one_soft_recall_for_word_vectors_and_character_bigrams():
    from detox_core.embedded.content import bigram_closeness

    def bigrams(word):
        s = f"^{word}$"
        return frozenset(s[i:i + 2] for i in range(len(s) - 1))

    kept = ["house", "green", "tree"]
    # A word the output has counts 1; another its best Dice: "house" shares 5 of its 6 bigrams
    # with the 7 of "houses", "tree" 2 of its 5 with the 6 of "green".
    recall = soft_recall(kept, ["houses", "green"], bigram_closeness(bigrams))
    assert recall == pytest.approx((2 * 5 / 13 + 1.0 + 2 * 2 / 11) / 3)
    assert soft_recall([], ["any"], bigram_closeness(bigrams)) == 1.0
