"""Human vs automatic: how well automatic metrics agree with human judgements."""

from __future__ import annotations

import hashlib
import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core import data, editions
from detox_core.stats.bootstrap import agreement
from detox_core.errors import DetoxInputError, EmbeddedMissingError
from detox_core.vocab import HUMAN_AXES
from detox_core.analysis.calibration import (Calibrator, calibration_curves, calibration_report, held_out_possible,
                                             simple_features)
from detox_core.metrics.textdetox2025 import add_2025_recipes
from detox_core.metrics import bertscore
from detox_core.analysis.meta_eval import (add_reference_metrics, available_metrics, confusion, disagreements,
                                           join_stored_report, meta_eval)
from detox_core.data.judges import add_judge_columns, judge_missing, load_any_judgements
from detox_core.ui.app.auth import require_page
from detox_core.ui.sections.calibrators import fitted_calibrators_section
from detox_core.ui.sections.embedded_fit import embedded_fit_section
from detox_core.ui.app import render
from detox_core.ui.app.annotation_store import project_judgements, project_judgements_csv
from detox_core.ui.sections.sidebar import current_choice
from detox_core.ui.app.models import shared_pool
from detox_core.ui.app.submission_store import shared_store
from detox_core.ui.sections.judgements import (add_embedded, automatic_notice, edition_judges, judges_tab, language_filter,
                                              metric_picker, pair_detail, per_language_tab, preset_section)
from detox_core.ui.sections.tables import MISSING
from detox_core import vocab

AXIS_NAMES = {a.key: a.label if a.key == "j" else f"{a.label} ({a.short})" for a in vocab.AXES if a.human}
N_BOOT = 300

st.title("Human vs automatic")
require_page("human_eval")
choice = current_choice()


@st.cache_data(show_spinner="Reading the judgements…", max_entries=8)
def judgements(content: bytes, name: str, bertscore_setting: str) -> pd.DataFrame:
    # The reference metrics against each output's reference (chrF, BLEU, ROUGE-L; BERTScore when turned on).
    return add_reference_metrics(add_2025_recipes(load_any_judgements(content, name=name)), shared_pool())


# The cached helpers below take the judged frame unhashed (``_frame``): ``key`` names it
# (file content, embedded scores, stored submissions joined), so reruns skip the work.
@st.cache_data(show_spinner="Bootstrapping the agreement statistics…", max_entries=8)
def cached_meta(key: str, _frame: pd.DataFrame) -> pd.DataFrame:
    return meta_eval(_frame, n_boot=N_BOOT)


