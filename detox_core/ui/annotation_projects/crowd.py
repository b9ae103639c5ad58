"""Annotation projects: the Crowd import tab (labels aggregated from a crowdsourcing
platform's export, and the crowd filter)."""

from __future__ import annotations

import streamlit as st

from detox_core.analysis.export import csv_export
from detox_core.annotation.aggregation import aggregator_names, aggregator_title, krippendorff_alpha
from detox_core.annotation.crowd import aggregate_crowd, load_crowd_tsv
from detox_core.annotation.tasks import TASKS, spec
from detox_core.errors import DetoxInputError
from detox_core.ui.app import render
from detox_core.ui.annotation_projects.crowd_filter import crowd_filter_section
from detox_core.ui.widgets.tables import MISSING


def crowd_import_tab() -> None:
    st.markdown("Aggregate results exported from a crowdsourcing platform: one TSV per task with `INPUT:<field>`, "
                "`OUTPUT:<answer>`, `GOLDEN:<answer>` and `ASSIGNMENT:worker_id` / `started` / `submitted` / "
                "`status` columns.")
    c1, c2, c3 = st.columns(3)
    ctask = c1.selectbox("Task", list(TASKS), format_func=lambda t: spec(t).title, key="crowd_task")
    cmethod = c2.radio("Method", aggregator_names(), horizontal=True, key="crowd_method",
                       format_func=lambda m: aggregator_title(m, short=True))
    cacc = c3.slider("Minimum control accuracy", 0.0, 1.0, 0.5, 0.05, key="crowd_acc")
    crowd = st.file_uploader("Crowd export (TSV)", type=["tsv", "txt"], key="crowd_upload")
    if crowd is not None:
        try:
            parsed = load_crowd_tsv(crowd.getvalue(), ctask, name=crowd.name)
            labels = aggregate_crowd(parsed, cmethod, cacc)
        except DetoxInputError as err:
            st.error(render.md(err, None), icon=":material/error:")
        else:
            real = parsed.answers[parsed.answers["golden"].isna()]
            alpha = krippendorff_alpha(real, "ordinal" if ctask == "fluency" else "nominal")
            st.caption(f"{len(parsed.answers):,} answers of {parsed.answers['worker'].nunique():,} workers · skipped "
                       f"{parsed.skipped_empty} rows with empty input and {parsed.skipped_rejected} rejected · "
                       f"Krippendorff's α {alpha:.3f}")
            st.dataframe(labels, hide_index=True, placeholder=MISSING, column_config={
                "confidence": st.column_config.NumberColumn("Confidence", format="%.2f"), "votes": "Votes"})
            st.download_button("Download the labels (CSV)", csv_export(labels),
                               file_name=f"{ctask}.labels.csv", mime="text/csv", key="crowd_download",
                               icon=":material/download:")
    st.divider()
    crowd_filter_section()
