"""Submissions: score a system's outputs for a test set and understand every low score."""

from __future__ import annotations

import streamlit as st

from detox_core.submissions.service import split_inputs, split_rows
from detox_core.ui.app.auth import is_organizer, require_page
from detox_core.ui.app.submission_store import shared_store
from detox_core.ui.widgets.scores import preset_picker, preset_ready
from detox_core.ui.sidebar.corpus import current_choice, split_languages, split_picker
from detox_core.ui.submissions.scoring import SubmissionTarget, add_submission, inputs_caption, show_pending
from detox_core.ui.submissions.sentences import submission_sentences
from detox_core.ui.submissions.table import listed_submissions, stored_submissions, submission_picker

st.title("Submissions")
require_page("submissions")
choice = current_choice()
if not choice.ok:
    st.info(choice.problem or "No corpus loaded.", icon=":material/info:")
    st.stop()
shared_store()  # a database that is down stops the page here (app.py says so), before any widget

top = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
split = split_picker(choice, top, width=180, help="The inputs the submission answers, one output per "
                     "input in this order.")
preset, calibrated = preset_picker("sub_preset", top, languages=choice.languages)
languages = split_languages(choice, split)  # the picked languages this test set has inputs in
if preset is None:
    st.stop()
# In seconds, before any scoring: a preset whose models are not here says so (stored scores stay browsable).
ready = preset_ready(preset, choice.languages or (choice.edition.languages if choice.edition else ()))
if choice.multilingual:
    rows = split_rows(choice.whole, split)
    target = SubmissionTarget(choice, split, preset, calibrated, languages, rows["toxic_comment"].tolist(), [], rows)
else:
    inputs, references = split_inputs(choice.prepared, split)
    target = SubmissionTarget(choice, split, preset, calibrated, languages, inputs, references)
inputs_caption(target)

add_submission(target, ready)
show_pending()
organizer = is_organizer()
listed = listed_submissions(target, include_hidden=organizer)
if listed.empty:
    st.info("No submission scored for this test set and preset yet.", icon=":material/info:")
    st.stop()
stored_submissions(target, listed, organizer)
view_id, name = submission_picker(listed)
submission_sentences(target, listed, view_id, name)
