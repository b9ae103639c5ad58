"""The held-out registry: one definition of what nothing may learn from, matched by normalised
text, and no training set of the project sharing a text with any held-out set."""

from __future__ import annotations

import pandas as pd
import pytest

from detox_core.editions import held_out as registry
from detox_core.editions.held_out import held_out, normalise
from detox_core.editions.inputs import read_inputs, russe_pairs
from detox_core.lexicons.build import read_inputs as lexicon_inputs
from detox_core.metrics.embedded.training import load_training, training_files
from tests.conftest import write_tiny_dataset


@pytest.mark.parametrize("a, b", [
    ("You IDIOT", "you idiot"),                      # case
    ("ＹＯＵ　ｉｄｉｏｔ", "you idiot"),               # NFKC: full-width letters and space
    ("you \t idiot\n", "you idiot"),                 # runs of spaces, tabs, line breaks
    ("«you idiot!!»", "you idiot"),                  # punctuation at the ends
    ('"you idiot."', "you idiot"),
    ("  ...you idiot?! ", "you idiot"),
    ("Ты ДУРАК!", "ты дурак"),
])
def test_texts_match_whatever_their_case_width_spaces_and_end_punctuation(a, b):
    assert normalise(a) == normalise(b) == b


def test_punctuation_inside_a_text_and_its_words_are_kept():
    assert normalise("you, idiot") == "you, idiot" != normalise("you idiot")
    assert normalise("you idiot") != normalise("you idiots")
    assert normalise("!!!") == ""


def _tiny_multilingual(root):
    """A tiny TextDetox 2024 and 2025 folder: a test split, a dev split that is 2025's test, and
    the toxicity data that trains the heads."""
    t24, t25 = root / "textdetox2024", root / "textdetox2025"
    (t24 / "meta_eval").mkdir(parents=True)
    (t25 / "training").mkdir(parents=True)
    pd.DataFrame({"toxic_sentence": ["you are a stupid idiot", "what a dumb take"], "lang": ["en", "en"]}).to_csv(
        t24 / "test_inputs.tsv", sep="\t", index=False)
    dev = ["go away, moron", "shut up, loser", "this is crap"]
    pd.DataFrame({"toxic_sentence": dev, "lang": "en"}).to_csv(t24 / "dev_inputs.tsv", sep="\t", index=False)
    pd.DataFrame({"toxic_sentence": dev, "lang": "en"}).to_csv(t25 / "test_inputs.tsv", sep="\t", index=False)
    pd.DataFrame({"id": ["1"], "system": ["s"], "lang": ["en"], "toxic_sentence": ["you are a stupid idiot"],
                  "neutral_sentence": ["you are wrong"]}).to_csv(t24 / "meta_eval" / "pairs.tsv", sep="\t", index=False)
    return t25 / "training" / "toxicity.tsv"


def test_every_kind_of_held_out_text_is_found_by_normalised_match(tmp_path):
    write_tiny_dataset(tmp_path)
    _tiny_multilingual(tmp_path)
    held = held_out(tmp_path)
    names = {s.name.split(" ")[0] + " " + s.name.split(" ")[1] for s in held.sets}
    assert {"russe2022 test", "textdetox2024 test", "textdetox2024 judged", "textdetox2025 test",
            "textdetox2024 dev"} <= names, names
    assert "Сука как же надоело!" in held  # RUSSE-2022's test input, in another case and with punctuation
    assert "YOU ARE WRONG." in held  # an output of the meta-evaluation sample
    assert "  you are a stupid   idiot " in held
    assert "Go away, MORON!" in held  # 2024's dev split is 2025's test
    assert "ты дебил, иди отсюда" not in held  # RUSSE-2022's training pairs are not held out


