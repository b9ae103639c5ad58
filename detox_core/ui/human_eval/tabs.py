"""Human vs automatic: the page's tabs (per sentence, correlations, the meta-evaluation,
calibration, the LLM judges), each drawn only when open (the bootstrap statistics wait until
a tab shows them)."""

from __future__ import annotations


import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core.analysis.export import csv_export
from detox_core import data, vocab
from detox_core.calibration.evaluation import (Calibrator, calibration_curves, calibration_report, held_out_possible,
                                             simple_features)
from detox_core.analysis.meta_eval import available_metrics, confusion, disagreements, meta_eval, per_system_auc
from detox_core.ui.app import render
from detox_core.ui.human_eval.calibrators import fitted_calibrators_section
from detox_core.ui.human_eval.source import AXIS_NAMES, Judged
from detox_core.ui.human_eval.judgements import judges_tab, metric_picker, pair_detail, per_language_tab
from detox_core.ui.widgets.tables import MISSING
from detox_core.vocab import HUMAN_AXES

N_BOOT = 300
#: Below this many systems, system-level figures come with a caveat.
FEW_SYSTEMS = 5


# The cached helpers take the judged frame unhashed (``_frame``): ``key`` names it
# (file content, embedded scores, stored submissions joined), so reruns skip the work.
@st.cache_data(show_spinner="Bootstrapping the agreement statistics…", max_entries=8)
def cached_meta(key: str, _frame: pd.DataFrame) -> pd.DataFrame:
    return meta_eval(_frame, n_boot=N_BOOT)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_per_system(key: str, metric: str, human: str, _frame: pd.DataFrame) -> pd.DataFrame:
    return per_system_auc(_frame, metric, human, n_boot=200)


@st.cache_data(show_spinner="Fitting calibrators leave-one-system-out…", max_entries=32)
def cached_calibration(key: str, _work: pd.DataFrame, _candidates: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    return calibration_report(_work, _candidates, n_boot=200), calibration_curves(_work, _candidates)


def few_systems_caveat(n: int) -> None:
    """System-level statistics over a handful of systems say little: say so beside them."""
    if n < FEW_SYSTEMS:
        st.warning(f"System-level figures here rest on **{n} systems** only: a rank correlation over so few points "
                   "takes a few values (Spearman 1.0 means the {n} systems are merely in the same order), and its "
                   "interval spans most of [-1, 1]. Read them as a hint; the sentence-level figures rest on "
                   "every judged output.".replace("{n}", str(n)), icon=":material/warning:")


META_FIRST = {"sentence": ["roc_auc", "roc_auc_low", "roc_auc_high"], "system": ["spearman", "spearman_low",
                                                                               "spearman_high"]}


def meta_table(meta: pd.DataFrame, level: str) -> pd.DataFrame:
    """One level of the meta-evaluation, the statistic it is ranked by right after the
    metric's name (on screen at any width), best first within each axis."""
    rows = meta[meta["level"] == level]
    first = ["axis", "metric", *META_FIRST[level], "n"]
    rest = [c for c in rows.columns if c not in first and c not in ("level", "human") and rows[c].notna().any()]
    return rows[first + rest].reset_index(drop=True)


def reliability_figure(curves: pd.DataFrame, human: str) -> go.Figure:
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(dash="dash", color="#999999"),
                               name="calibrated", hoverinfo="skip"))
    for curve, color in zip(curves["curve"].unique(), ("#2e7d5b", "#bbbbbb", "#2c7fb8", "#e0e0e0")):
        c = curves[curves["curve"] == curve]
        fig.add_trace(go.Scatter(
            x=c["predicted"], y=c["observed"], mode="lines+markers", name=render.plot_text(curve),
            marker=dict(size=6 + 14 * np.sqrt(c["n"] / max(curves["n"].max(), 1)), color=color), line=dict(color=color),
            customdata=c["n"], hovertemplate="predicted %{x:.2f} → human %{y:.2f} (%{customdata} outputs)<extra></extra>"))
    fig.update_layout(height=380, margin=dict(t=10, b=10), xaxis=dict(title="predicted", range=[0, 1]),
                      yaxis=dict(title=f"human {human} (mean)", range=[0, 1.02]), legend=dict(orientation="h", y=-0.2))
    return fig


