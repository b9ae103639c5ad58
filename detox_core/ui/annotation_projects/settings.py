"""Annotation projects: the Settings tab (settings and status, control items and worked
examples added later, deleting the project)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from detox_core.annotation.controls import load_controls
from detox_core.annotation.screening import EVENT as SCREENED
from detox_core.annotation.store import AnnotationStore, Project
from detox_core.annotation.uploads import load_examples
from detox_core.errors import AnnotationError, DetoxError
from detox_core.ui.app import render
from detox_core.ui.widgets.annotation import EXAMPLES_HELP, settings_form


def settings_tab(store: AnnotationStore, project: Project, stamp: object = None) -> None:
    """``stamp`` is unused: the tab reads the store directly (the same call as the other tabs)."""
    exam_pool = store.items(project.id, kind="exam")
    # The exam is drawn from the annotator's language where it has exam items: the
    # smallest of those pools is the shortest exam anyone can get.
    pool = int(exam_pool.groupby("lang").size().min()) if len(exam_pool) else 0
    new = settings_form("org_set", project.settings, exam_pool=pool)
    status = st.radio("Status", ["open", "closed"], index=["open", "closed"].index(project.status),
                      horizontal=True, key="org_status",
                      help="A closed project takes no new annotators and hands out no pages.")
    if st.button("Save settings", type="primary", key="org_set_save"):
        try:
            store.update_settings(project.id, new, status)
            st.success("Saved.", icon=":material/check_circle:")
            st.rerun()
        except AnnotationError as err:
            st.error(render.md(err, None), icon=":material/error:")
    project_langs = store.languages(project.id)
    upload = st.file_uploader("Add control items (TSV: lang, task, text, golden, optional input, explanation and "
                              "kind)", type=["tsv", "txt"], key="org_controls_upload")
    if upload is not None and st.button("Add these control items", key="org_controls_add"):
        try:
            added = load_controls(upload.getvalue(), name=upload.name, languages=project_langs)
            n = store.add_controls(project.id, [c for c in added if c.kind == "control"])
            n += store.add_controls(project.id, [c for c in added if c.kind == "exam"], "exam")
            st.success(f"Added {n} control items.", icon=":material/check_circle:")
        except DetoxError as err:
            st.error(f"Nothing added. {render.md(err, None)}", icon=":material/error:")
    ex_up = st.file_uploader("Worked examples per language (TSV; they replace the examples of the languages "
                             "in the file)", type=["tsv", "txt"], key="org_examples_upload", help=EXAMPLES_HELP)
    if ex_up is not None and st.button("Use these examples", key="org_examples_add"):
        try:
            n = store.set_examples(project.id, load_examples(ex_up.getvalue(), name=ex_up.name,
                                                             languages=project_langs))
            st.success(f"Stored {n} examples.", icon=":material/check_circle:")
        except DetoxError as err:
            st.error(f"Nothing stored. {render.md(err, None)}", icon=":material/error:")
    shown = store.examples(project.id)
    if shown:
        with st.expander(f"{len(shown)} uploaded examples"):
            st.dataframe(pd.DataFrame([vars(ex) for ex in shown])[["lang", "task", "input", "text", "label",
                                                                    "explanation"]], hide_index=True)
    items = store.items(project.id)
    st.caption("Items: " + ", ".join(f"{k} {v:,}" for k, v in items["kind"].value_counts().items()))
    log = store.log(project.id)
    for note in log.loc[log["kind"] == SCREENED, "detail"]:
        # Generated control items that careful readers would dispute were left out at creation.
        for line in note.splitlines():
            st.caption(render.md(line, None))
    with st.expander("Delete this project", icon=":material/delete:"):
        st.warning(f"Deletes **{render.md(project.name)}** with its items, annotators and every answer. This cannot be undone; "
                   "export first.", icon=":material/warning:")
        confirm = st.text_input("Type the project's name to confirm", key="org_delete_confirm")
        if st.button("Delete the project", key="org_delete", disabled=confirm.strip() != project.name):
            store.delete_project(project.id)
            st.session_state.pop("org_project", None)
            st.session_state["org_flash"] = ("success", f"Project {render.md(project.name)} deleted.")
            st.rerun()
