"""Live scoring's star with eight kinds of candidates in every language of the editions, as
the page scores them (the offline embedded preset, the input's P(neutral) beside each
rewrite's, the language's toxic lexicon): the star is on the polite or the loose paraphrase
or on none, never on a copy (unchanged or in other case), an unrelated sentence, another
language, a fragment or a more toxic rewrite; a real paraphrase is never called unrelated.

The candidates (tests/live/data/live_candidates.tsv) were written for this test; no
threshold was chosen on them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from detox_core.editions.registry import all_languages
from detox_core.models import meaning
from detox_core.languages import IDENTIFIED, script_of
from detox_core.lexicons import load_lexicons
from detox_core.metrics import score_frame
from detox_core.live.best import choose_best
from detox_core.live.inputs import live_lexicon

CASES = pd.read_csv(Path(__file__).resolve().parent / "data" / "live_candidates.tsv", sep="\t", dtype=str,
                    quoting=3, keep_default_na=False)
KINDS = ("polite", "loose", "copy", "case_copy", "unrelated", "translated", "fragment", "more_toxic")
NEVER_BEST = {"copy", "case_copy", "unrelated", "translated", "fragment", "more_toxic"}


def case_copy(text: str) -> str:
    """The input in other case, or with other end punctuation where the script has no case."""
    upper = text.upper()
    return upper if upper != text else text.rstrip("。.!?।؟") + "!"


class _Corpus:  # the multilingual corpus chosen in the sidebar: the languages' built lexicons
    lexicon = frozenset()
    multilingual = True


def test_every_language_of_the_editions_has_its_cases():
    assert set(CASES["lang"]) == set(all_languages())


@pytest.mark.parametrize("lang", sorted(CASES["lang"].unique()))
def test_the_star_goes_to_a_paraphrase_or_to_none(lang, embedded_models, real_data):
    if meaning.unavailable_reason():
        pytest.skip(f"the model of meaning does not run here: {meaning.unavailable_reason()}")
    lexicon = live_lexicon(_Corpus(), lang, load_lexicons(real_data.parent))
    for case in CASES[CASES["lang"] == lang].itertuples():
        texts = {"polite": case.polite, "loose": case.loose, "copy": case.toxic, "case_copy": case_copy(case.toxic),
                 "unrelated": case.unrelated, "translated": case.translated, "fragment": case.fragment,
                 "more_toxic": case.more_toxic}
        candidates = [texts[k] for k in KINDS]
        both = score_frame([case.toxic] * (len(KINDS) + 1), [*candidates, case.toxic], [[]] * (len(KINDS) + 1),
                     preset="embedded", calibrated=True, langs=[lang] * (len(KINDS) + 1))
        frame = both.iloc[:len(KINDS)]
        choice = choose_best(case.toxic, candidates, frame["j"].tolist(), lang, sta=frame["sta_raw"].tolist(),
                             sta_input=float(both["sta_raw"].iloc[-1]), lexicon=lexicon)
        seen = {kind: choice.excluded.get(k) for k, kind in enumerate(KINDS)}
        best = KINDS[choice.best] if choice.best is not None else None
        assert best not in NEVER_BEST, (lang, best, seen, frame["j"].round(2).tolist())
        assert best is None or round(float(frame["j"].iloc[choice.best]), 2) > 0
        # A paraphrase is a rewrite: never left out for what it is (at most for a J that shows as 0.00).
        assert seen["polite"] in (None, "zero") and seen["loose"] in (None, "zero"), (lang, seen)
        assert seen["copy"] == "copy" and seen["case_copy"] == "copy", (lang, seen)
        assert seen["more_toxic"] == "more_toxic", (lang, seen)
        assert seen["fragment"] == "fragment", (lang, seen)
        other_script = script_of(lang) != ("latin" if case.translated.isascii() else script_of("ru"))
        if lang in IDENTIFIED or other_script:
            assert seen["translated"] == "language", (lang, seen)
