"""What a ranking page says of its preset: the measured agreement with people
(:mod:`detox_core.analysis.preset_agreement`), and a warning when it is weak."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from detox_core.analysis import preset_agreement, preset_agreement_by_language
from detox_core.editions import get_edition
from detox_core.metrics import registry
from detox_core.submissions.progress import ScoringProgress
from detox_core.ui.app import render
from detox_core.ui.app.auth import is_organizer
from detox_core.ui.app.models import shared_pool
from detox_core.vocab import language_name

#: Presets measured in the background when a page finds neither shipped nor kept figures (the
#: embedded preset when it no longer scores as its shipped figures were made): minutes on a
#: CPU (4,320 pairs per language, 8,750 in Russian), once a process, kept for every page and
#: server after; measured on the page, they held a first score's page for minutes.
MEASURED_IN_BACKGROUND = ("embedded",)
#: (what, preset, calibrated) -> the background measurement: started, error.
_BACKGROUND: dict[tuple[str, str, bool], dict] = {}
_BACKGROUND_LOCK = threading.Lock()
_ONE_AT_A_TIME = threading.Lock()  # two measurements at once would only halve each one's share of the cores
#: The background measurement yields the cores to people's scoring (a nice value, Linux).
BACKGROUND_NICE = 10


def _measure(preset: str, calibrated: bool, measure=None, what: str = "Agreement with people"):
    """``measure(preset, calibrated, pool=, progress=)`` (default: the RUSSE-2022
    measurement) with a progress bar; None (and the reason, as text) when it fails."""
    measure = measure or preset_agreement.measure
    bar = st.progress(0.0, text=f"Measuring: {what.lower()}")
    progress = ScoringProgress(
        lambda view: bar.progress(view.fraction, text=f"Measuring {what.lower()}: {view.text}"))

    try:
        return measure(preset, calibrated, pool=shared_pool(), progress=progress)
    except Exception as err:  # noqa: BLE001 - a model that cannot load must not take the ranking page down
        st.caption(f"{what} could not be measured here: {render.md(err, 300)}")
        return None
    finally:
        bar.empty()


def in_background(what: str, preset: str, calibrated: bool, measure: Callable) -> dict:
    """Start ``measure(preset, calibrated, pool=)`` in a thread of its own unless this process
    has started it already; its state: ``started`` (epoch seconds), ``error`` (the reason it
    failed, else None). The result is kept by ``measure`` where ``stored()`` reads it."""
    key = (what, preset, calibrated)
    with _BACKGROUND_LOCK:
        job = _BACKGROUND.get(key)
        if job is not None:
            return job
        job = _BACKGROUND[key] = {"started": time.time(), "error": None}
    pool = shared_pool()  # here: the thread has no Streamlit session to read the cached pool from

    def work() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)  # this thread's
        except (AttributeError, OSError):
            pass  # not Linux, or not allowed: it runs at the usual priority
        try:
            with _ONE_AT_A_TIME:
                measure(preset, calibrated, pool=pool)
        except Exception as err:  # noqa: BLE001 - said on the page instead of a figure
            job["error"] = str(err)

    threading.Thread(target=work, name=f"agreement-{what}-{preset}", daemon=True).start()
    return job


def _background_note(what: str, label: str, job: dict) -> None:
    if job["error"] is not None:
        st.caption(f"{what} of {label} with people could not be measured here: {render.md(job['error'], 300)}")
        return
    st.caption(f"{what} of {label} with people: being measured in the background since "
               f"{time.strftime('%H:%M', time.localtime(job['started']))} (minutes, once: the figures are then "
               "kept and shown here).")


def agreement_note(preset: str, calibrated: bool, languages: Sequence[str] = (), key: str = "agr") -> None:
    """One statement of how far ``preset``'s ranking agrees with people; a warning when weak.

    Reads the shipped or kept measurement; the embedded preset is measured in the background
    when there is none (:func:`in_background`), other presets by an organizer's click (they
    score 8,750 pairs with their models)."""
    weak_parts_note(preset, languages)
    editions = preset_agreement.measurable_editions()
    label = registry.preset_label(preset, calibrated)
    result = preset_agreement.stored(preset, calibrated)  # the shipped figures first: the same everywhere
    if result is None and not editions:
        st.caption(f"Agreement of {label} with people: not measurable here (no human judgements in the data folder).")
        return
    if result is None and preset in MEASURED_IN_BACKGROUND:
        language_note(preset, calibrated, languages, key=f"{key}_lang")
        _background_note("Agreement", label, in_background("russian", preset, calibrated, preset_agreement.measure))
        return
    if result is None:
        _offer_measure(f"Agreement of {label} with people: not measured yet for this preset as it scores now "
                       f"({editions[0].short} human evaluation).", "Measure it",
                       "Scores the judged outputs and the shipped systems' test outputs with this preset (8,750 "
                       "pairs) and keeps the figures", f"{key}_measure", lambda: _measure(preset, calibrated))
        return
    covered = language_note(preset, calibrated, languages, key=f"{key}_lang")
    langs = ", ".join(language_name(c) for c in result.languages)
    other = [c for c in languages if c not in result.languages and c not in covered]
    held = " (a fit on people scores: every figure from fits that never saw the pairs they score)" if result.held_out else ""
    text = (f"Agreement of {label} with people, measured on the {langs} human evaluation of "
            f"{registry_short(result.edition)}{held}: {result.sentence()}; {result.system()}. 95% bootstrap intervals.")
    if other:
        text += (" Other languages (" + ", ".join(language_name(c) for c in other)
                 + "): no human judgements ship for them, so the agreement there is unknown.")
    if result.weak:
        st.warning(f"This ranking may not be the order people would give: {text} "
                   f"Below {preset_agreement.WEAK_SPEARMAN:.2f} at system level, read the ranks with care and prefer "
                   "a preset that agrees better.",
                   icon=":material/warning:")
    else:
        st.caption(text)
    with st.expander(f"Agreement per system ({registry_short(result.edition)}, {langs})", icon=":material/groups:"):
        frame = pd.DataFrame({"system": list(result.system_j), "human": [result.human_j[s] for s in result.system_j],
                              "preset": list(result.system_j.values())}).sort_values("human", ascending=False)
        st.dataframe(frame, hide_index=True, key=f"{key}_systems", column_config={
            "system": st.column_config.TextColumn("System", help="Its test outputs ship with the data"),
            "human": st.column_config.NumberColumn("Human J", format="%.3f"),
            "preset": st.column_config.NumberColumn("Mean J", format="%.3f", help=f"Of {label}"),
        })
        st.caption(f"Mean J of {label}. Measured {result.measured} in {result.seconds:.0f} s. Where the human "
                   f"J come from: {registry_source(result.edition)}. A comparison with another table of human scores (the "
                   "published one beside a leaderboard) can give another Spearman.")


def registry_short(edition: str) -> str:
    return get_edition(edition).short


def registry_source(edition: str) -> str:
    return get_edition(edition).human_systems_source


def _covers(preset: str):
    try:
        return registry.preset_class(preset).covers
    except Exception:  # noqa: BLE001 - an unknown preset covers nothing here
        return lambda lang: False


def _offer_measure(text: str, button: str, help_: str, key: str, measure) -> None:
    """Say a figure is not measured yet; an organizer gets a button that measures it."""
    row = st.container(horizontal=True, vertical_alignment="center", wrap=True)
    row.caption(text)
    if is_organizer() and row.button(button, key=key, icon=":material/rule:", help=help_):
        if measure() is not None:
            st.rerun()


def _measure_languages(preset: str, calibrated: bool) -> preset_agreement_by_language.LanguageAgreement | None:
    return _measure(preset, calibrated, preset_agreement_by_language.measure, "Agreement per language")


def language_note(preset: str, calibrated: bool, languages: Sequence[str], key: str) -> set[str]:
    """The per-language agreement of ``preset`` with the TextDetox 2024 human evaluation,
    for the page's languages other than Russian that the preset covers
    (:mod:`detox_core.analysis.preset_agreement_by_language`), with a warning naming the languages
    where it is weak. Returns the languages that have human judgements there (measured or not)."""
    result = preset_agreement_by_language.stored(preset, calibrated)  # the shipped figures first
    edition = get_edition(result.edition) if result is not None else preset_agreement_by_language.measurable_edition()
    if edition is None:
        return set()
    covers = _covers(preset)
    # Russian has RUSSE-2022's statement; a language the preset does not cover has no figure.
    wanted = [c for c in languages if c != "ru" and c in edition.languages and covers(c)]
    if not wanted:
        return set()
    label = registry.preset_label(preset, calibrated)
    if result is None and preset in MEASURED_IN_BACKGROUND:
        _background_note("Agreement per language", label, in_background(
            "languages", preset, calibrated, preset_agreement_by_language.measure))
        return set(wanted)
    if result is None:
        _offer_measure(f"Agreement of {label} with people per language: not measured yet for this preset "
                       f"({edition.short} human evaluation, {len(edition.languages)} languages).",
                       "Measure per language", "Scores the meta-evaluation sample (6 systems x 80 inputs in each "
                       "language) with this preset and keeps the figures", f"{key}_measure",
                       lambda: _measure_languages(preset, calibrated))
        return set(wanted)
    shown = [c for c in wanted if c in result.figures]
    if not shown:
        return set(wanted)
    figures = [result.figures[c] for c in shown]
    listed = ", ".join(f"{language_name(f.lang)} {f.spearman[0]:+.2f}" for f in figures)
    # The mean is over every judged language; those not listed above are named with theirs.
    others = ", ".join(f"{language_name(f.lang)} {f.spearman[0]:+.2f}" for c, f in result.figures.items()
                       if c not in shown)
    text = (f"Agreement of {label} with people per language, on the {registry_short(result.edition)} human "
            f"evaluation (system-level Spearman of mean J against human J, six systems x 80 inputs of the "
            f"meta-evaluation sample each: two neighbours swapped move a figure by 0.06): {listed}; "
            f"mean {result.mean_spearman:+.2f} over the {len(result.figures)} languages judged"
            + (f" (with {others})." if others else ".") + _chosen_on(preset, result.edition))
    weak = [f for f in figures if f.weak]
    if weak:
        st.warning(f"{text} Weak (below {preset_agreement.WEAK_SPEARMAN:.2f}) in "
                   + ", ".join(language_name(f.lang) for f in weak)
                   + ": the ranking there may not be the order people would give; read it with care.",
                   icon=":material/warning:")
    else:
        st.caption(text)
    with st.expander(f"Agreement per language ({registry_short(result.edition)})", icon=":material/translate:"):
        frame = result.table()
        frame = frame[frame["lang"].isin(shown)].assign(lang=lambda f: f["lang"].map(language_name))
        words = preset_agreement_by_language.JUDGE_WORDS
        judges = {f"auc {j}": st.column_config.NumberColumn(
            f"AUC vs {words[j]}", format="%.2f",
            help=f"Sentence-level ROC-AUC of J against the LLM judge {words[j]}'s J labels")
            for j in preset_agreement_by_language.JUDGES}
        st.dataframe(frame, hide_index=True, key=f"{key}_table", column_config={
            "lang": st.column_config.TextColumn("Language"),
            "spearman": st.column_config.NumberColumn("Spearman", format="%+.2f",
                                                      help="Of the systems' mean J against their human J"),
            "low": st.column_config.NumberColumn("95% low", format="%+.2f",
                                                 help="Bootstrap over the inputs; the human side taken as given"),
            "high": st.column_config.NumberColumn("95% high", format="%+.2f"),
            "systems": st.column_config.NumberColumn("Systems"),
            "inputs": st.column_config.NumberColumn("Inputs"),
            "weak": st.column_config.CheckboxColumn(
                "Weak", help=f"Spearman below {preset_agreement.WEAK_SPEARMAN:.2f}"),
            **judges,
        })
        st.caption(f"Measured {result.measured} in {result.seconds:.0f} s. Nothing in the preset is fitted or tuned "
                   "to the human table.")
    return set(wanted)


def _chosen_on(preset: str, edition: str) -> str:
    """" Chosen on: ..." where the preset's design was chosen with this edition's judged sample in view."""
    try:
        why = registry.preset_class(preset).chosen_on.get(edition)
    except Exception:  # noqa: BLE001 - an unknown preset was chosen on nothing
        why = None
    return f" Chosen on, not held out: {why}." if why else ""


def weak_parts_note(preset: str, languages: Sequence[str]) -> None:
    """Name what is weaker in ``preset`` for each of ``languages`` that has a weaker part
    (fewer resources: no word-frequency list, a small lexicon, few training inputs)."""
    try:
        cls = registry.preset_class(preset)
    except Exception:  # noqa: BLE001 - an unknown preset has nothing to say here
        return
    missing = cls.missing_parts() if any(c != "ru" for c in languages) else None
    if missing:
        st.warning(f"{registry.preset_label(preset, False)}: {missing}", icon=":material/warning:")
    named = [c for c in dict.fromkeys(languages) if c in cls.weak_parts and cls.covers(c)]
    parts = cls.weak_parts
    if named:
        st.caption(f"{registry.preset_label(preset, False)} is weaker in "
                   + "; ".join(f"{language_name(c)} ({parts[c]})" for c in named) + ".")


def ranking_trust(preset: str, calibrated: bool, lang: str) -> tuple[str, str]:
    """How far ``preset``'s ranking of outputs in ``lang`` is known to agree with people,
    and the words that say so: ("agrees", ""), ("weak", why: its figure) or ("unknown",
    why: no human judgements for the language, or not measured yet). Reads kept
    measurements only: it never measures."""
    name = language_name(lang)
    if lang == "ru":
        result = preset_agreement.stored(preset, calibrated)
        rho = result.spearman[0] if result is not None else None
    else:
        result = preset_agreement_by_language.stored(preset, calibrated)  # the shipped figures first
        edition = get_edition(result.edition) if result is not None else preset_agreement_by_language.measurable_edition()
        if edition is None or lang not in edition.languages:
            return "unknown", (f"no human judgements ship for {name}, so how far this preset agrees with people there "
                               "is unknown")
        figure = result.figures.get(lang) if result is not None else None
        rho = figure.spearman[0] if figure is not None else None
    if rho is None:
        return "unknown", f"this preset's agreement with people in {name} is not measured yet (see the Leaderboard)"
    if not rho >= preset_agreement.WEAK_SPEARMAN:
        return "weak", (f"this preset agrees weakly with people in {name} (system-level Spearman {rho:+.2f}, "
                        f"below {preset_agreement.WEAK_SPEARMAN:.2f})")
    return "agrees", ""
