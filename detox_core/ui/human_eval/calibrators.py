"""Human vs automatic: organizers fit and save the calibrators of a preset that applies
fitted ones (MERA ruDetox) from the human judgements on screen."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pandas as pd
import streamlit as st

from detox_core.errors import DetoxInputError, ScorerUnavailableError
from detox_core.calibration import fitted as fitted_calibration
from detox_core.metrics.registry import get_preset, preset_class, preset_label
from detox_core.metrics.rudetox_mera_published import published_set
from detox_core.ui.app import render
from detox_core.ui.app.auth import is_organizer
from detox_core.ui.app.models import shared_pool
from detox_core.vocab import HUMAN_AXES

#: Presets whose calibration is fitted here rather than shipped.
FITTED_PRESETS = ("rudetox-mera",)


def fitted_calibrators_section(frame: pd.DataFrame, source: str, preset: str = "rudetox-mera") -> None:
    """Fit one calibrator per axis of ``preset`` on the judged pairs of ``frame`` (its raw
    scores against the human labels) and save them where the preset reads them.

    ``source``: what the judgements are (recorded with the calibrators)."""
    cls = preset_class(preset)
    st.markdown(f"##### Calibrators of {preset_label(preset)}")
    if flash := st.session_state.pop(f"he_fit_{preset}_flash", None):  # what the last click saved
        st.success(flash, icon=":material/check_circle:")
    st.caption(render.md(cls.calibration_note(), None))
    if not is_organizer():
        st.caption("Organizers can fit them here from these judgements.")
        return
    covered = frame["lang"].map(cls.covers).to_numpy(bool) if "lang" in frame else np.ones(len(frame), bool)
    labels = [HUMAN_AXES[a] for a in fitted_calibration.AXES]
    missing = [c for c in labels if c not in frame]
    if missing:
        st.caption(f"These judgements lack {', '.join(missing)}: no calibrator can be fitted on them.")
        return
    part = frame[covered]
    kind = st.segmented_control("Kind", list(fitted_calibration.KINDS), default="isotonic", required=True,
                                key=f"he_fit_{preset}_kind",
                                help="isotonic: as MERA's calibrators (scikit-learn IsotonicRegression, clipped); "
                                "logistic: a sigmoid of the raw score, fitted on the yes/no human answer.")
    go = st.button(f"Fit on {len(part):,} judged pairs and save", key=f"he_fit_{preset}", disabled=part.empty,
                   icon=":material/tune:", help=f"Scores the pairs with {preset_label(preset)} uncalibrated (its models "
                   "are needed), fits one calibrator per axis against the human labels and saves them as JSON; "
                   "every later score of this preset applies them, and its signature names them.")
    if preset == "rudetox-mera" and st.button(
            "Use MERA's published calibrator instead", key=f"he_published_{preset}", icon=":material/public:",
            help="The benchmark's own isotonic map (from its lm-eval filter, as plain numbers), applied to all three "
            "axes as the benchmark does: reproduces MERA's calibrated numbers; not fitted on these judgements."):
        path = fitted_calibration.save(published_set(preset))
        # Shown after a rerun, so that the caption above already reads the new state.
        st.session_state[f"he_fit_{preset}_flash"] = (f"Saved MERA's published calibrator as `{path.name}`: "
                                                      f"{preset_label(preset)} now applies it.")
        st.rerun()
    if not go:
        return
    bar = st.progress(0.0, text="Loading the models…")

    def step(name: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{preset_label(preset)}: {name}: {done:,} / {total:,}")

    try:
        scores = get_preset(preset, pool=shared_pool()).score(
            part["toxic_sentence"].tolist(), part["neutral_sentence"].tolist(), calibrated=False, progress=step)
        raw = {a: scores[f"{a}_raw"].to_numpy(float) for a in fitted_calibration.AXES}
        human = {a: part[HUMAN_AXES[a]].to_numpy(float) for a in fitted_calibration.AXES}
        description = f"{source}: {len(part):,} judged pairs" + (
            f" of {part['participant_name'].nunique()} systems" if "participant_name" in part else "")
        cals = fitted_calibration.fit_set(preset, raw, human, kind or "isotonic", description,
                                          datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
        path = fitted_calibration.save(cals)
    except (ScorerUnavailableError, DetoxInputError) as err:
        bar.empty()
        st.error(f"Not fitted. {render.md(err, None)}", icon=":material/error:")
        return
    bar.empty()
    st.session_state[f"he_fit_{preset}_flash"] = (f"Saved {render.md(cals.describe(), None)} as `{path.name}` "
                                                  f"(sha256 {cals.digest()}): {preset_label(preset)} now applies them.")
    st.rerun()
