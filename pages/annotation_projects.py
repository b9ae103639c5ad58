"""Annotation projects: the organizer's side (password-protected).

Create a project from scored submissions, follow its progress, review uncertain
labels, export human judgements and aggregate crowd-platform exports.
"""

from __future__ import annotations

import streamlit as st

from detox_core.ui.app.annotation_store import annotation_store
from detox_core.ui.app.auth import organizer_gate
from detox_core.ui.app.navigation import ensure_app_navigation
from detox_core.ui.annotation_projects.crowd import crowd_import_tab
from detox_core.ui.annotation_projects.new import new_project_tab
from detox_core.ui.annotation_projects.progress import pick_project, progress_tab
from detox_core.ui.annotation_projects.review import results_tab, review_tab
from detox_core.ui.annotation_projects.settings import settings_tab
from detox_core.ui.sidebar.corpus import current_choice

ensure_app_navigation()
st.title("Annotation projects")
organizer_gate()
store = annotation_store()

project = pick_project(store)
tab_names = ["Progress", "Review queue", "Results", "Settings", "New project", "Crowd import"]
tabs = dict(zip(tab_names, st.tabs(tab_names)))
stamp = store.stamp()  # one cache key for every tab of this run

for name, draw in [("Progress", progress_tab), ("Review queue", review_tab), ("Results", results_tab),
                   ("Settings", settings_tab)]:
    with tabs[name]:
        if project is None:
            st.caption("Create a project first.")
        else:
            draw(store, project, stamp)
with tabs["New project"]:
    new_project_tab(store, current_choice())
with tabs["Crowd import"]:
    crowd_import_tab()