def per_sentence(j: Judged) -> None:
    frame, metrics, judge, WHO, AXIS_WORD = j.frame, j.metrics, j.judge, j.who, j.axis_word
    a1, a2, a3 = st.columns(3)
    axis = a1.selectbox(AXIS_WORD, list(HUMAN_AXES), format_func=AXIS_NAMES.get, key="he_axis")
    if not metrics[axis]:
        st.info("No automatic metric for this axis.")
    else:
        metric = metric_picker(a2, metrics[axis], judge, "Automatic metric", f"he_metric_{axis}")
        threshold = a3.slider("Metric says yes from", 0.0, 1.0, 0.5, 0.01, key="he_threshold")
        conf = confusion(frame, axis, metric, threshold)
        conf = conf.rename(index=lambda v: v.replace("human", WHO)).rename_axis(index=WHO)
        # The matrix above the pairs, as wide as it needs: beside them it was cut at 800 px.
        st.markdown("**Confusion matrix**")
        st.dataframe(conf, placeholder=MISSING, width="content",
                     column_config={c: st.column_config.NumberColumn(c) for c in conf.columns})
        total = conf.values.sum()
        st.caption(f"Agreement at this threshold: {(conf.iloc[0, 0] + conf.iloc[1, 1]) / max(total, 1):.1%}")
        view = st.segmented_control("Show", ["all", "human yes, metric no", "human no, metric yes"], default="all",
                                    required=True, key="he_view", wrap=True,
                                    format_func=lambda v: v.replace("human", WHO))
        rows = frame if view == "all" else disagreements(frame, axis, metric, threshold)[view]
        lang_col = ["lang"] if "lang" in rows else []
        picked = st.dataframe(
            rows[["participant_name", *lang_col, "toxic_sentence", "neutral_sentence", "neutral_sentence_reference",
                  *HUMAN_AXES.values(), metric]],
            hide_index=True, placeholder=MISSING, height=340, on_select="rerun", selection_mode="single-row",
            key="he_rows",
            column_config={
                "participant_name": st.column_config.TextColumn("System"),
                "lang": st.column_config.TextColumn("Language", width="small"),
                "toxic_sentence": st.column_config.TextColumn("Input", width="medium"),
                "neutral_sentence": st.column_config.TextColumn("Output", width="medium"),
                "neutral_sentence_reference": st.column_config.TextColumn("Reference", width="medium"),
                metric: st.column_config.NumberColumn(metric, format="%.2f"),
            },
        )
        selected = picked.selection.rows if picked is not None and hasattr(picked, "selection") else []
        if len(rows):
            pair_detail(rows.iloc[selected[0] if selected and selected[0] < len(rows) else 0])
            st.caption("The selected pair (the first one until a row is selected), "
                       "right to left for Arabic and Hebrew.")
        st.caption(f"{len(rows):,} rows")


