"""``detox_core.score``, the notebook API: each pair's language given or detected (never
silently Russian), means with 95% intervals per system, and a signature that is a string
and survives ``pd.concat``; the README's example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import detox_core
from detox_core.languages.detect import detect
from detox_core.errors import DetoxInputError
from detox_core.metrics import get_preset

README = Path(__file__).resolve().parent.parent / "README.md"

ENGLISH = ["Stop talking nonsense, you stupid idiot, nobody wants to hear it",
           "What a dumb question, are you a complete moron or what?"]
POLITE = ["Please stop talking nonsense, nobody wants to hear it", "What an odd question, are you sure about it?"]


@pytest.fixture(scope="module")
def english(embedded_models):
    return detox_core.score(ENGLISH, {"polite": POLITE, "copy": ENGLISH}, n_boot=200)


def test_english_without_a_language_is_scored_as_english(english):
    assert set(english.frame["lang"]) == {"en"}
    assert "|lang:en|langid:detected|" in english.signature
    # the English models judge: a polite rewrite is less toxic than a copy of the insult
    systems = english.systems
    assert systems.loc["polite", "sta"] > systems.loc["copy", "sta"]
    assert systems.loc["polite", "j"] > systems.loc["copy", "j"]


def test_the_embedded_preset_never_scores_other_scripts_as_russian(embedded_models):
    with pytest.raises(DetoxInputError, match="not in Cyrillic.*give each pair's language"):
        get_preset("embedded").score(ENGLISH, POLITE)


def test_a_language_that_cannot_be_told_is_refused_with_a_message(embedded_models):
    with pytest.raises(DetoxInputError, match=r"cannot be told.*pair 1: 'ok'.*lang="):
        detox_core.score(["ok"], ["fine"])
    # given, it scores
    assert detox_core.score(["ok"], ["fine"], lang="en", n_boot=10).frame["lang"].tolist() == ["en"]


def test_a_short_pair_takes_the_language_its_sure_neighbours_agree_on(embedded_models):
    result = detox_core.score([*ENGLISH, "ok you idiot"], [*POLITE, "ok"], n_boot=10)
    assert result.frame["lang"].tolist() == ["en", "en", "en"]


def test_a_language_the_preset_does_not_cover_is_refused():
    with pytest.raises(DetoxInputError, match=r"russe2022 preset covers Russian only.*English \(en\)"):
        detox_core.score(ENGLISH, POLITE, preset="russe2022")


def test_each_system_has_means_with_intervals_and_the_signature(english):
    systems = english.systems
    for col in ("j", "sta", "sim", "fl"):
        assert (systems[f"{col}_low"] <= systems[col]).all() and (systems[col] <= systems[f"{col}_high"]).all()
    assert (systems["n"] == 2).all() and (systems["signature"] == english.signature).all()
    assert english.frame.groupby("system")["j"].mean()["polite"] == pytest.approx(systems.loc["polite", "j"])
    assert "polite: J " in str(english) and english.signature in str(english)


def test_several_languages_are_averaged_as_textdetox_ranks(embedded_models):
    inputs = [*ENGLISH, "Du bist ein kompletter Idiot, halt endlich die Klappe"]
    result = detox_core.score(inputs, [*POLITE, "Du irrst dich, bitte sei still"], n_boot=50)
    per_language = result.frame.groupby("lang")["j"].mean()
    assert result.systems.loc["system", "averaged"] == "over 2 languages"
    assert result.j == pytest.approx(per_language.mean())  # each language counts once
    assert "|lang:de,en|" in result.signature


def test_the_signature_is_a_string_that_survives_concat_and_merge(english, embedded_models):
    russian = detox_core.score(["ты дебил, заткнись уже наконец"], ["ты неправ, помолчи"], n_boot=10)
    assert isinstance(english.signature, str) and english.signature.startswith("preset:embedded|version:")
    both = pd.concat([english.frame, russian.frame], ignore_index=True)
    assert both["signature"].notna().all()
    assert set(both["signature"]) == {english.signature, russian.signature}
    merged = english.frame.merge(english.systems[["j"]].rename(columns={"j": "system_j"}), left_on="system",
                                 right_index=True)
    assert (merged["signature"] == english.signature).all()


def test_mismatched_lengths_are_refused():
    with pytest.raises(DetoxInputError, match="one output per input"):
        detox_core.score(ENGLISH, POLITE[:1], lang="en")
    with pytest.raises(DetoxInputError, match="a language per input"):
        detox_core.score(ENGLISH, POLITE, lang=["en"])


def test_the_readme_example_runs(embedded_models, capsys):
    block = re.search(r"<!-- notebook example -->\s*```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block, "the README has no notebook example"
    code = block.group(1)
    assert len(code.strip().splitlines()) <= 6
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    result = namespace["result"]
    assert isinstance(result, detox_core.Scores) and set(result.frame["lang"]) == {"en"}
    assert result.signature in capsys.readouterr().out


def test_a_language_outside_the_editions_is_named_and_refused_not_taken_for_a_near_one():
    dutch = ["Jij bent echt een complete idioot, hou gewoon je mond", "Wat een domme vraag, ben je soms achterlijk?"]
    assert [code for code, _ in detect(dutch)] == ["nl", "nl"]
    with pytest.raises(DetoxInputError, match=r"covers .*Dutch \(nl\)"):
        detox_core.score(dutch, dutch)


def test_outputs_that_are_not_texts_are_refused_with_their_position():
    with pytest.raises(DetoxInputError, match=r"output 2 is None"):
        detox_core.score(ENGLISH, [POLITE[0], None], lang="en")
    with pytest.raises(DetoxInputError, match=r"output 1 is \['x'\] \(list\)"):
        detox_core.score(ENGLISH[:1], [["x"]], lang="en")
    with pytest.raises(DetoxInputError, match="no inputs"):
        detox_core.score([], [])


def test_a_pair_without_a_score_is_left_out_of_the_language_means(embedded_models):
    inputs = [*ENGLISH, "ты дебил, заткнись уже наконец"]
    result = detox_core.score(inputs, [*POLITE, "ты неправ, помолчи"], [["Please stop it"], [], ["ты неправ"]],
                              n_boot=20)
    frame = result.frame
    assert frame["chrf"].isna().tolist() == [False, True, False]
    expected = frame.dropna(subset=["chrf"]).groupby("lang")["chrf"].mean().mean()
    assert result.systems.loc["system", "chrf"] == pytest.approx(expected)  # each language once, NaN left out


def test_other_cyrillic_languages_are_named_and_refused_never_scored_as_russian_or_ukrainian():
    # Bulgarian and Macedonian use Russian's letters (nearly); Serbian, Belarusian and Kazakh have their own.
    texts = {"bg": "Ти си пълен идиот и никой не те харесва, махай се оттук веднага",
             "sr": "Ти си потпуни идиот и нико те не воли, одлази одавде одмах",
             "mk": "Ти си целосен идиот и никој не те сака, оди си веднаш од тука",
             "be": "Ты поўны ідыёт, і цябе ніхто не любіць, ідзі адсюль",
             "kk": "Сен нағыз ақымақсың, сені ешкім жақсы көрмейді, кет бұл жерден"}
    found = dict(zip(texts, detect(list(texts.values()))))
    assert {lang: code for lang, (code, _) in found.items()} == {lang: lang for lang in texts}
    with pytest.raises(DetoxInputError, match=r"covers .*Bulgarian \(bg\)"):
        detox_core.score([texts["bg"]], ["Ти грешиш"])
    # Ukrainian with і alone (no ї, є, ґ) is still Ukrainian, Russian Russian, Tatar Tatar.
    assert [c for c, _ in detect(["Ти дурень, йди геть, ніхто тебе не слухає тут",
                                  "Ты дурак, иди отсюда, никто тебя тут не слушает",
                                  "Син ахмак, моннан кит, сине беркем дә тыңламый"])] == ["uk", "ru", "tt"]


def test_a_table_of_systems_a_generator_and_bad_references(embedded_models):
    table = pd.DataFrame({"polite": POLITE, "copy": ENGLISH})
    result = detox_core.score(ENGLISH, table, lang="en", n_boot=20)
    assert list(result.systems.index) == ["polite", "copy"]  # the columns are the systems, not two outputs
    assert result.frame.loc[result.frame["system"] == "copy", "output"].tolist() == ENGLISH
    assert detox_core.score(ENGLISH, (o for o in POLITE), lang="en", n_boot=20).frame["output"].tolist() == POLITE
    for bad in (float("nan"), None, 5):
        with pytest.raises(DetoxInputError, match=r"the reference of input 2 is .*not a text"):
            detox_core.score(ENGLISH, POLITE, [POLITE[0], bad], lang="en")
    with pytest.raises(ValueError, match="n_boot .* 1 to 10,000"):
        detox_core.score(ENGLISH, POLITE, lang="en", n_boot=0)


def test_a_short_english_sentence_is_english_by_its_words(embedded_models):
    """lingua alone hesitates between Romanian and English on it; its words are everyday English."""
    result = detox_core.score(["this damn politician is a liar"], ["this politician is not honest"])
    assert result.frame["lang"].tolist() == ["en"] and "|langid:detected|" in result.signature
    assert [code for code, _ in detect(["you are an idiot", "ты дурак", "eres un idiota"])] == ["en", "ru", "es"]


def test_the_signature_names_only_what_made_the_numbers(embedded_models):
    without = detox_core.score(["you are a stupid idiot"], ["you are wrong"], lang="en")
    # no references: no chrF; the embedded preset has no calibration: none named
    assert "chrf:" not in without.signature and "calibrat" not in without.signature
    assert len(without.signature) < 400
    with_refs = detox_core.score(["you are a stupid idiot"], ["you are wrong"], ["you are not right"], lang="en")
    assert "|chrf:chrF2(nc=6,nw=0,space=no,eff=yes)@sacrebleu-" in with_refs.signature


def test_one_pair_has_a_mean_and_no_interval_said_so(embedded_models, capsys):
    result = detox_core.score(["you are a stupid idiot", "ты тупой идиот"], ["you are wrong", "ты неправ"],
                              lang=["en", "ru"])
    row = result.systems.loc["system"]
    assert 0 <= row["j"] <= 1 and pd.isna(row["j_low"]) and row["j_interval"] == "n/a, too few pairs"
    print(result)
    assert "J %.3f (interval n/a, too few pairs)" % row["j"] in capsys.readouterr().out


def test_the_library_the_command_and_summary_csv_give_the_same_figures(embedded_models, tmp_path, capsys):
    """One summary path: detox_core.score, `detox score --json` and summary.csv agree on each mean,
    its interval and the signature."""
    import json

    from detox_core import cli

    inputs, outputs = tmp_path / "in.txt", tmp_path / "team.txt"
    inputs.write_text("\n".join(ENGLISH) + "\n", encoding="utf-8")
    outputs.write_text("\n".join(POLITE) + "\n", encoding="utf-8")
    library = detox_core.score(ENGLISH, POLITE, lang="en").systems.loc["system"]
    assert cli.main(["score", "--inputs", str(inputs), "--preds", str(outputs), "--lang", "en", "--json", "-q",
                     "--out", str(tmp_path / "out")]) == 0
    (system,) = json.loads(capsys.readouterr().out)["systems"]
    summary = pd.read_csv(tmp_path / "out" / "summary.csv").iloc[0]
    for col in ("j", "sta", "sim", "fl"):
        assert system["intervals"][col]["mean"] == pytest.approx(library[col], abs=1e-9)
        assert system["intervals"][col]["low"] == pytest.approx(library[f"{col}_low"], abs=1e-9)
        assert system["intervals"][col]["high"] == pytest.approx(library[f"{col}_high"], abs=1e-9)
        assert summary[f"{col}_low"] == pytest.approx(library[f"{col}_low"], abs=1e-5)
    assert system["signature"] == summary["signature"] == library["signature"]


def test_importing_the_library_brings_in_no_app_database_or_model_framework():
    """`import detox_core.api` stays light (well under a second): Streamlit, SQLAlchemy, torch and
    transformers come with the call that needs them."""
    import subprocess
    import sys

    code = ("import sys, detox_core, detox_core.api; "
            "print(','.join(m for m in ('streamlit', 'sqlalchemy', 'torch', 'transformers', 'sklearn') "
            "if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""


def test_a_string_is_not_taken_for_a_list_of_characters():
    with pytest.raises(DetoxInputError, match=r"inputs is one string .*give a list of texts"):
        detox_core.score("ты дурак", ["ты неправ"], lang="ru")
    with pytest.raises(DetoxInputError, match=r"outputs is one string"):
        detox_core.score(["ты дурак"], "ты неправ", lang="ru")


@pytest.mark.parametrize("kwargs, words", [
    ({"outputs": {None: ["a calm reply"]}}, "a system's name is None"),
    ({"outputs": {"": ["a calm reply"]}}, "a system's name is ''"),
    ({"outputs": {"bad\udc80name": ["a calm reply"]}}, "the system name .* lone surrogate at character 4"),
    ({"lang": 5}, "lang is 5 \\(int\\)"),
    ({"lang": ["en", 5]}, "lang is \\['en', 5\\]"),
    ({"outputs": ["a calm \udcff reply"]}, "output 1 holds a lone surrogate at character 8"),
    ({"inputs": ["you \ud800 idiot"]}, "input 1 holds a lone surrogate at character 5"),
    ({"references": ["a \udc80"]}, "reference of input 1 holds a lone surrogate"),
])
def test_bad_arguments_are_refused_with_words_not_a_traceback(kwargs, words):
    """Before: KeyError, TypeError and UnicodeEncodeError from deep inside the scoring."""
    args = {"inputs": ["you are an idiot"], "outputs": ["a calm reply"], "preset": "embedded", **kwargs}
    with pytest.raises(DetoxInputError, match=words):
        detox_core.score(**args)
