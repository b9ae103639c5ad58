"""Control questions generated from the corpus, and uploaded ones."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from detox_core.annotation.controls import corrupt, generate_controls, load_controls
from detox_core.editions.registry import load_dataset, load_dataset_lexicon
from detox_core.errors import DetoxInputError
from detox_core.text import lexicon_hits, words

NOUNS = ["кот", "дом", "сосед", "начальник", "водитель", "депутат", "учитель", "мастер", "продавец", "врач"]


def corpus(n: int = 30) -> pd.DataFrame:
    rows = []
    for i in range(n):
        noun = NOUNS[i % len(NOUNS)]
        rows.append({"toxic_comment": f"этот дебил {noun} номер {i} опять всё испортил",
                     "neutral_comment1": f"этот {noun} номер {i} опять всё испортил",
                     "neutral_comment2": "", "neutral_comment3": ""})
    return pd.DataFrame(rows)


def derived_from(text: str, sources) -> bool:
    """Whether ``text`` is one of ``sources`` touched up (ending, first letter's case, a
    word left out): its words are among one source's words."""
    got = set(words(text.lower()))
    return any(got <= set(words(src.lower())) and len(got) >= len(words(src)) - 1 for src in sources)


def test_toxicity_controls_put_an_offensive_word_into_a_paraphrase():
    frame = corpus()
    got = generate_controls(frame, "toxicity", 10, lexicon=frozenset({"дебил"}), seed=3)
    assert len(got) == 10 and sum(c.golden for c in got) == 5
    for c in got:
        assert ("дебил" in c.text.lower()) == (c.golden == 1.0)
        if c.golden == 1.0:  # put in as an address, where it reads as an insult
            assert c.text.lower().startswith("дебил, ") or c.text.rstrip(".!").endswith(", дебил"), c.text
    paraphrases = set(frame["neutral_comment1"])
    # Both answers are paraphrases of the corpus touched up: looking one up finds a
    # paraphrase either way; the offensive word put in decides.
    assert all(derived_from(c.text.lower().replace("дебил", ""), paraphrases) for c in got)
    assert not any(c.text in set(frame["toxic_comment"]) or c.text in paraphrases for c in got)  # not verbatim


def test_content_controls_pair_own_paraphrases_and_change_their_main_words():
    frame = corpus()
    own = dict(zip(frame["toxic_comment"], frame["neutral_comment1"]))
    got = generate_controls(frame, "content", 12, seed=1)
    assert sum(c.golden for c in got) == 6
    for c in got:
        assert derived_from(c.text, [own[c.input]]) == (c.golden == 1.0)
        if c.golden == 0.0:  # the input's own paraphrase, with two words of another sentence
            assert 1 <= len(set(words(c.text.lower())) - set(words(own[c.input].lower()))) <= 2


def test_fluency_controls_corrupt_a_copy_or_join_two_sentences():
    got = generate_controls(corpus(), "fluency", 8, seed=2)
    bad = [c for c in got if c.golden == 0.0]
    assert len(bad) == 4
    paraphrases = set(corpus()["neutral_comment1"])
    for c in got:
        assert c.text not in paraphrases
        if c.golden == 1.0:
            first, second = c.text.split(". ", 1)
            assert derived_from(first, paraphrases) and derived_from(second, paraphrases)
    text = "этот водитель номер 3 опять всё испортил"
    broken = corrupt(text, random.Random(0))
    assert broken != text and len(words(broken)) == len(words(text)) + 1


def test_too_small_corpus_is_a_clear_error():
    with pytest.raises(DetoxInputError, match="need at least 40"):
        generate_controls(corpus(10), "content", 40)


def test_real_corpus_controls(real_data):
    frame = load_dataset("russe2022", ["train"])
    lexicon = load_dataset_lexicon("russe2022")
    got = generate_controls(frame, "toxicity", 60, lexicon=lexicon, seed=0)
    toxic = [c for c in got if c.golden == 1.0]
    assert len(toxic) == 30 and all(lexicon_hits(c.text, lexicon) for c in toxic)
    assert not any(lexicon_hits(c.text, lexicon) for c in got if c.golden == 0.0)


def test_upload(tmp_path):
    path = tmp_path / "controls.tsv"
    path.write_text("task\tinput\ttext\tgolden\texplanation\n"
                    "toxicity\t\tты дурак\tyes\tan insult\n"
                    "content\tты дурак\tты неправ\t1\t\n"
                    "fluency\t\tдом дом вы\tnot fluent\t\n", encoding="utf-8")
    got = load_controls(path)
    assert [(c.task, c.golden) for c in got] == [("toxicity", 1.0), ("content", 1.0), ("fluency", 0.0)]
    assert got[0].explanation == "an insult"


