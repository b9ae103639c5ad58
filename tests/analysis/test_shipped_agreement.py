"""The embedded preset's agreement with people is stated from the figures that ship with it, so a
link says the same on every server: a fresh one, one where someone measured or scored an edition
before, and an installed copy without the judged data (round 6: the same German link said "agrees
weakly, Spearman +0.37" on one server and "not measured yet" on another)."""

from __future__ import annotations

import pytest

from detox_core.analysis import preset_agreement, preset_agreement_by_language
from detox_core.analysis.meta_eval import scorer_identity
from detox_core.ui.widgets.preset_agreement import ranking_trust

TEXTDETOX2024 = ["am", "ar", "de", "en", "es", "hi", "ru", "uk", "zh"]


def test_the_shipped_figures_are_of_the_preset_as_it_scores_now():
    """Heads or the model of meaning changed without `detox agreement --ship`: this fails."""
    figures = preset_agreement.shipped_figures()
    assert figures, f"{preset_agreement.SHIPPED_FILE.name} is missing or stale: run `detox agreement --ship`"
    assert figures["identity"] == scorer_identity("embedded", None, None)
    russian = preset_agreement.shipped("embedded")
    assert russian.edition == "russe2022" and russian.n_systems == 7 and russian.n_pairs == 2625
    languages = preset_agreement_by_language.shipped("embedded")
    assert sorted(languages.figures) == TEXTDETOX2024
    assert all(f.n_systems == 6 and f.n_inputs == 80 for f in languages.figures.values())


@pytest.mark.parametrize("lang", ["ru", "de", "zh", "en"])
def test_the_star_says_the_same_on_a_fresh_server_without_the_judged_data(lang, tmp_path, monkeypatch):
    here = ranking_trust("embedded", True, lang)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))  # nothing measured, no judged sample, no cache
    preset_agreement_by_language._MEMORY.clear()
    preset_agreement._MEMORY.clear()
    fresh = ranking_trust("embedded", True, lang)
    assert fresh == here
    shipped = preset_agreement_by_language.shipped("embedded").figures[lang].spearman[0]
    if lang == "ru":  # Russian's figure is RUSSE-2022's, 7 systems
        assert fresh == ("agrees", "") and preset_agreement.shipped("embedded").spearman[0] >= 0.8
    elif shipped < preset_agreement.WEAK_SPEARMAN:
        assert fresh[0] == "weak" and f"Spearman {shipped:+.2f}" in fresh[1]
    else:
        assert fresh == ("agrees", "")
    assert "not measured yet" not in fresh[1]


def test_a_language_without_judgements_is_unknown_everywhere(tmp_path, monkeypatch):
    assert ranking_trust("embedded", True, "fr")[0] == "unknown"
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    trust, why = ranking_trust("embedded", True, "fr")
    assert trust == "unknown" and "no human judgements ship for French" in why


def test_a_shipped_file_of_another_shape_states_nothing_rather_than_failing(monkeypatch):
    monkeypatch.setattr(preset_agreement, "shipped_figures",
                        lambda: {"preset": "embedded", "russian": {"spearman": 1}, "languages": {"figures": [1]}})
    assert preset_agreement.shipped("embedded") is None
    assert preset_agreement_by_language.shipped("embedded") is None
