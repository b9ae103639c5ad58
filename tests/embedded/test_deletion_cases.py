"""The offline default prefers a polite rewrite to a deletion, in 11 languages: on cases written
by people for this test (``data/deletion_cases.tsv``: a toxic comment, a polite rewrite that
keeps its point, a deletion that leaves a broken sentence, a deletion that leaves it rude, and
apart a comment with one swear word whose clean deletion leaves a good sentence).

The cases were written before the heads were measured on them, and nothing is trained or tuned
on them: they are a test, not training data. One choice of recipe 6 was made with them in view
(SIM's second head, over the cosine and the length, learns from the same kinds of examples as
recipe 5's, so that a loose polite paraphrase is not read as another claim): their counts are
"chosen on" for it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from detox_core.models import meaning
from detox_core.metrics.embedded.preset import EmbeddedPreset

CASES = pd.read_csv(Path(__file__).parent / "data" / "deletion_cases.tsv", sep="\t", dtype=str, quoting=3,
                    keep_default_na=False)
LANGS = sorted(CASES["lang"].unique())
#: Known failures, each with its reason (strict: a fix makes the test say so). The first case of
#: most languages is a loose paraphrase ("Please stop talking for a moment" for "You are a fucking
#: idiot, shut up already"): SIM, learnt from references that mostly keep the input's wording, reads
#: its cosine (0.86-0.88) as meaning partly lost, and FL finds the short polite sentence less fluent
#: than its input; the deletions keep cosines of 0.89-0.99.
LOOSE = ("a loose paraphrase: SIM (cosine 0.86-0.88 with the input) reads it as meaning partly lost, where the "
         "deletion keeps a cosine near its input's")
KNOWN: dict[tuple, str] = {
    ("ja", 0, "broken"): LOOSE,
    ("zh", 0, "broken"): LOOSE + "; FL misses the hole the deletion left in Chinese (0.77)",
    ("en", 1, "broken"): LOOSE + " ('Please leave now.' for a long insult: SIM 0.04)",
    ("ar", 0, "rude"): LOOSE + "; FL finds the polite Arabic rewrite less fluent than its input (0.37)",
    ("uk", 0, "rude"): LOOSE + " (SIM 0.27), and FL finds it less fluent than its input (0.57)",
    ("de", 1, "rude"): "the STA heads find the rude German deletion almost as non-toxic as the polite rewrite "
                       "(0.53 against 0.59)",
    ("hi", 0, "clean"): "FL finds the clean Hindi deletion a little less fluent than its input (0.73)",
    ("zh", 0, "rude"): LOOSE + "; the STA heads find 白痴 (idiot) less toxic than 傻逼",
    ("en", 1, "rude"): LOOSE + " ('Please leave now.': SIM 0.04)",
    ("ja", 1, "clean"): "FL finds the clean Japanese deletion less fluent than its input",
}


@pytest.fixture(scope="module")
def scored():
    if meaning.unavailable_reason():
        pytest.fail(f"the model of meaning does not run here: {meaning.unavailable_reason()}")
    rows = []
    for k, case in enumerate(CASES.itertuples()):
        kinds = {"polite": (case.toxic, case.polite), "broken": (case.toxic, case.broken),
                 "rude": (case.toxic, case.rude), "clean": (case.clean_toxic, case.clean)}
        frame = EmbeddedPreset(langs=[case.lang] * len(kinds)).score([x for x, _ in kinds.values()],
                                                                      [y for _, y in kinds.values()])
        frame["kind"], frame["lang"], frame["case"] = list(kinds), case.lang, k
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def test_the_cases_cover_at_least_ten_languages():
    assert len(LANGS) >= 10 and (CASES.groupby("lang").size() >= 2).all()


def _case(scored, lang, n):
    return scored[(scored["lang"] == lang)].groupby("case").get_group(sorted(scored.loc[scored["lang"] == lang, "case"]
                                                                             .unique())[n]).set_index("kind")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("n", range(2))
@pytest.mark.parametrize("kind", ["broken", "rude"])
def test_a_polite_rewrite_beats_a_deletion_that_leaves_a_broken_or_rude_sentence(scored, lang, n, kind, request):
    reason = KNOWN.get((lang, n, kind))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    c = _case(scored, lang, n)
    assert c.loc["polite", "j"] > c.loc[kind, "j"], (
        f"{lang} case {n}: J of the polite rewrite {c.loc['polite', 'j']:.3f} is not above the {kind} deletion's "
        f"{c.loc[kind, 'j']:.3f}\n{c[['sta', 'sim', 'fl', 'j']].round(3).to_string()}")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("n", range(2))
def test_a_clean_deletion_of_one_swear_word_is_not_punished_as_broken(scored, lang, n, request):
    reason = KNOWN.get((lang, n, "clean"))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    c = _case(scored, lang, n)
    assert c.loc["clean", "fl"] >= 0.8 and c.loc["clean", "fl"] > c.loc["broken", "fl"], (
        f"{lang} case {n}: FL of the clean deletion {c.loc['clean', 'fl']:.3f}, of the broken one "
        f"{c.loc['broken', 'fl']:.3f}")
    assert c.loc["clean", "sim"] >= 0.5, f"{lang} case {n}: the clean deletion keeps the meaning, SIM {c.loc['clean', 'sim']:.3f}"
