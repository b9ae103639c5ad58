"""Generated control items are screened by their construction: a candidate a careful reader
would dispute is never made a control (German cases of a walkthrough, and a few in other
languages), and the project says what was dropped and why."""

from __future__ import annotations

import random

import pandas as pd

from detox_core.annotation.controls import generate_controls, insert_word
from detox_core.annotation.projects import language_controls, screening_note
from detox_core.annotation.screening import (
    EVENT, GARBLED, LEXICON_WORD, NOT_DECISIVE, READS_TOXIC, Screening, decisive, neutral_problem,
)

SEKTE = "Bei einer Sekte von freiwillig zu sprechen ist mutig."
MEHRZAHL = "Die Mehrzahl=Asylsuchende, Verbrecher, Terroristen"
GERMAN = [
    ("Bei einer psycho Sekte von freiwillig zu sprechen ist mutig.", SEKTE),
    ("Die Mehrzahl=Asylschmarotzer, Verbrecher, Terroristen, Feiglinge", MEHRZAHL),
    *[(f"Du Idiot, der Bus {i} war heute wieder zu spät", f"Der Bus {i} war heute wieder zu spät") for i in range(8)],
    *[(f"Die Asylanten im Zug {i} waren heute sehr laut", f"Die Leute im Zug {i} waren heute sehr laut")
      for i in range(8)],
    *[(f"Der Idiot hat das Fenster {i} wieder offen gelassen", f"Er hat das Fenster {i} wieder offen gelassen")
      for i in range(8)],
]


def german_corpus() -> pd.DataFrame:
    return pd.DataFrame({"toxic_comment": [a for a, _ in GERMAN], "neutral_comment1": [b for _, b in GERMAN],
                         "neutral_comment2": "", "neutral_comment3": ""})


def test_a_paraphrase_with_markup_or_group_labels_is_no_neutral_gold():
    # The walkthrough's disputed "not toxic" control, before and after a word was left out.
    assert neutral_problem(MEHRZAHL) == GARBLED
    assert neutral_problem("die Mehrzahl=Asylsuchende, Terroristen") == GARBLED
    # The same words without the markup still read as toxic to the classifier.
    assert neutral_problem("die Mehrzahl Asylsuchende, Verbrecher, Terroristen") == READS_TOXIC
    assert neutral_problem("Der Bus war heute wieder zu spät") == ""
    assert neutral_problem(SEKTE) == ""


def test_in_other_languages_a_neutral_gold_has_no_rude_word_markup_or_toxic_tone():
    assert neutral_problem("the damn bus was late again", frozenset({"damn"})) == LEXICON_WORD
    assert neutral_problem("you are a worthless piece of garbage and everyone hates you") == READS_TOXIC
    assert neutral_problem("eres un pedazo de basura inútil") == READS_TOXIC
    assert neutral_problem("ответ смотри тут: http://example.com") == GARBLED
    assert neutral_problem("вот <b>это</b> ответ") == GARBLED
    assert neutral_problem("the bus was late again today") == ""
    assert neutral_problem("el autobús llegó tarde otra vez") == ""


def test_an_offensive_word_goes_in_as_an_address_and_must_decide_the_answer():
    for seed in range(20):  # never tacked on without a comma ("... ist mutig asylanten"), never inside
        made = insert_word(SEKTE, "asylanten", random.Random(seed))
        assert made in {"asylanten, Bei einer Sekte von freiwillig zu sprechen ist mutig",
                        "Bei einer Sekte von freiwillig zu sprechen ist mutig, asylanten"}
    # An insult makes the sentence toxic for the classifier; a group's name barely moves it.
    assert decisive(SEKTE, "Idiot, bei einer Sekte von freiwillig zu sprechen ist mutig")
    assert not decisive(SEKTE, "Asylanten, bei einer Sekte von freiwillig zu sprechen ist mutig")
    assert not decisive(SEKTE, "bei einer Sekte von freiwillig zu sprechen ist mutig asylanten")
    assert decisive("the bus was late again today", "the bus was late again today, idiot")
    assert decisive("этот кот опять всё испортил", "дебил, этот кот опять всё испортил")


def test_generated_german_controls_are_ones_careful_readers_agree_on():
    screening = Screening()
    got = generate_controls(german_corpus(), "toxicity", 12, lexicon=frozenset({"idiot", "asylanten"}), seed=0,
                            screening=screening)
    assert len(got) == 12 and sum(c.golden for c in got) == 6
    for c in got:
        assert "=" not in c.text and "Mehrzahl" not in c.text
        if c.golden == 1.0:
            lowered = c.text.lower().rstrip(".!")
            word = next(w for w in ("idiot", "asylanten") if w in lowered)
            assert lowered.startswith(f"{word}, ") or lowered.endswith(f", {word}"), c.text
            assert decisive(c.text.split(", ", 1)[-1] if lowered.startswith(word) else c.text.rsplit(", ", 1)[0],
                            c.text)
        else:
            assert "idiot" not in c.text.lower() and "asylanten" not in c.text.lower()
    assert screening.considered >= 12
    assert set(screening.dropped) <= {GARBLED, LEXICON_WORD, READS_TOXIC, NOT_DECISIVE}


def test_the_project_says_what_the_screening_dropped_and_keeps_it_in_its_log(store):
    corpus = german_corpus().assign(lang="de", split="train")
    controls, exam, plan = language_controls(corpus, ["toxicity", "fluency"], ["de"], per_task=20, exam_per_task=4,
                                             lexicons={"de": frozenset({"idiot", "asylanten"})})
    note = screening_note(plan)
    assert note.startswith("German (de): The screening of generated control items dropped ")
    assert "markup or a link in the text, such as '=' joining words: " in note  # the Mehrzahl pair
    assert not any("=" in c.text for c in [*controls, *exam])
    pairs = pd.DataFrame({"system": "s", "idx": [0], "input": ["Du Idiot"], "output": ["Du"], "lang": ["de"]})
    project = store.create_project("screened", ["toxicity", "fluency"], pairs, controls=controls, exam=exam,
                                   screened=note)
    log = store.log(project.id)
    assert log.loc[log["kind"] == EVENT, "detail"].tolist() == [note]
