"""Per-language agreement with people: the TextDetox 2024 human evaluation against the
preset's mean J on the nine-language meta-evaluation sample, and how a ranking page
states it (a warning naming the weak languages)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from detox_core.analysis import preset_agreement_by_language as la
from detox_core.data import PROJECT_ROOT


@pytest.fixture(scope="module")
def textdetox_data() -> Path:
    root = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data"))
    if la.measurable_edition(root) is None:
        msg = "the TextDetox 2024 sample and human table are not fetched: run `make data`"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return root


def test_the_embedded_preset_is_measured_per_language_against_the_human_table(textdetox_data):
    result = la.measure("embedded")
    assert sorted(result.figures) == ["am", "ar", "de", "en", "es", "hi", "ru", "uk", "zh"]
    for lang, fig in result.figures.items():
        # Six systems (Team_SINAI found under its human-table name "Team SINAI"), 80 shared inputs.
        assert fig.n_systems == 6 and fig.n_inputs == 80, lang
        assert "Team_SINAI" in fig.human_j
        low, point, high = fig.spearman[1], fig.spearman[0], fig.spearman[2]
        assert -1.0 <= low <= high <= 1.0 and -1.0 <= point <= 1.0
        assert all(0.0 <= v <= 1.0 for v in fig.system_j.values())
        assert set(fig.auc) == set(la.JUDGES) and all(0.0 <= v <= 1.0 for v in fig.auc.values())
        assert fig.weak == (point < 0.8)
    assert result.mean_spearman == pytest.approx(np.mean([f.spearman[0] for f in result.figures.values()]))
    # What every server states (the shipped figures, `detox agreement --ship`) is what is measured here.
    la._MEMORY.clear()
    again = la.stored("embedded")
    assert again is not None and again is not result
    for lang, fig in result.figures.items():
        assert again.figures[lang].spearman == pytest.approx(fig.spearman, abs=0.01), lang


def _result(figures: dict[str, float]) -> la.LanguageAgreement:
    return la.LanguageAgreement(
        preset="embedded", calibrated=True, edition="textdetox2024", measured="2026-11-25 10:00", seconds=9.0,
        figures={c: la.LanguageFigure(lang=c, n_systems=6, n_inputs=80, spearman=[r, r - 0.2, min(1.0, r + 0.1)],
                                      system_j={"x": 0.5}, human_j={"x": 0.6},
                                      auc={j: 0.7 for j in la.JUDGES})
                 for c, r in figures.items()})


def _page(languages):
    from detox_core.ui.widgets.preset_agreement import language_note

    language_note("embedded", True, languages, key="t")


def test_a_ranking_page_names_the_languages_where_agreement_is_weak(textdetox_data, monkeypatch):
    monkeypatch.setattr(la, "stored", lambda *a, **k: _result({"de": 1.0, "en": -0.64, "zh": 0.26, "ru": 0.89}))
    at = AppTest.from_function(_page, args=(["de", "en", "zh", "fr"],), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    warning = at.warning[0].value
    assert "German +1.00, English -0.64, Chinese +0.26" in warning
    assert "Weak (below 0.80) in English, Chinese" in warning and "German" not in warning.split("Weak")[1]
    # the mean is over the four judged languages: the one not listed is named with its figure
    assert "mean +0.38 over the 4 languages judged (with Russian +0.89)" in warning
    table = at.dataframe[0].value
    assert list(table["lang"]) == ["German", "English", "Chinese"]  # French has no human figure: not listed


def test_strong_agreement_is_a_caption_and_russian_alone_shows_nothing(textdetox_data, monkeypatch):
    monkeypatch.setattr(la, "stored", lambda *a, **k: _result({"de": 1.0, "uk": 0.89}))
    at = AppTest.from_function(_page, args=(["de", "uk"],), default_timeout=60).run()
    assert not at.warning and "German +1.00, Ukrainian +0.89" in at.caption[0].value
    at = AppTest.from_function(_page, args=(["ru"],), default_timeout=60).run()
    assert not at.warning and not at.caption  # RUSSE-2022's own statement covers Russian


def test_a_language_the_preset_does_not_cover_gets_no_figure(textdetox_data, monkeypatch):
    """A Russian-only preset on a multilingual page: no per-language figure for languages it
    never scored, nothing measured for them."""
    from detox_core.metrics.embedded.preset import EmbeddedPreset

    monkeypatch.setattr(EmbeddedPreset, "trained_languages", classmethod(lambda cls: ("ru",)))
    monkeypatch.setattr(la, "stored", lambda *a, **k: _result({"de": 1.0, "en": -0.64}))
    at = AppTest.from_function(_page, args=(["de", "en"],), default_timeout=60).run()
    assert not at.exception and not at.warning and not at.caption and not at.dataframe


def test_judged_pairs_are_scored_with_their_own_languages_models(textdetox_data, tmp_path):
    """Human vs automatic scores a multilingual judged file with the embedded preset: each
    row by its language's models, never the Russian ones (the rows' languages are told)."""
    import pandas as pd

    from detox_core.analysis.meta_eval import preset_scores
    from detox_core.metrics.embedded.preset import EmbeddedPreset

    # the English row's output is German: another language for an English pair, not for a German one
    frame = pd.DataFrame({"toxic_sentence": ["you are a stupid idiot and a liar", "ты тупой идиот"],
                          "neutral_sentence": ["du bist ein Lügner und ein Idiot", "ты неправ"], "lang": ["en", "ru"]})
    got = preset_scores(frame, "embedded", cache_dir=tmp_path)
    own = EmbeddedPreset(langs=["en", "ru"]).score(frame["toxic_sentence"].tolist(), frame["neutral_sentence"].tolist())
    as_german = EmbeddedPreset(langs=["de", "ru"]).score(frame["toxic_sentence"].tolist(),
                                                        frame["neutral_sentence"].tolist())
    np.testing.assert_allclose(got["j"].to_numpy(float), own["j"].to_numpy(float), atol=1e-9)
    assert got.loc[0, "sim"] < as_german.loc[0, "sim"]  # read as English: the German output is another language