def correlations(j: Judged) -> None:
    frame, all_frame, key, judge, language = j.frame, j.all_frame, j.key, j.judge, j.language
    WHO, AXIS_WORD = j.who, j.axis_word
    if "lang" in all_frame:
        st.markdown("**Language by language**")
        per_language_tab(all_frame, available_metrics(all_frame), AXIS_NAMES, key.rsplit("|", 1)[0], WHO, judge)
        st.divider()
        st.markdown(f"**Every metric, {'all languages together' if language == 'all languages' else vocab.language_name(language)}** "
                    "(the language picked above)")
    meta = cached_meta(key, frame)
    axis_c = st.selectbox(AXIS_WORD, list(HUMAN_AXES), format_func=AXIS_NAMES.get, key="he_axis_corr")
    sent = meta[(meta["axis"] == axis_c) & (meta["level"] == "sentence")]
    if sent.empty:
        st.info("No automatic metric for this axis.")
    else:
        fig = go.Figure()
        for stat, color in (("roc_auc", "#2e7d5b"), ("spearman", "#2c7fb8"), ("pearson", "#e67e22")):
            fig.add_trace(go.Bar(
                name={"roc_auc": "ROC-AUC", "spearman": "Spearman", "pearson": "Pearson"}[stat], x=sent["metric"],
                y=sent[stat], marker_color=color,
                error_y=dict(type="data", symmetric=False, array=sent[f"{stat}_high"] - sent[stat],
                             arrayminus=sent[stat] - sent[f"{stat}_low"]),
            ))
        fig.update_layout(barmode="group", height=360, margin=dict(t=10, b=10), yaxis=dict(range=[0, 1]))
        st.plotly_chart(fig, width="stretch")
        st.caption(f"Sentence level, 95% bootstrap intervals ({N_BOOT} resamples). ROC-AUC against the binary human "
                   "label (>= 0.5 is yes).")
        metric_c = metric_picker(st, sent["metric"].tolist(), judge, "Per-system agreement of", "he_metric_sys")
        per_sys = cached_per_system(key, metric_c, HUMAN_AXES[axis_c], frame)
        fig = go.Figure(go.Bar(x=per_sys["auc"], y=per_sys["system"], orientation="h", marker_color="#2e7d5b",
                               error_x=dict(type="data", symmetric=False, array=per_sys["hi"] - per_sys["auc"],
                                            arrayminus=per_sys["auc"] - per_sys["lo"])))
        fig.update_layout(height=80 + 40 * len(per_sys), margin=dict(t=10, b=10), xaxis=dict(range=[0, 1], title="ROC-AUC"))
        st.plotly_chart(fig, width="stretch")
        st.caption("Which systems' outputs the metric judges worst: sentence-level ROC-AUC within each system.")
        system_rows = meta[(meta["axis"] == axis_c) & (meta["level"] == "system")]
        st.markdown("**System and ranking level** (means per system; ranking accuracy = share of system pairs in "
                    "the same order)")
        if len(system_rows):
            few_systems_caveat(int(system_rows["n"].max()))
        st.dataframe(system_rows[["metric", "n", "spearman", "spearman_low", "spearman_high", "pearson",
                                  "ranking_accuracy"]], hide_index=True, placeholder=MISSING,
                     column_config={"n": st.column_config.NumberColumn("Systems"),
                                    **{c: st.column_config.NumberColumn(stat_label(c), format="%.3f") for c in
                                       ("spearman", "spearman_low", "spearman_high", "pearson", "ranking_accuracy")}})



STAT_NAMES = {"roc_auc": "ROC-AUC", "spearman": "Spearman", "pearson": "Pearson", "ranking_accuracy": "Ranking accuracy",
              "kendall": "Kendall"}


def stat_label(column: str) -> str:
    """``roc_auc_low`` -> "ROC-AUC (95% low)"."""
    for key, name in STAT_NAMES.items():
        if column == key:
            return name
        if column.startswith(key + "_"):
            return f"{name} (95% {column[len(key) + 1:]})"
    return column.replace("_", " ").capitalize()


def meta_evaluation(j: Judged) -> None:
    frame, key = j.frame, j.key
    meta = cached_meta(key, frame)
    st.markdown("Every automatic metric ranked by its agreement with each human axis (sentence level by ROC-AUC, "
                "system level by Spearman: the first figure after the metric's name), including the 2025 recipes "
                "computed from the file's columns.")
    level = st.segmented_control("Level", ["sentence", "system"], default="sentence", required=True,
                                 key="he_meta_level")
    shown = meta_table(meta, level or "sentence")
    if level == "system" and len(shown):
        few_systems_caveat(int(shown["n"].max()))
    st.dataframe(shown, hide_index=True, placeholder=MISSING, height=480, column_config={
        "axis": st.column_config.TextColumn("Axis", width="small"), "metric": st.column_config.TextColumn("Metric"),
        "n": st.column_config.NumberColumn("Sentences" if level == "sentence" else "Systems", width="small"),
        **{c: st.column_config.NumberColumn(stat_label(c), format="%.3f") for c in shown.columns
           if shown[c].dtype.kind == "f"}})
    st.download_button("Export CSV", lambda: csv_export(meta), file_name="meta_eval.csv",
                       mime="text/csv", icon=":material/download:")



