"""Runs the MERA ruDetox page parts alone, with files standing in for uploads: AppTest
cannot upload, so ``st.session_state["_uploads"]`` maps an uploader's key to a file.

``st.session_state["_view"]``: ``crowd`` (Annotation projects, Crowd import: the
three-export workflow), ``fit`` (Human vs automatic, Calibration: fit and save the
calibrators from the judgements file in ``st.session_state["_judgements"]``) or
``picker`` (the scoring pages' preset picker and its Calibrated switch).
"""

import io
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from detox_core.data import load_human_judgements
from detox_core.ui.human_eval.calibrators import fitted_calibrators_section
from detox_core.ui.annotation_projects.crowd_filter import crowd_filter_section
from detox_core.ui.widgets.scores import preset_picker


class _Upload(io.BytesIO):
    def __init__(self, path: str) -> None:
        super().__init__(Path(path).read_bytes())
        self.name = Path(path).name


def _uploader(label, type=None, key=None, **kwargs):  # noqa: A002 - streamlit's argument name
    path = st.session_state.get("_uploads", {}).get(key)
    return _Upload(path) if path else None


saved = (st.file_uploader, DeltaGenerator.file_uploader)
st.file_uploader = _uploader
DeltaGenerator.file_uploader = lambda self, *args, **kwargs: _uploader(*args, **kwargs)
try:
    if st.session_state.get("_view") == "picker":
        st.write(preset_picker(languages=["ru"]))
    elif st.session_state.get("_view") == "fit":
        frame = load_human_judgements(Path(st.session_state["_judgements"]))
        fitted_calibrators_section(frame, Path(st.session_state["_judgements"]).name)
    else:
        crowd_filter_section()
finally:
    st.file_uploader, DeltaGenerator.file_uploader = saved
