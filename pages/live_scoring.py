"""Live scoring: type a toxic sentence and rewrites, see STA, SIM, FL, J and chrF at once."""

from __future__ import annotations

import streamlit as st

from detox_core import config
from detox_core.metrics import warmup
from detox_core.ui.app.auth import require_page
from detox_core.ui.live_scoring.boxes import language_picker
from detox_core.ui.live_scoring.results import live_body
from detox_core.ui.widgets.scores import preset_picker, preset_ready
from detox_core.ui.sidebar.corpus import current_choice

st.title("Live scoring")
require_page("live_scoring")
choice = current_choice()

top = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
language = language_picker(choice, top)
preset, calibrated = preset_picker(container=top, languages=[language])
# A server started by `python -m detox_core serve` or app.py warms the models already; run alone
# (a test), the page starts that while the user types. With the warm-up off (DETOX_WARMUP=0),
# the embedded preset's models still load while the user types.
if config.warmup_enabled():
    warmup.start(delay=1.5)
elif preset == "embedded":
    warmup.warm_preset(preset)
# Checked in seconds, before anything is typed: a preset whose models are not here says so
# (and what would score this language) instead of failing after a minute of loading.
ready = preset is not None and preset_ready(preset, [language])

live_body(choice, language, preset, calibrated, ready)
