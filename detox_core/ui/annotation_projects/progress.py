"""Annotation projects: the project picker and the Progress tab (items done per task,
the annotators, the expected finish, the controls set aside, who is kept out)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core.annotation.organizer_tables import annotator_tables
from detox_core.annotation.results import finish_text
from detox_core.annotation.store import AnnotationStore, Project
from detox_core.annotation.tasks import spec
from detox_core.ui.app.annotation_store import project_progress, project_results
from detox_core.ui.annotation_projects.organizer import password_section, refused_section
from detox_core.ui.widgets.tables import MISSING
from detox_core.vocab import language_name


def pick_project(store: AnnotationStore) -> Project | None:
    """The project the tabs are about (None where there is none yet), with the message
    of the last change."""
    projects = store.projects()
    if not projects:
        st.info("No annotation project yet: create one under **New project**.", icon=":material/info:")
    names = {p.id: p.name for p in projects}
    project = None
    if "org_pending_project" in st.session_state:  # a project just created: show it
        st.session_state["org_project"] = st.session_state.pop("org_pending_project")
    kind, message = st.session_state.pop("org_flash", (None, None))
    if message:
        st.success(message, icon=":material/check_circle:")
    if projects:
        # The newest project by default, set through the widget's state only (a default index as
        # well would make Streamlit warn that the value is set twice).
        if st.session_state.get("org_project") not in names:
            st.session_state["org_project"] = projects[-1].id
        pid = st.selectbox("Project", list(names), format_func=names.get, key="org_project")
        project = store.project(pid)
        langs_shown = ", ".join(language_name(c) for c in store.languages(project.id) if c)
        st.caption(f"Access code for annotators: **`{project.access_code}`** · tasks: "
                   f"{', '.join(spec(t).title for t in project.tasks)} · {project.status}"
                   + (f" · languages: {langs_shown}" if langs_shown else ""))
    return project


def progress_tab(store: AnnotationStore, project: Project, stamp: object) -> None:
    prog = project_progress(project.id, stamp)
    results, table = project_results(project.id, project.settings.method, stamp)
    # One block per task, then the people and the finish; the blocks wrap on a narrow screen.
    row = st.container(horizontal=True, wrap=True, gap="small")
    blocks = [row.container(width=165) for _ in range(len(project.tasks) + 2)]
    for block, task_row in zip(blocks, prog.tasks.itertuples(index=False)):
        wanted = task_row.items * project.settings.overlap
        # The number and the bar say the same thing: items with all their answers.
        block.metric(f"{spec(task_row.task).title}: items done", f"{task_row.done:,} / {task_row.items:,}",
                     help="Items that have all their answers (the project's overlap). An item is a distinct "
                          "text to judge: outputs that several systems share are one item, and fluency also "
                          "asks about each input (the baseline of the relative FL), so a task can have fewer "
                          "or more items than the project has pairs.")
        block.progress(task_row.done / task_row.items if task_row.items else 0.0)
        block.caption(f"{task_row.answers:,} of {wanted:,} answers given")
        alpha = results[task_row.task].alpha
        block.caption(f"Krippendorff's α {alpha:.2f}" if alpha == alpha
                      else f"α cannot be computed: {results[task_row.task].alpha_note}",
                      help="Agreement between annotators' answers to the same items, of the answers the labels "
                           "come from (annotators above the control-accuracy filter). It needs items with two or "
                           "more answers (an overlap above 1) and answers that are not all the same.")
    counts = dict(zip(prog.annotators["status"], prog.annotators["annotators"]))
    blocks[-2].metric("Annotators working", counts.get("active", 0),
                      help=", ".join(f"{k}: {v}" for k, v in counts.items()) or "nobody joined yet")
    blocks[-2].caption(f"{counts.get('banned', 0)} banned · {counts.get('failed', 0)} not admitted · "
                       f"{counts.get('training', 0) + counts.get('exam', 0)} in training or exam")
    value, note = finish_text(prog)
    blocks[-1].metric("Expected finish", value, help=note)
    blocks[-1].caption(note)
    if len(prog.timeline):
        fig = go.Figure(go.Bar(x=prog.timeline["hour"], y=prog.timeline["answers"], marker_color="#2e7d5b",
                               width=3_600_000 * 0.8, hovertemplate="%{x|%d %b %H:00}: %{y} answers<extra></extra>"))
        fig.update_layout(height=220, margin=dict(t=10, b=10), yaxis_title="answers per hour")
        hours = pd.to_datetime(prog.timeline["hour"])
        fig.update_xaxes(tickformat="%d %b %H:00", type="date", dtick=3_600_000 * max(1, len(hours) // 8),
                         range=[hours.min() - pd.Timedelta(hours=2), hours.max() + pd.Timedelta(hours=2)])
        st.plotly_chart(fig, width="stretch")
    st.markdown("**Annotators**")
    people, stats = annotator_tables(store.annotators(project.id), results)
    people_config = {
        "name": "Annotator", "task": "Task", "answers": "Answers",
        "status": st.column_config.TextColumn("Status", help="working, in training, in the exam, not admitted "
                                              "(failed the exam) or banned"),
        "control_accuracy": st.column_config.NumberColumn("Control accuracy", format="percent"),
        "agreement_with_aggregate": st.column_config.NumberColumn("Agrees with label", format="percent"),
        "median_seconds": st.column_config.NumberColumn("Median s / item", format="%.1f"),
        "exam_score": st.column_config.NumberColumn("Exam score", format="percent",
                                                    help=f"Pass mark {project.settings.exam_pass:.0%}"),
        "ban_reason": st.column_config.TextColumn("Ban reason", width="large"),
        "joined_at": st.column_config.DatetimeColumn("Joined (UTC)", format="YYYY-MM-DD HH:mm")}
    if len(stats):
        st.dataframe(stats[["name", "task", "status", "answers", "control_accuracy", "agreement_with_aggregate",
                            "median_seconds", "exam_score", "ban_reason"]], hide_index=True, placeholder=MISSING,
                     column_config=people_config)
    elif len(people):
        st.dataframe(people[["name", "status", "exam_score", "joined_at", "ban_reason"]], hide_index=True,
                     placeholder=MISSING, column_config=people_config)
    else:
        st.caption(f"Nobody joined yet. Give annotators the access code `{project.access_code}` and the "
                   "address of the **Annotate** page.")
    disputed_section(store, project)
    refused_section(store, project)
    if len(people):
        password_section(store, project, people)


def disputed_section(store: AnnotationStore, project: Project) -> None:
    """The controls set aside because most annotators in good standing answer them otherwise."""
    disputed = store.disputed_controls(project.id)
    if not len(disputed):
        return
    st.markdown("**Disputed controls**")
    n = len(disputed)
    st.caption(f"{n} control item{'s' if n != 1 else ''} that most annotators in good standing answer otherwise "
               "(a generated edit that did not do what its answer says, a paraphrase still rude): set aside, "
               "they ban no one, count in no one's accuracy and are no longer asked. Annotators banned for "
               "their control accuracy before may deserve a fresh start (Let back in, under Not admitted, banned or "
               "refused below).")
    answer = {task: dict(spec(task).options) for task in project.tasks}
    shown = pd.DataFrame({
        "task": [spec(t).title for t in disputed["task"]],
        "input": disputed["input"].fillna(""),
        "text": disputed["text"],
        "known": [answer.get(t, {}).get(g, g) for t, g in zip(disputed["task"], disputed["golden"])],
        "agreeing": disputed["agreeing"] / disputed["answers"],
        "answers": disputed["answers"]})
    if not shown["input"].str.strip().any():
        shown = shown.drop(columns="input")  # toxicity and fluency controls have no original
    st.dataframe(shown, hide_index=True, column_config={
        "task": "Task", "input": st.column_config.TextColumn("Original", width="medium"),
        "text": st.column_config.TextColumn("Control text", width="large"),
        "known": st.column_config.TextColumn("Its known answer"),
        "agreeing": st.column_config.NumberColumn("Gave it", format="percent",
                                                  help="Share of the answers of annotators in good standing that "
                                                       "gave the control's known answer"),
        "answers": st.column_config.NumberColumn("Answers")})
