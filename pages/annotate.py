"""Annotate: the annotator's side of an annotation project.

Join with a name and the project's access code, read the instructions, do the
training round, pass the exam, then answer pages of items with the keyboard.
"""

from __future__ import annotations

import streamlit as st

from detox_core.ui.app.annotation_store import annotation_store
from detox_core.ui.app.auth import require_page
from detox_core.ui.app.navigation import ensure_app_navigation
from detox_core.ui.annotate.session import (
    Annotating, instructions_language, join_section, show_flash, signed_in, text_language,
)
from detox_core.ui.annotate.steps import exam_section, instructions, kept_out, training_section
from detox_core.ui.annotate.work import next_page, progress_caption, task_picker, work_page

ensure_app_navigation()
st.title("Annotate")
require_page("annotate")
store = annotation_store()

ann_id = st.session_state.get("ann_id")
if ann_id is None:
    join_section(store)
    st.stop()
ann, project = signed_in(store, ann_id)
ui = instructions_language(project)
show_flash()
lang = text_language(store, ann, project, ui)
annotating = Annotating(store, ann, project, ui, lang)
if ann.status in ("banned", "failed"):
    kept_out(annotating)
    st.stop()
if ann.status == "training":
    training_section(annotating)
    st.stop()
if ann.status == "exam":
    exam_section(annotating)
    st.stop()

progress_caption(annotating)
task, sp = task_picker(annotating)
page = next_page(annotating, task, sp)
with st.expander(f"Instructions: {sp.title.lower()}", icon=":material/help:"):
    instructions(annotating, (task,))
work_page(annotating, page, sp)
st.caption("Some items have known answers: careless answers, pages answered too fast and many skipped pages "
           "end your work.")
