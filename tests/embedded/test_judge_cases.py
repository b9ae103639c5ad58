"""The offline default judges as a person would, in every language: on cases written by
people for each of the 15 languages (``data/judge_cases.tsv``: a toxic comment, a polite
rewrite that keeps its content, a deletion that keeps a fragment, an unrelated sentence, and
the polite rewrite translated into another language), the polite rewrite gets the highest J.

The cases were written before the preset was measured on them and nothing is fitted to
them: they are a test, not training data."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from detox_core.models import meaning
from detox_core.metrics.embedded.preset import EmbeddedPreset

CASES = pd.read_csv(Path(__file__).parent / "data" / "judge_cases.tsv", sep="\t", dtype=str, quoting=3,
                    keep_default_na=False)
KINDS = ("copy", "unrelated", "other language", "deletion")
#: Known failures, each with its reason (strict: a fix makes the test say so).
HINGLISH = ("Hinglish is romanised: its English translation is in the same script and lingua does not know "
            "Hinglish, so it is not caught; and the STA heads read Hinglish weakly (its polite rewrites get "
            "P(neutral) 0.2-0.5)")
KNOWN = {
    ("hin", 1, "other language"): HINGLISH,
    ("hin", 2, "unrelated"): HINGLISH,
}


@pytest.fixture(scope="module")
def scored(embedded_models):
    if meaning.unavailable_reason():
        pytest.skip(f"the model of meaning does not run here: {meaning.unavailable_reason()}")
    rows = []
    for lang, group in CASES.groupby("lang", sort=False):
        if not EmbeddedPreset.covers(lang):
            pytest.fail(f"the embedded preset does not cover {lang}")
        inputs, outputs, kinds = [], [], []
        for case in group.itertuples():
            for kind, text in (("polite", case.polite), ("copy", case.toxic), ("unrelated", case.unrelated),
                               ("other language", case.other_text), ("deletion", case.deletion)):
                inputs.append(case.toxic)
                outputs.append(text)
                kinds.append(kind)
        frame = EmbeddedPreset(langs=[lang] * len(inputs)).score(inputs, outputs)
        frame["lang"], frame["kind"], frame["case"] = lang, kinds, [k // 5 for k in range(len(kinds))]
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def test_every_language_has_three_cases():
    assert CASES.groupby("lang").size().to_dict() == {lang: 3 for lang in EmbeddedPreset.languages}


@pytest.mark.parametrize("lang", EmbeddedPreset.languages)
@pytest.mark.parametrize("case", range(3))
@pytest.mark.parametrize("kind", KINDS)
def test_a_polite_rewrite_beats_a_copy_an_unrelated_sentence_another_language_and_a_deletion(scored, lang, case, kind,
                                                                                             request):
    reason = KNOWN.get((lang, case)) or KNOWN.get((lang, case, kind))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    c = scored[(scored["lang"] == lang) & (scored["case"] == case)]
    j = c.set_index("kind")["j"]
    assert j["polite"] > j[kind], (
        f"{lang} case {case}: J of the polite rewrite {j['polite']:.3f} is not above the {kind} "
        f"{j[kind]:.3f}\n{c[['kind', 'sta', 'sim', 'fl', 'j']].round(3).to_string()}")
