"""Annotation projects, Crowd import: the MERA ruDetox workflow on three crowd exports
(toxicity, content, fluency) and the table they judged: the pairs people accept, and a
preset's scores of them (:mod:`detox_core.annotation.crowd_filter`)."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from detox_core.analysis.export import csv_export
from detox_core.annotation.crowd_filter import KEEP, CrowdFilterResult, crowd_filter, read_pairs_table
from detox_core.annotation.tasks import spec
from detox_core.errors import DetoxInputError, ScorerUnavailableError
from detox_core.metrics.base import system_scores
from detox_core.metrics.registry import get_preset, preset_class, preset_label, registered
from detox_core.ui.app import render
from detox_core.ui.app.models import shared_pool
from detox_core.ui.widgets.tables import MISSING

DEFAULT_PRESET = "rudetox-mera"


@st.cache_data(show_spinner="Aggregating the three exports…", max_entries=4)
def _filtered(key: str, table: bytes, table_name: str, exports: tuple, min_acc: float,
              min_votes: int) -> CrowdFilterResult:
    pairs = read_pairs_table(table, table_name)
    return crowd_filter(pairs, {task: (content, name) for task, content, name in exports},
                        min_control_accuracy=min_acc, min_votes=min_votes)


def _reports(result: CrowdFilterResult) -> pd.DataFrame:
    return pd.DataFrame([{"task": spec(r.task).title, "file": r.file, "answers": r.answers, "workers": r.workers,
                          "left out": r.workers_left_out, "items": r.items, "with a majority": r.labelled,
                          "matched": r.matched, "unmatched": len(r.unmatched)} for r in result.reports.values()])


def crowd_filter_section() -> None:
    """Upload the table and its three exports; show what each export gave, the kept
    pairs, and score them with a preset (MERA ruDetox by default)."""
    st.markdown("#### Three projects → the accepted pairs (MERA ruDetox)")
    st.markdown("The workflow of the MERA ruDetox aggregation: one export per project (toxicity of the rewrite, "
                "its fluency, same meaning as the toxic input); workers under the control accuracy are left out, "
                "an item's label is the majority of at least the minimum votes, labels join the table by text "
                "(spaces, tabs and line breaks normalised), and the pairs judged **non-toxic, same meaning and "
                "fluent** are kept. Exports name the rewrite `INPUT:neutral_comment` (content: also "
                "`INPUT:toxic_comment`).")
    table = st.file_uploader("The judged pairs (CSV/TSV: `inputs`/`outputs` or `toxic_comment`/`neutral_comment`)",
                             type=["csv", "tsv"], key="cf_table")
    # One under the other: three uploaders side by side cut their hints in a narrow window.
    files = {task: st.file_uploader(f"{spec(task).title} export (TSV)", type=["tsv", "txt"], key=f"cf_{task}")
             for task in KEEP}
    c1, c2 = st.columns(2)
    min_acc = c1.slider("Minimum control accuracy", 0.0, 1.0, 0.5, 0.05, key="cf_acc")
    min_votes = int(c2.number_input("Minimum votes for the majority", 1, 20, 3, key="cf_votes"))
    if table is None or any(f is None for f in files.values()):
        st.caption("Upload the table and the three exports.")
        return
    exports = tuple((task, f.getvalue(), f.name) for task, f in files.items())
    key = hashlib.sha1(table.getvalue() + b"".join(e[1] for e in exports)).hexdigest()
    try:
        result = _filtered(key, table.getvalue(), table.name, exports, min_acc, min_votes)
    except DetoxInputError as err:
        st.error(render.md(err, None), icon=":material/error:")
        return
    st.dataframe(_reports(result), hide_index=True, key="cf_reports")
    labelled = int(result.table[list(KEEP)].notna().all(axis=1).sum())
    st.markdown(f"**{len(result.kept):,} pairs kept** of {len(result.table):,} in the table ({labelled:,} labelled by "
                "all three projects).")
    for report in result.reports.values():
        if report.unmatched:
            with st.expander(f"{spec(report.task).title}: {len(report.unmatched):,} labelled items match no row",
                             icon=":material/link_off:"):
                st.dataframe(pd.DataFrame({"text": report.unmatched}), hide_index=True)
    st.dataframe(result.kept, hide_index=True, placeholder=MISSING, key="cf_kept")
    d1, d2 = st.columns(2)
    d1.download_button("Download the kept pairs (CSV)", csv_export(result.kept),
                       file_name="kept_pairs.csv", mime="text/csv", key="cf_dl_kept", icon=":material/download:")
    d2.download_button("Download every pair with its labels (CSV)", csv_export(result.table),
                       file_name="crowd_labels.csv", mime="text/csv", key="cf_dl_all", icon=":material/download:")
    _score_section(result, key)


def _score_section(result: CrowdFilterResult, key: str) -> None:
    names = [n for n, cls in registered().items() if cls.covers("ru")]
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    preset = c1.selectbox("Score the kept pairs with", names, format_func=preset_label, key="cf_preset",
                          index=names.index(DEFAULT_PRESET) if DEFAULT_PRESET in names else 0)
    note = getattr(preset_class(preset), "calibration_note", None)
    if note:
        st.caption(render.md(note(), None))
    if c2.button(f"Score {len(result.kept):,} pairs", key="cf_score", disabled=result.kept.empty,
                 icon=":material/play_arrow:"):
        bar = st.progress(0.0, text="Loading the models…")

        def step(name: str, done: int, total: int) -> None:
            bar.progress(min(done / max(total, 1), 1.0), text=f"{preset_label(preset)}: {name}: {done:,} / {total:,}")

        try:
            scores = get_preset(preset, pool=shared_pool()).score(result.kept["input"].tolist(),
                                                                   result.kept["output"].tolist(), progress=step)
        except (ScorerUnavailableError, DetoxInputError) as err:
            bar.empty()
            st.error(render.md(err, None), icon=":material/error:")
            return
        bar.empty()
        st.session_state["cf_scores"] = (key, preset, scores)
    held = st.session_state.get("cf_scores")
    if not held or held[0] != key or held[1] != preset:
        return
    scores = held[2]
    sig = scores.attrs.get("signature", {})
    means = system_scores(scores.drop(columns="chrf"))
    st.markdown(f"**{preset_label(preset)}** on the {len(scores):,} kept pairs "
                f"({'calibrated' if sig.get('calibrated') else 'raw'}):")
    cols = st.columns(4)
    for col, axis in zip(cols, ("sta", "sim", "fl", "j")):
        col.metric(axis.upper(), f"{means[axis]:.3f}", help=f"raw {means[axis + '_raw']:.3f}")
    table = pd.concat([result.kept, scores.drop(columns="chrf").reset_index(drop=True)], axis=1)
    st.download_button("Download the kept pairs with their scores (CSV)", csv_export(table),
                       file_name=f"kept_pairs.{preset}.csv", mime="text/csv", key="cf_dl_scores",
                       icon=":material/download:")
