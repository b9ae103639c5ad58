"""Ranking pages state their preset's measured agreement with people, and warn when weak."""

from __future__ import annotations

import threading

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.analysis import preset_agreement
from detox_core.editions import get_edition
from tests.app.test_leaderboard_compare import COMPARE, LEADERBOARD, store_scored
from detox_core.data import PROJECT_ROOT
from detox_core.editions import editions

SUBMISSIONS = str(PROJECT_ROOT / "pages" / "submissions.py")
EDITION = next(e for e in editions() if e.human_systems)


def result(rho: float) -> preset_agreement.PresetAgreement:
    return preset_agreement.PresetAgreement(
        preset="embedded", calibrated=True, edition=EDITION.name, languages=["ru"], n_pairs=2625,
        auc=[0.708, 0.687, 0.727], n_systems=3, spearman=[rho, rho - 0.3, 1.0],
        system_j={"a": 0.6, "b": 0.5, "<b>c</b>": 0.4}, human_j={"a": 0.61, "b": 0.56, "<b>c</b>": 0.16},
        measured="2026-11-23 18:00", seconds=14.0)


@pytest.fixture
def stored_two(tiny_data):
    outputs = tiny_data / "russe2022" / "outputs"
    store_scored(tiny_data, [(f"{n}_test.txt", (outputs / f"{n}_test.txt").read_bytes())
                             for n in ("delete", "copy")], "shipped")
    return tiny_data


@pytest.fixture
def scored(stored_two, monkeypatch):
    monkeypatch.setattr(preset_agreement, "measurable_editions", lambda root=None: [get_edition(EDITION.name)])
    return stored_two


def texts(at: AppTest) -> str:
    return " ".join([c.value for c in at.caption] + [w.value for w in at.warning])


@pytest.mark.parametrize("page", [LEADERBOARD, COMPARE, SUBMISSIONS])
def test_each_ranking_page_states_the_agreement(scored, monkeypatch, page):
    monkeypatch.setattr(preset_agreement, "stored",
                        lambda preset, calibrated=True, edition=None, pool=None: result(1.0))
    at = AppTest.from_file(page, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    said = texts(at)
    assert "ROC-AUC vs human J 0.71 [0.69, 0.73] over 2,625 judged outputs" in said
    assert "system-level Spearman 1.00 [0.70, 1.00] over 3 systems" in said
    assert not any("may not be the order people would give" in w.value for w in at.warning)


def test_a_weak_preset_says_its_ranking_may_not_be_peoples(scored, monkeypatch):
    monkeypatch.setattr(preset_agreement, "stored",
                        lambda preset, calibrated=True, edition=None, pool=None: result(0.43))
    at = AppTest.from_file(LEADERBOARD, default_timeout=60).run()
    assert not at.exception
    warning = next(w.value for w in at.warning if "may not be the order people would give" in w.value)
    assert "Spearman 0.43" in warning
    per_system = next(d.value for d in at.dataframe if "human" in d.value.columns)
    assert list(per_system["system"]) == ["a", "b", "<b>c</b>"]  # names as text, in the human order


def test_without_human_judgements_the_shipped_figures_are_stated_and_else_not_measurable(stored_two, monkeypatch):
    """The tiny data folder has no human file: the embedded preset's shipped figures are stated all
    the same (as on every server); a preset without shipped figures is not measurable here."""
    at = AppTest.from_file(LEADERBOARD, default_timeout=60).run()
    assert not at.exception
    shipped = preset_agreement.shipped("embedded")
    assert f"system-level Spearman {shipped.spearman[0]:.2f}" in texts(at)
    monkeypatch.setattr(preset_agreement, "shipped_figures", lambda: {})
    at = AppTest.from_file(LEADERBOARD, default_timeout=60).run()
    assert not at.exception
    assert "not measurable here (no human judgements in the data folder)" in texts(at)


@pytest.fixture
def background(monkeypatch):
    """No background measurement started before; ``wait()`` joins the ones started since."""
    from detox_core.ui.widgets import preset_agreement as section

    monkeypatch.setattr(section, "_BACKGROUND", {})

    def wait() -> None:
        for thread in threading.enumerate():
            if thread.name.startswith("agreement-"):
                thread.join(30)

    return wait


def test_a_measurement_that_fails_does_not_take_the_page_down(scored, monkeypatch, background):
    """The embedded preset with no shipped or kept figures is measured in the background; if
    that breaks (a damaged model file), the ranking still shows, with the reason as text."""
    monkeypatch.setattr(preset_agreement, "stored", lambda *a, **k: None)

    def broken(*a, **k):
        raise RuntimeError("unpickling <b>sta.pkl</b> failed")

    monkeypatch.setattr(preset_agreement, "measure", broken)
    at = AppTest.from_file(LEADERBOARD, default_timeout=60).run()
    background()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    note = next(c.value for c in at.caption if "could not be measured here" in c.value)
    assert "\\<b\\>" in note or "&lt;b&gt;" in note  # the message as text, not markup
    assert set(at.dataframe[-1].value["system"]) == {"delete_test.txt", "copy_test.txt"}


def test_the_embedded_preset_is_measured_in_the_background_once_and_kept(scored, monkeypatch, background):
    """A first score's page is not held while the preset's agreement with people is measured
    (minutes on a CPU): the page says it is being measured and shows the stored submissions;
    the next run of the page states the kept figures, measured once."""
    calls, release = [], threading.Event()

    def measure(preset, calibrated=True, edition=None, pool=None, progress=None):
        calls.append(preset)
        release.wait(30)  # still measuring while the page is drawn
        return kept.append(result(0.95))

    kept: list = []
    monkeypatch.setattr(preset_agreement, "stored", lambda *a, **k: kept[0] if kept else None)
    monkeypatch.setattr(preset_agreement, "measure", measure)
    at = AppTest.from_file(SUBMISSIONS, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "being measured in the background since" in texts(at) and not kept
    assert [h.value for h in at.subheader if h.value == "Stored submissions"] and at.dataframe
    at.run()  # a second run while it measures starts nothing more
    release.set()
    background()
    at.run()
    assert calls == ["embedded"] and "system-level Spearman 0.95" in texts(at)
