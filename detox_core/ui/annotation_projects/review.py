"""Annotation projects: the Review queue tab (uncertain labels, set by the organizer) and
the Results tab (labels per task, human scores per system, exports)."""

from __future__ import annotations

import streamlit as st

from detox_core.analysis.export import csv_export
from detox_core.annotation.aggregation import AGGREGATORS, aggregator_names, aggregator_title
from detox_core.annotation.organizer_tables import human_system_means, results_summary
from detox_core.annotation.store import AnnotationStore, Project
from detox_core.annotation.tasks import spec
from detox_core.ui.app.annotation_store import project_results
from detox_core.ui.widgets.annotation import item_html
from detox_core.ui.annotation_projects.organizer import public_leaderboard_control
from detox_core.ui.widgets.tables import MISSING
from detox_core.vocab import HUMAN_PARTS, HUMAN_SYSTEM_COLUMNS


def review_tab(store: AnnotationStore, project: Project, stamp: object) -> None:
    results, _ = project_results(project.id, project.settings.method, stamp)
    task = st.segmented_control("Task", list(project.tasks), format_func=lambda t: spec(t).title,
                                default=project.tasks[0], key="org_review_task") or project.tasks[0]
    sp = spec(task)
    queue = results[task].review(project.settings.review_confidence)
    answered = queue[queue["votes"] > 0]
    st.caption(f"{len(answered):,} answered items under {project.settings.review_confidence:.0%} confidence "
               f"(or without a label), plus {len(queue) - len(answered):,} not answered yet. Set the final label; "
               "it replaces the aggregate.")
    if len(answered):
        per_view = 20
        n_views = (len(answered) - 1) // per_view + 1
        view = 1
        if n_views > 1:
            view = int(st.number_input(f"Page of the queue (1-{n_views}, {per_view} items each)", 1, n_views, 1,
                                       key=f"org_review_view_{task}"))
        shown = answered.iloc[(view - 1) * per_view: view * per_view]
        with st.form(f"org_review_{task}"):
            for r in shown.itertuples(index=False):
                with st.container(border=True):
                    left, right = st.columns([3, 2], vertical_alignment="center")
                    left.html(item_html(None, sp, text=r.text, input=r.input))
                    votes = " · ".join(f"{sp.answer_text(v)} {n}" for v, n in sorted(r.counts.items(), reverse=True))
                    current = sp.answer_text(r.label) if r.label == r.label else "no label"
                    conf = f"{r.confidence:.2f}" if r.confidence == r.confidence else "—"
                    right.caption(f"Answers: {votes} · aggregate: **{current}** (confidence {conf})")
                    right.segmented_control("Final label", [v for v, _ in sp.options], format_func=sp.answer_text,
                                            key=f"org_expert_{r.item}")
            saved = st.form_submit_button("Save the final labels", type="primary")
        if saved:
            chosen = {r.item: st.session_state.get(f"org_expert_{r.item}") for r in shown.itertuples(index=False)}
            chosen = {k: v for k, v in chosen.items() if v is not None}
            for item, label in chosen.items():
                store.set_expert_label(int(item), label, "organizer")
            st.session_state["org_flash"] = ("success", f"Saved {len(chosen)} final labels.")
            st.rerun()
    reviewed = results[task].items[results[task].items["source"] == "expert"]
    if len(reviewed):
        with st.expander(f"{len(reviewed)} items with a final label set here"):
            st.dataframe(reviewed.assign(label=reviewed["label"].map(sp.answer_text))[["input", "text", "label"]],
                         hide_index=True, placeholder=MISSING, column_config={"input": "Original", "text": "Text", "label": "Final label"})


def results_tab(store: AnnotationStore, project: Project, stamp: object) -> None:
    method = st.radio("Aggregation", aggregator_names(), index=aggregator_names().index(project.settings.method),
                      horizontal=True, key="org_method",
                      format_func=aggregator_title)
    results, table = project_results(project.id, method, stamp)
    summary = results_summary(results)
    if project.settings.overlap < (needed := AGGREGATORS[method].votes_needed):
        # A project made before the combination was refused, or another method picked here.
        st.warning(f"{aggregator_title(method)} gives an item a label only with {needed} answers or more, and this "
                   f"project asks {project.settings.overlap} annotator{'s' if project.settings.overlap != 1 else ''} "
                   "per item: no item can get a label this way. Choose another aggregation above.",
                   icon=":material/warning:")
    st.dataframe(summary, hide_index=True, placeholder=MISSING, column_config={
        "task": "Task", "items": "Items", "labelled": "Labelled", "unlabelled": "Unlabelled",
        "by expert": "Final label by an organizer",
        "alpha": st.column_config.NumberColumn("Krippendorff's α", format="%.3f",
                                               help="Of the answers the labels come from"),
        "alpha_note": st.column_config.TextColumn("Why no α", help="Why α cannot be computed, where it cannot"),
        "alpha_all": st.column_config.NumberColumn("α, all answers", format="%.3f",
                                                   help="Also of annotators left out for control accuracy"),
        "left out": st.column_config.TextColumn("Annotators left out (control accuracy)")})
    complete = table.dropna(subset=list(HUMAN_PARTS))
    st.markdown(f"**Human judgements** · {len(complete):,} of {len(table):,} pairs have every label")
    if len(complete):
        means = human_system_means(complete)
        st.dataframe(means[["participant_name", *HUMAN_SYSTEM_COLUMNS, "j_interval", "n"]], hide_index=True,
                     placeholder=MISSING, column_config={
            "participant_name": "System",
            **{c: st.column_config.NumberColumn(c.split("_")[0].upper() + " (human)", format="%.3f")
               for c in HUMAN_SYSTEM_COLUMNS},
            "j_interval": st.column_config.TextColumn("J (human) 95% CI", help="Bootstrap over the judged pairs"),
            "n": st.column_config.NumberColumn("Judged pairs", format="%d")})
    st.dataframe(table, hide_index=True, placeholder=MISSING, height=300, column_config={
        "toxic_sentence": st.column_config.TextColumn("Input", width="medium"),
        "neutral_sentence": st.column_config.TextColumn("Output", width="medium"),
        "participant_name": "System"})
    # The buttons wrap rather than cut their labels on a narrow screen.
    d1 = d2 = st.container(horizontal=True, wrap=True, gap="small")
    d1.download_button("Export (humaneval_textdetox_ru schema, CSV)", csv_export(table),
                       file_name=f"{project.name}.humaneval.csv", mime="text/csv", icon=":material/download:",
                       key="org_export")
    d2.download_button("Every answer (CSV)", lambda: csv_export(store.raw_answers(project.id)),
                       file_name=f"{project.name}.answers.csv", mime="text/csv", icon=":material/download:",
                       key="org_export_answers", help="One row per answer: annotator, task, item texts, label, "
                       "the control answer where there is one, seconds")
    public_leaderboard_control(store, project, complete)