def calibration(j: Judged) -> None:
    frame, metrics, key, judge, name, choice, AXIS_WORD = (j.frame, j.metrics, j.key, j.judge, j.name, j.choice,
                                                           j.axis_word)
    st.markdown("Fit a map from automatic scores to a human label. Every figure here is **held out**: each system is "
                "predicted by a calibrator fitted on the other systems (leave-one-system-out).")
    k1, k2, k3 = st.columns(3)
    cal_axis = k1.selectbox(AXIS_WORD, list(HUMAN_AXES), format_func=AXIS_NAMES.get, key="he_cal_axis")
    if not metrics[cal_axis]:
        st.info("No automatic metric for this axis.")
        return
    cal_metric = metric_picker(k2, metrics[cal_axis], judge, "Automatic score", "he_cal_metric")
    kind = k3.selectbox("Calibrator", ["isotonic", "logistic", "linear"], key="he_cal_kind")
    candidates = {f"{kind} on {cal_metric}": (kind, [cal_metric], HUMAN_AXES[cal_axis])}
    feats = None
    if cal_axis == "j" and all(f"embedded:{a}" in frame for a in vocab.MODEL_AXES):
        feats = pd.concat([frame, simple_features(frame, choice.lexicon if choice.ok else frozenset())], axis=1)
        candidates["learned J (embedded axes + features)"] = (
            "logistic", ["embedded:j", "embedded:sta", "embedded:sim", "embedded:fl", "length_ratio", "copy_rate",
                         "lexicon_hits"], "J")
    work = feats if feats is not None else frame
    if not held_out_possible(work):
        systems = work["participant_name"].nunique() if "participant_name" in work else 0
        st.info(f"These judgements hold {systems} system{'' if systems == 1 else 's'}: a calibrator is checked on a "
                "system it was not fitted on (leave-one-system-out), so the held-out figures need judgements of at "
                "least two systems. Below: how the raw score compares with people; a calibrator can still be fitted "
                "on all of them and saved.", icon=":material/info:")
    report, curves = cached_calibration(f"{key}|{choice.source if choice.ok else ''}|{sorted(candidates.items())}", work,
                                candidates)
    st.plotly_chart(reliability_figure(curves, HUMAN_AXES[cal_axis]), width="stretch",
                    config={"displayModeBar": False})
    st.caption("Reliability: the held-out predictions (and the raw score) binned by value, against the mean human "
               "label of each bin; a calibrated score lies on the dashed diagonal. Marker size: outputs in the bin.")
    st.dataframe(report, hide_index=True, placeholder=MISSING, column_config={
        c: st.column_config.NumberColumn(c, format="%.3f") for c in report.columns if report[c].dtype.kind == "f"})
    if st.button("Save the first calibrator (fitted on all systems)", key="he_cal_save"):
        kind0, features0, target0 = next(iter(candidates.values()))
        cal = Calibrator(kind0, features0, target0, meta={"fitted_on": name, "n": len(work)}).fit(work)
        folder = data.data_dir() / "models" / "calibrators"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{target0}-{kind0}-{'-'.join(features0)}.json".replace(":", "_")
        cal.save(path)
        st.success(f"Saved to `{path.relative_to(data.data_dir())}` under the data folder; its signature: "
                   f"`{cal.signature()}`")
    if judge is None:  # MERA ruDetox applies calibrators fitted on human judgements
        fitted_calibrators_section(frame, name or "judgements")


def human_eval_tabs(j: Judged) -> None:
    """The tabs; only the open one is drawn (and computed)."""
    views = {"Per sentence": per_sentence, "Correlations": correlations, "Meta-evaluation": meta_evaluation,
             "Calibration": calibration}
    if len(j.judges) >= 2:
        views["Judges"] = lambda _j: judges_tab(j.judges, AXIS_NAMES)
    tabs = st.tabs(list(views), key="he_tab", on_change="rerun")
    for tab, draw in zip(tabs, views.values()):
        if tab.open is not False:
            with tab:
                draw(j)