@st.cache_data(show_spinner="Joining stored submissions…", max_entries=8)
def cached_join(key: str, _frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return join_stored_report(_frame, shared_store())


@st.cache_data(show_spinner=False, max_entries=32)
def cached_per_system(key: str, metric: str, human: str, _frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for system, g in _frame.groupby("participant_name"):
        a = agreement(g[metric].to_numpy(float), g[human].to_numpy(float), n_boot=200)
        rows.append({"system": system, "auc": a.roc_auc[0], "lo": a.roc_auc[1], "hi": a.roc_auc[2]})
    return pd.DataFrame(rows).sort_values("auc")


@st.cache_data(show_spinner="Fitting calibrators leave-one-system-out…", max_entries=32)
def cached_calibration(key: str, _work: pd.DataFrame, _candidates: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    return calibration_report(_work, _candidates, n_boot=200), calibration_curves(_work, _candidates)


#: Below this many systems, system-level figures come with a caveat.
FEW_SYSTEMS = 5


def few_systems_caveat(n: int) -> None:
    """System-level statistics over a handful of systems say little: say so beside them."""
    if n < FEW_SYSTEMS:
        st.warning(f"System-level figures here rest on **{n} systems** only: a rank correlation over so few points "
                   "takes a few values (Spearman 1.0 means the {n} systems are merely in the same order), and its "
                   "interval spans most of [-1, 1]. Read them as a hint; the sentence-level figures rest on "
                   "every judged output.".replace("{n}", str(n)), icon=":material/warning:")


# The chosen corpus's edition (the default one for an uploaded corpus), its human
# judgements and its LLM judges' labels.
edition = editions.EDITIONS.get(choice.source) or editions.default_edition()
shipped = edition.human_path()
judges = edition_judges(edition)
# An edition with no judged pairs of its own (TextDetox 2025) gets those of an edition whose
# languages are all its own (the nine-language 2024 meta-evaluation sample), said as such.
judges_from = edition
if not judges and shipped is None:
    judges_from = next((other for other in sorted(editions.EDITIONS.values(), key=lambda e: -len(e.languages))
                        if other is not edition and other.languages and set(other.languages) <= set(edition.languages)
                        and edition_judges(other)), edition)  # the most languages first: 2024's nine, not ru alone
    judges = edition_judges(judges_from) if judges_from is not edition else {}
projects = project_judgements()
SOURCES = [f"shipped {edition.short} human judgements", "an LLM judge's labels", "an annotation project",
           "upload a file"]
offered = {SOURCES[0]: shipped is not None, SOURCES[1]: bool(judges), SOURCES[2]: bool(projects), SOURCES[3]: True}
available = [s for s in SOURCES if offered[s]]
top = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="large")
c1, c2 = top.container(width="content"), top.container(width="content")
source = c1.radio("Judgements", available, horizontal=True, key="he_source",
                  help="Human judgements, or an LLM judge's labels of the edition's judged pairs (automatic "
                  "judgements, put against the metrics the same way). Annotation projects of the app that ask all "
                  "three tasks give their aggregated labels (complete pairs) in the same schema.")
with_embedded = c2.toggle("Add the embedded preset's scores", value=True, key="he_embedded",
                          help="Scores every judged pair with the offline preset (Russian pairs only; seconds, cached).")
with_stored = c2.toggle("Add stored submissions' scores", value=True, key="he_stored",
                        help="Submissions scored on the Submissions page (any preset) whose name matches a judged "
                        "system, joined by input and output text.")
with_judges = c2.toggle("Add the LLM judges' labels", value=True, key="he_judges", disabled=not judges,
                        help="Each LLM judge's labels of the same pairs as automatic metrics (`<judge> (LLM):sta` ...)"
                        ", matched by pair id or by system, input and output.")
content, name, judge = None, None, None
if source == SOURCES[0]:
    content, name = shipped.read_bytes(), shipped.name
elif source == SOURCES[1]:
    judge = c1.selectbox("Judge", list(judges), key="he_judge")
    if judges_from is not edition:
        st.caption(f"{render.md(edition.title)} has no judged pairs of its own: these are the LLM judges' labels of "
                   f"the {render.md(judges_from.title)} meta-evaluation sample, in its languages "
                   f"({', '.join(judges_from.languages)}), which are {render.md(edition.short)} languages too.")
elif source == SOURCES[2]:
    chosen = st.selectbox("Project", list(projects), index=len(projects) - 1, key="he_project")
    content, name = project_judgements_csv(projects[chosen]), f"{chosen}.humaneval.csv"
    if content.count(b"\n") <= 1:
        st.info(f"Project **{render.md(chosen)}** has no pair with all three labels yet.", icon=":material/info:")
        st.stop()
else:
    upload = st.file_uploader("Judgements (CSV or TSV)", type=["csv", "tsv"], key="he_upload")
    if upload is not None:
        content, name = upload.getvalue(), upload.name
if content is None and judge is None:
    st.info("Upload judgements in one of two schemas. **RUSSE-2022** (`humaneval_textdetox_ru`): `toxic_sentence` (or "
            "`original`), `neutral_sentence` (or `method_output`), `participant_name`, `non-toxicity`, `content`, "
            "`fluency`, `J`. **Multilingual** (TextDetox human evaluation, `eval-of-detox-eval`): `toxic_sentence`, "
            "`neutral_sentence`, `lang`, `participant_name`, `toxic_pairwise_score`, `content_score`, "
            "`fluency_score`, optionally `neutral_sentence_gold` (the reference). Metric columns such as "
            "`CLS_OLD_GEN`, `SIM-INPUT-GEN`, `XCOMET-LITE` are used as automatic metrics.", icon=":material/info:")
    st.stop()
if judge is not None:
    frame = judges[judge].assign(neutral_sentence_reference="")  # the sample has no references
    automatic_notice(judge)
    key = f"judge:{judge}:{len(frame)}:{edition.name}"
else:
    try:
        frame = judgements(content, name, "" if bertscore.off_reason() else bertscore.signature())
    except DetoxInputError as err:
        st.error(render.md(err, None), icon=":material/error:")
        st.stop()
    key = hashlib.sha1(content).hexdigest()
WHO = "judge" if judge is not None else "human"
AXIS_WORD = "Judge's axis" if judge is not None else "Human axis"
if judges and with_judges:
    frame = add_judge_columns(frame, judges, skip=[judge] if judge else ())
    key += "|judges"
    gaps = judge_missing(frame, [n for n in judges if n != judge])
    st.caption(f"**LLM judges as metrics** (`<judge> (LLM):sta` ...), joined to the {len(frame):,} judged outputs by "
               "system and texts; no label (a pair the judge did not see, or an answer it could not give) is n/a, "
               "left out of the statistics: " + "; ".join(
                   f"{render.md(n)}: " + (", ".join(f"{a.upper()} {m:,}" for a, m in g.items() if m) or "none missing")
                   for n, g in gaps.items()) + ".")
if with_embedded:
    try:
        frame = add_embedded(frame)
    except EmbeddedMissingError as err:
        st.warning(f"Embedded preset: {err}")
key += str("embedded:sta" in frame.columns)
frame = preset_section(frame, list(edition.presets))
key += "|" + ",".join(c for c in frame.columns if ":" in c)
if with_stored:
    key += str(tuple(shared_store().list()["id"].tolist()))
    frame, joined = cached_join(key, frame)
    if joined.empty:
        st.caption("**Stored submissions:** none matches a judged system. A stored submission is joined when its "
                   "name (without `_test.txt`) is a judged system's name and its inputs and outputs are the judged "
                   "ones; score such a file on the **Submissions** page.")
    else:
        st.caption("**Stored submissions joined:** " + "; ".join(
            f"{render.md(r.submission)} → system {render.md(r.system)}, {r.rows:,} judged outputs, columns "
            + ", ".join(f"`{c}`" for c in r.columns.split(", ")) for r in joined.itertuples(index=False)))
if "lang" in frame and choice.source == edition.name and 0 < len(choice.languages) < len(choice.all_languages):
    # The sidebar's languages: every page works on them.
    frame = frame[frame["lang"].isin(choice.languages)].reset_index(drop=True)
    judges = {n: f[f["lang"].isin(choice.languages)] for n, f in judges.items()} if judges else judges
    key += "|" + ",".join(choice.languages)
all_frame = frame
metrics = available_metrics(all_frame)
langs_note = (f" in {all_frame['lang'].nunique()} languages" if "lang" in all_frame else "")
st.caption(f"{len(all_frame):,} judged outputs of {all_frame['participant_name'].nunique()} systems{langs_note} · "
           "automatic metrics: " + ", ".join(sorted({m for ms in metrics.values() for m in ms})))
frame, language = language_filter(all_frame, "he_lang")
key += f"|{language}"
metrics = available_metrics(frame)

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
            x=c["predicted"], y=c["observed"], mode="lines+markers", name=html.escape(curve),
            marker=dict(size=6 + 14 * np.sqrt(c["n"] / max(curves["n"].max(), 1)), color=color), line=dict(color=color),
            customdata=c["n"], hovertemplate="predicted %{x:.2f} → human %{y:.2f} (%{customdata} outputs)<extra></extra>"))
    fig.update_layout(height=380, margin=dict(t=10, b=10), xaxis=dict(title="predicted", range=[0, 1]),
                      yaxis=dict(title=f"human {human} (mean)", range=[0, 1.02]), legend=dict(orientation="h", y=-0.2))
    return fig


# One function per tab: only the open tab is computed (the bootstrap statistics wait
# until a tab shows them).


def per_sentence() -> None:
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


def correlations() -> None:
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


def meta_evaluation() -> None:
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
    st.download_button("Export CSV", lambda: meta.to_csv(index=False).encode("utf-8"), file_name="meta_eval.csv",
                       mime="text/csv", icon=":material/download:")



def calibration() -> None:
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
        embedded_fit_section(frame, name or "judgements")


VIEWS = {"Per sentence": per_sentence, "Correlations": correlations, "Meta-evaluation": meta_evaluation,
         "Calibration": calibration}
if len(judges) >= 2:
    VIEWS["Judges"] = lambda: judges_tab(judges, AXIS_NAMES)
tabs = st.tabs(list(VIEWS), key="he_tab", on_change="rerun")
for tab, draw in zip(tabs, VIEWS.values()):
    if tab.open is not False:
        with tab:
            draw()
