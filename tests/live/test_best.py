"""Which rewrite Live scoring may call the best: never a copy, a rewrite in another language,
a more toxic rewrite, a fragment, an unrelated sentence or a J that shows as 0.00, whatever
their J (the people-written cases of every language)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from detox_core.editions import inputs as edition_inputs
from detox_core.models import meaning
from detox_core.languages import IDENTIFIED, script_of
from detox_core.live import best
from detox_core.live.best import REASONS, choose_best, is_fragment
from detox_core.submissions.explain import added_toxic_words, flags

CASES = pd.read_csv(Path(__file__).resolve().parent.parent / "embedded" / "data" / "judge_cases.tsv", sep="\t",
                    dtype=str, quoting=3, keep_default_na=False)


def test_a_copy_is_never_best_even_with_the_highest_j():
    choice = choose_best("You are an idiot!", ["you are an IDIOT", "You are wrong."], [0.9, 0.4], "en")
    assert choice.best == 1 and choice.excluded[0] == "copy"
    assert choice.reason(0) == REASONS["copy"]


def test_no_star_when_every_rewrite_has_j_zero_or_is_out():
    choice = choose_best("You are an idiot!", ["You are an idiot!", "Please go."], [0.8, 0.0], "en")
    assert choice.best is None and choice.excluded[0] == "copy" and choice.excluded.get(1) != "copy"


@pytest.mark.parametrize("lang", sorted(CASES["lang"].unique()))
def test_the_polite_rewrite_is_the_only_one_that_may_be_best(lang, embedded_models):
    if meaning.unavailable_reason():
        pytest.skip(f"the model of meaning does not run here: {meaning.unavailable_reason()}")
    for case in CASES[CASES["lang"] == lang].itertuples():
        candidates = [case.polite, case.toxic, case.other_text, case.unrelated]
        # J as a preset that cannot tell them apart would give: the copy and the other language highest.
        # Romanised Hindi beside English: one script, and no identifier knows Hinglish (said on the page).
        told = lang in IDENTIFIED or script_of(lang) != script_of(case.other_lang)
        choice = choose_best(case.toxic, candidates, [0.2, 0.9, 0.8 if told else 0.15, 0.1], lang)
        assert choice.best == 0, (lang, choice)
        assert choice.excluded[1] == "copy" and (choice.excluded.get(2) == "language" or not told), (lang, choice)
        assert 0 not in choice.excluded and choice.excluded.get(3) in (None, "unrelated"), (lang, choice)


def test_a_rewrite_adding_toxic_words_is_never_best_even_when_its_p_neutral_is_higher():
    # The Tatar case: the input at P(neutral) 0.00, a rewrite adding «сволочь», «блядь» at 0.42.
    source = "Авызыңны яп, тинтәк, синең юләр фикерең беркемгә дә кирәкми."
    worse = "Авызыңны яп, тинтәк сволочь, синең юләр фикерең беркемгә дә кирәкми, блядь."
    polite = "Зинһар, тынычлан, синең фикерең монда беркемне дә кызыксындырмый."
    lexicon = frozenset({"сволочь", "блядь", "тинтәк"})
    choice = choose_best(source, [worse, polite], [0.40, 0.30], "tt", sta=[0.42, 0.60], sta_input=0.0,
                         lexicon=lexicon)
    assert choice.best == 1 and choice.excluded[0] == "more_toxic"
    assert added_toxic_words(source, worse, lexicon) == ["сволочь", "блядь"]
    card = flags(source, worse, lexicon, sta_output=0.42, sta_input=0.0)
    assert card.more_toxic and "more toxic than the input" in card.labels()
    assert not flags(source, polite, lexicon, sta_output=0.6, sta_input=0.0).more_toxic


def test_a_rewrite_less_neutral_or_not_more_neutral_than_its_input_is_never_best():
    source = "You are an idiot and your plan is stupid."
    cands = ["You are a complete idiot and your plan is very stupid.", "Your plan is a little odd, I think.",
             "I am not sure your plan works."]
    choice = choose_best(source, cands, [0.6, 0.5, 0.4], "en", sta=[0.10, 0.30, 0.95], sta_input=0.30)
    assert choice.excluded == {0: "more_toxic", 1: "not_less_toxic"} and choice.best == 2


def test_a_j_that_shows_as_zero_never_gets_the_star():
    choice = choose_best("You are an idiot!", ["Please go.", "I disagree with you."], [0.004, np.nan], "en")
    assert choice.best is None  # 0.004 shows as 0.00; NaN is no score
    assert choose_best("You are an idiot!", ["Please go now.", "Please go."], [0.004, 0.006], "en").best == 1


@pytest.mark.parametrize(("source", "fragment"), [
    ("Shut up, you moron, nobody cares about your stupid opinion on football.", "your opinion on football"),
    ("闭嘴吧你这个蠢货，你那些愚蠢的意见根本没人在乎。", "你的意见。"),
    ("Заткнись, тупой идиот, всем плевать на твоё дурацкое мнение.", "твоё мнение."),
])
def test_a_fragment_of_the_input_is_never_best(source, fragment):
    polite = "Please stop."
    choice = choose_best(source, [fragment, polite], [0.28, 0.15], "xx")
    assert choice.excluded[0] == "fragment" and choice.best == 1
    assert is_fragment(source, fragment)
    # Removing only the insults is a rewrite, not a fragment.
    assert not is_fragment("Shut up, you moron, your opinion is wrong.", "Shut up, your opinion is wrong.",
                           frozenset({"moron"}))


def test_the_first_ranking_in_a_language_reads_the_shipped_ceilings_and_embeds_no_inputs(monkeypatch):
    # Measuring the "unrelated" ceilings embeds 800 inputs (13-36 s on two cores): a fresh
    # server's first ranking of two rewrites used to wait for it without a word.
    monkeypatch.setattr(best, "_CEILINGS", {})
    embedded: list[int] = []
    monkeypatch.setattr(meaning, "cosine", lambda a, b: (embedded.append(len(a)), np.full(len(a), 0.9))[1])
    for lang in ("ru", "en", "de", "uk", "ja"):
        assert best.ceilings_at_hand(lang), lang
        choose_best("You are an idiot!", ["Please go.", "I disagree with you."], [0.5, 0.4], lang)
    assert embedded == [2] * 5  # only the two candidates against their input, never the inputs' pairs


def test_every_language_with_training_inputs_has_shipped_ceilings_of_the_current_recipe():
    shipped = best.shipped_ceilings()
    assert set(shipped) == {"ru", *edition_inputs.LANGUAGES}, (
        f"{best.SHIPPED_FILE.name} is missing, stale or of another recipe: run `detox ceilings`")
    for lang, c in shipped.items():  # two different inputs are near (e5) but share few characters
        assert 0.6 < c.cosine < 0.95 and 0.0 < c.chrf < 0.5, (lang, c)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_shipped_ceilings_are_what_the_data_gives(lang, real_data, monkeypatch):
    if meaning.unavailable_reason():
        pytest.skip(f"the model of meaning does not run here: {meaning.unavailable_reason()}")
    monkeypatch.setattr(best, "_CEILINGS", {})
    measured = best.unrelated_ceilings(lang, real_data.parent)
    shipped = best.shipped_ceilings()[lang]
    assert measured.cosine == pytest.approx(shipped.cosine, abs=0.005), "run `detox ceilings`"
    assert measured.chrf == pytest.approx(shipped.chrf, abs=0.005), "run `detox ceilings`"


def test_every_rewrite_left_out_of_the_ranking_says_why_a_j_of_zero_included():
    # An unrelated sentence the model of meaning does not call unrelated still scores J 0.00: it is
    # told as such, like every other rewrite the star skips, in every language.
    choice = choose_best("You are an idiot!", ["Please stop.", "The train leaves at five.", "you are an IDIOT"],
                         [0.6, 0.001, 0.9], "xx")
    assert choice.best == 0 and choice.excluded == {1: "zero", 2: "copy"}
    assert choice.reason(1).startswith("scored J 0.00")


@pytest.mark.parametrize(("lang", "source", "output"), [
    ("uk", "Ти ідіот, замовкни!", "Ідіоте, будь ласка, помовч."),  # the same insult in the vocative
    ("ar", "اسكت يا غبي", "أنت غبي"),  # "غبي" inside the input's longer entry "يا غبي"
    ("ar", "أنت الغبي", "أنت غبي"),  # with and without the article
    ("de", "Halt die Fresse, du Idiot.", "Ihr Idioten seid still."),
    ("ru", "Ты идиот", "Идиоты вы все"),
    ("en", "You are a fucking moron", "You are a clueless moron."),  # "clueless" is no insult alone
])
def test_an_insult_kept_in_another_form_adds_no_toxicity(lang, source, output):
    lexicon = frozenset({"ідіот", "ідіоте", "يا غبي", "غبي", "الغبي", "halt die fresse", "idiot", "idioten",
                         "идиот", "идиоты", "fucking", "moron", "clueless moron"})
    assert added_toxic_words(source, output, lexicon, lang) == []
    assert not flags(source, output, lexicon, lang=lang).more_toxic


@pytest.mark.parametrize(("source", "output", "added"), [
    ("You are a fucking moron", "You are a clueless moron and your post is garbage", ["is garbage"]),
    ("Shut up", "Shut the fuck up", ["shut the fuck up"]),  # "fuck" is an insult of its own
    ("You are an idiot", "You are an idiot, a total idiot", ["idiot"]),  # said twice now
])
def test_an_added_insult_is_more_toxic_even_beside_the_inputs_own(source, output, added):
    lexicon = frozenset({"fucking", "moron", "clueless moron", "is garbage", "shut up", "shut the fuck up", "fuck",
                         "idiot"})
    assert added_toxic_words(source, output, lexicon, "en") == added
    assert flags(source, output, lexicon, lang="en").more_toxic


def test_the_english_supplement_knows_garbage_as_an_insult_not_as_a_word():
    from detox_core.lexicons.base import supplement_words

    words_ = supplement_words("en")
    assert {"is garbage", "are total garbage", "piece of trash"} <= words_ and "garbage" not in words_