def test_a_planted_overlap_is_left_out_of_training_and_the_check_sees_it(tmp_path):
    """A test input planted in the toxicity data (in another spelling) and in RUSSE-2022's train split:
    the training sets leave it out; and the overlap check, given the planted texts, names their sets."""
    write_tiny_dataset(tmp_path)
    tox = _tiny_multilingual(tmp_path)
    rows = [(f"you are an idiot number {k}", "1", "en") for k in range(30)] + \
        [(f"have a nice day number {k}", "0", "en") for k in range(30)] + \
        [("You are a STUPID idiot!", "1", "en"), ("Shut up, loser.", "1", "en")]  # planted: 2024 test, 2025 test
    pd.DataFrame(rows, columns=["text", "toxic", "lang"]).to_csv(tox, sep="\t", index=False)
    train = tmp_path / "russe2022" / "train.tsv"
    train.write_text(train.read_text(encoding="utf-8") + "5\tСУКА как же надоело\tкак же надоело\t\t\n", encoding="utf-8")
    sts = training_files(tmp_path)["stsb-en-train"]  # STS pairs: one planted with a 2024 test input
    sts.parent.mkdir(parents=True, exist_ok=True)
    sts.write_text("".join(f"A man is playing a guitar {k}.,A man plays the guitar {k}.,4.2\n" for k in range(5))
                   + "You are a stupid idiot,You are an idiot,3.0\n", encoding="utf-8")
    assert training_files(tmp_path)["toxicity"] == tox
    data = load_training(tmp_path)
    texts = _training_texts(data)
    held = held_out(tmp_path)
    assert held.overlaps(texts) == {}
    assert {k: v for k, v in data["held_out"]["dropped"].items() if v} == {"toxicity": 2, "pairs": 1, "sts": 1}
    assert len(data["sts"]) == 5
    found = held.overlaps(texts + ["You are a STUPID idiot!", "Shut up, loser.", "СУКА как же надоело"])
    assert found.keys() >= {"textdetox2024 test split", "textdetox2025 test split", "russe2022 test split"}, found


def _training_texts(data: dict) -> list[str]:
    """Every text a training set of the heads holds: STA's, the pairs' inputs and rewrites, FL's sentences,
    the LLM's rewrites beside the crowd's, the STS pairs."""
    return [r[0] for r in data["sta"]] + [t for x, rewrites, _ in data["pairs"] for t in (x, *rewrites)] + \
        [t for t, _ in data["fluent"]] + [t for row in data["llm"] for t in row[:3]] + \
        [t for row in data["sts"] for t in row[:2]]


@pytest.fixture(scope="module")
def fetched(real_data):
    root = real_data.parent
    if not training_files(root)["toxicity"].is_file():
        pytest.fail("the toxicity data is not fetched: run `detox fetch-data`")
    return root


def test_no_training_set_shares_a_text_with_any_held_out_set(fetched):
    """Over every pair (training set, held-out set), on the fetched data: zero texts in common.
    Then each held-out set's first text planted in the training texts: the check names that set."""
    held = held_out(fetched)
    assert len(held.sets) >= 8, held.describe()
    training = {
        "the offline heads' training data": _training_texts(load_training(fetched)),
        "Live scoring's unrelated-check inputs": [t for ts in read_inputs(fetched).values() for t in ts]
        + [t for pair in russe_pairs(fetched, n=10_000) for t in pair],
        "the lexicons' keyness texts": [t for ts in lexicon_inputs(fetched).values() for t in ts],
    }
    for name, texts in training.items():
        assert len(texts) > 1000, name
        overlaps = held.overlaps(texts)
        assert overlaps == {}, (name, {k: v[:3] for k, v in overlaps.items()})
    for s in held.sets:
        planted = next(iter(s.texts))
        assert s.name in held.overlaps(training["the offline heads' training data"] + [planted.upper() + "!"])


def test_the_leaks_the_registry_was_made_for_are_held_out(fetched):
    """TextDetox 2024's development references are RUSSE-2022 test pairs (Russian) and TextDetox
    2025's test inputs (the nine languages); the 2025 test's new languages are in a file of their own."""
    held = held_out(fetched)
    refs = pd.read_csv(fetched / "textdetox2024" / "dev_references.tsv", sep="\t", dtype=str, keep_default_na=False)
    assert all(t in held for t in refs["toxic_sentence"]) and all(t in held for t in refs["neutral_sentence"])
    new = pd.read_csv(fetched / "textdetox2025" / "test_inputs_new.tsv", sep="\t", dtype=str, keep_default_na=False)
    assert set(new["lang"]) == {"fr", "he", "hin", "it", "ja", "tt"} and all(t in held for t in new["toxic_sentence"])
    human = pd.read_csv(fetched / "russe2022" / "human_eval_test.csv", dtype=str, keep_default_na=False)
    assert all(t in held for t in human["method_output"]) and all(t in held for t in human["original"])
    assert registry.WHOLE_SPLIT_SHARE == 0.5
