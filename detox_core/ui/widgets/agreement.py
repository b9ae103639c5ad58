"""What a ranking page says of its preset: the measured agreement with people
(:mod:`detox_core.analysis.agreement`), and a warning when it is weak."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from detox_core.analysis import agreement
from detox_core.editions import get_edition
from detox_core.metrics import registry
from detox_core.ui import render
from detox_core.ui.auth import is_organizer
from detox_core.ui.models import shared_pool
from detox_core.vocab import language_name

#: Presets measured at once when a page finds no measurement (seconds on a CPU).
MEASURED_ON_SIGHT = ("embedded",)


def _measure(preset: str, calibrated: bool) -> agreement.PresetAgreement | None:
    bar = st.progress(0.0, text="Measuring agreement with people: scoring the judged outputs")

    def progress(step: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"Measuring agreement with people: {step}")

    try:
        return agreement.measure(preset, calibrated, pool=shared_pool(), progress=progress)
    except Exception as err:  # noqa: BLE001 - a model that cannot load must not take the ranking page down
        st.caption(f"Agreement with people could not be measured here: {render.md(err, 300)}")
        return None
    finally:
        bar.empty()


def agreement_note(preset: str, calibrated: bool, languages: Sequence[str] = (), key: str = "agr") -> None:
    """One statement of how far ``preset``'s ranking agrees with people; a warning when weak.

    Reads the kept measurement; the embedded preset is measured on the spot when there is
    none (about 15 s), other presets by an organizer's click (they score 8,750 pairs with
    their models)."""
    editions = agreement.measurable_editions()
    label = registry.preset_label(preset, calibrated)
    if not editions:
        st.caption(f"Agreement of {label} with people: not measurable here (no human judgements in the data folder).")
        return
    result = agreement.stored(preset, calibrated)
    if result is None and preset in MEASURED_ON_SIGHT:
        result = _measure(preset, calibrated)
    if result is None:
        row = st.container(horizontal=True, vertical_alignment="center", wrap=True)
        row.caption(f"Agreement of {label} with people: not measured yet for this preset as it scores now "
                    f"({editions[0].short} human evaluation).")
        if is_organizer() and row.button("Measure it", key=f"{key}_measure", icon=":material/rule:",
                                         help="Scores the judged outputs and the shipped systems' test outputs "
                                              "with this preset (8,750 pairs) and keeps the figures"):
            if _measure(preset, calibrated) is not None:
                st.rerun()
        return
    langs = ", ".join(language_name(c) for c in result.languages)
    other = [c for c in languages if c not in result.languages]
    held = " (a fit on people scores: every figure from fits that never saw the pairs they score)" if result.held_out else ""
    text = (f"Agreement of {label} with people, measured on the {langs} human evaluation of "
            f"{registry_short(result.edition)}{held}: {result.sentence()}; {result.system()}. 95% bootstrap intervals.")
    if other:
        text += (" Other languages (" + ", ".join(language_name(c) for c in other)
                 + "): no human judgements ship for them, so the agreement there is unknown.")
    if result.weak:
        st.warning(f"This ranking may not be the order people would give: {text} Below {agreement.WEAK_SPEARMAN} "
                   "at system level, read the ranks with care and prefer a preset that agrees better.",
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
