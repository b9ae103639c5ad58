"""Human vs automatic: organizers let the embedded preset learn from the judgements on
screen (:mod:`detox_core.analysis.embedded_fit`), and see whether the fit scores and why."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from detox_core.embedded.fitted import fitted_model
from detox_core.analysis.embedded_fit import LABELS, fit_from_judgements
from detox_core.embedded.loader import load_models
from detox_core.errors import DetoxError
from detox_core.metrics.registry import preset_class, preset_label
from detox_core.ui.app import render
from detox_core.ui.app.auth import is_organizer
from detox_core.ui.sections.tables import MISSING

PRESET = "embedded"


def _figures(evaluation: dict) -> pd.DataFrame:
    rows = []
    for who, name in (("recipe", "corpus-only recipe"), ("fitted", "fitted on people")):
        e = evaluation.get(who, {})
        rows.append({"model": name, "auc": e.get("auc"), "worst": e.get("worst_system_auc"),
                     "pairs": e.get("pair_accuracy")})
    return pd.DataFrame(rows)


def embedded_fit_section(frame: pd.DataFrame, source: str) -> None:
    """What the embedded preset learnt from people, and (organizers) a fit on ``frame``."""
    st.markdown(f"##### {preset_label(PRESET)} learnt from people")
    try:
        folder = load_models().folder
    except DetoxError as err:
        st.caption(f"The embedded models are not available: {render.md(err, None)}")
        return
    if flash := st.session_state.pop("he_embfit_flash", None):
        st.success(flash, icon=":material/check_circle:")
    current = fitted_model(folder)
    if current is None:
        st.caption("Nothing fitted on human judgements yet: the preset scores with its corpus-only recipe.")
    else:
        state = "scores in place of the recipe" if current.used else "is kept aside; the recipe scores"
        st.caption(f"Fitted on {render.md(current.source, 80)} ({current.n_pairs:,} judged pairs of {len(current.systems)} systems, "
                   f"sha256 {current.digest[:12]}…): the fit {state}. Why: {render.md(current.reason, None)}.")
        if "recipe" in current.evaluation:
            st.dataframe(_figures(current.evaluation), hide_index=True, key="he_embfit_table", placeholder=MISSING,
                         column_config={
                "model": st.column_config.TextColumn("Model"),
                "auc": st.column_config.NumberColumn("ROC-AUC vs human J (held out)", format="%.3f"),
                "worst": st.column_config.NumberColumn("Worst held-out system", format="%.3f"),
                "pairs": st.column_config.NumberColumn("System pairs in people's order", format="%.2f"),
            })
            n_pairs = current.evaluation["fitted"].get("system_pairs", 0)
            st.caption("Each judged system scored by the fit on the other systems, and each of the "
                       f"{n_pairs} untied system pairs ordered by the fit on the remaining ones; the recipe never saw "
                       "a label.")
    if not is_organizer():
        return
    covered = frame["lang"].map(preset_class(PRESET).covers).to_numpy(bool) if "lang" in frame else None
    part = frame[covered] if covered is not None else frame
    missing = [c for c in [*LABELS, "participant_name"] if c not in part]
    systems = part["participant_name"].nunique() if "participant_name" in part else 0
    if missing or systems < 3:
        st.caption("A fit needs judgements of at least 3 systems with non-toxicity, content, fluency and J "
                   f"(these have {systems} system(s){'; missing: ' + ', '.join(missing) if missing else ''}).")
        return
    if not st.button(f"Fit on these {len(part):,} judged pairs of {systems} systems", key="he_embfit",
                     icon=":material/model_training:",
                     help="Leaves each system out to measure the fit on systems it never saw; it replaces the "
                          "recipe's axes only if it agrees with people at least as well there. Takes seconds."):
        return
    try:
        with st.spinner("Fitting, leaving each system out…"):
            model = fit_from_judgements(part.reset_index(drop=True), source=source, folder=folder)
    except DetoxError as err:
        st.error(f"Not fitted: {render.md(err, None)}", icon=":material/error:")
        return
    st.session_state["he_embfit_flash"] = ("Fitted. " + ("The fit now scores: " if model.used else
                                                         "Kept aside, the recipe scores: ") + f"{render.md(model.reason, None)}.")
    st.rerun()
