"""Human vs automatic: how well automatic metrics agree with human judgements."""

from __future__ import annotations

import streamlit as st

from detox_core.ui.app.auth import require_page
from detox_core.ui.human_eval.source import judged_outputs
from detox_core.ui.human_eval.tabs import human_eval_tabs
from detox_core.ui.sidebar.corpus import current_choice

st.title("Human vs automatic")
require_page("human_eval")
choice = current_choice()
judged = judged_outputs(choice)
human_eval_tabs(judged)