@pytest.mark.parametrize("body, message", [
    ("task\ttext\n", "missing column 'golden'"),
    ("task\ttext\tgolden\n", "at least one control item"),
    ("task\ttext\tgolden\nstyle\tx\t1\n", "line 2, column 'task': unknown task"),
    ("task\ttext\tgolden\ntoxicity\t \t1\n", "line 2, column 'text': text is empty"),
    ("task\ttext\tgolden\ncontent\tx\t1\n", "line 2, column 'input'"),
    ("task\ttext\tgolden\ntoxicity\tx\tmaybe\n", "line 2, column 'golden': 'maybe' is not an answer"),
    ("task\ttext\tgolden\ntoxicity\tx\t1\nfluency\ty\t0.7\n", "line 3, column 'golden'"),
])
def test_upload_errors_name_line_and_column(tmp_path, body, message):
    path = tmp_path / "c.tsv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(DetoxInputError, match=message):
        load_controls(path)


def _public_texts(corpus) -> set[str]:
    from detox_core.data import PARAPHRASE_COLUMNS

    cols = ["toxic_comment", *PARAPHRASE_COLUMNS]
    return {str(t).strip() for c in cols if c in corpus for t in corpus[c] if str(t).strip()}


@pytest.mark.parametrize("task", ["toxicity", "content", "fluency"])
def test_generated_controls_are_not_found_verbatim_in_the_public_corpus(real_data, task):
    from detox_core import editions

    corpus = editions.load_dataset("russe2022", ["train", "dev", "test"], real_data.parent)
    lexicon = editions.load_dataset_lexicon("russe2022", real_data.parent)
    made = generate_controls(corpus, task, 200, lexicon=lexicon, seed=3)
    public = _public_texts(corpus)
    found = [c.text for c in made if c.text.strip() in public]
    assert found == []
    # The answers still hold: toxic controls keep a lexicon word, neutral ones have none.
    if task == "toxicity":
        from detox_core.text import lexicon_hits

        pos = [c for c in made if c.golden == 1.0]
        assert sum(bool(lexicon_hits(c.text, lexicon)) for c in pos) >= 0.9 * len(pos)
        assert not any(lexicon_hits(c.text, lexicon) for c in made if c.golden == 0.0)


def test_a_lookup_of_the_public_corpus_does_not_answer_the_controls(real_data):
    """Controls made straight from the corpus were answered 97-100% right by a cheater who
    looks each text up (normalised, then fuzzy) in the public corpus; the controls made now
    leave such a cheater near a coin's 50%, under the 70% ban threshold, while an answer
    key still exists for people who read the texts."""
    from detox_core import editions
    from detox_core.annotation.projects import corpus_controls
    from detox_core.annotation.store import Settings
    from tests.annotation.lookup_attack import CorpusLookup, cheat_accuracy

    corpus = editions.load_dataset("russe2022", ["train", "dev", "test"], real_data.parent)
    lexicon = editions.load_dataset_lexicon("russe2022", real_data.parent)
    lookup = CorpusLookup(corpus)
    for task in ("toxicity", "content", "fluency"):
        controls, exam = corpus_controls(corpus, [task], per_task=40, exam_per_task=10, lexicon=lexicon, seed=3)
        for items in (controls, exam):
            accuracy, _found = cheat_accuracy(items, lookup)
            assert accuracy < Settings().ban_control_accuracy - 0.1, (task, accuracy)


def test_languages_without_control_questions_for_one_reason_are_said_in_one_sentence():
    """A corpus without references in 15 languages: one sentence naming them, not fifteen."""
    import pandas as pd

    from detox_core.annotation.projects import controls_problem, language_controls

    langs = ["am", "ar", "de", "en"]
    corpus = pd.DataFrame({"toxic_comment": [f"t {i}" for i in range(8)], "neutral_comment1": "",
                           "neutral_comment2": "", "neutral_comment3": "",
                           "lang": langs * 2, "split": "dev"})
    _, _, plan = language_controls(corpus, ["toxicity"], langs, per_task=5, exam_per_task=0)
    said = controls_problem(plan)
    assert said.count("no control questions") == 1, said
    assert "Amharic (am), Arabic (ar), German (de) and English (en) have no control questions for toxicity" in said
    assert "leave those languages out, or set the generated control items to 0" in said
