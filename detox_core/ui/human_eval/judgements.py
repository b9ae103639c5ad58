"""The Human vs automatic page's multilingual parts: LLM judges as judgements, preset
scores of the judged pairs, per-language agreement, judge-vs-judge agreement, one pair's
texts (right to left where the language is)."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core.analysis.meta_eval import ALL_LANGUAGES, add_preset_scores, per_language_agreement, preset_scores
from detox_core.data.judge_labels import (column_judge, default_metric, judge_agreement_by_language,
                                          judge_agreement_table, judge_model, load_judges, load_pairs, same_judge)
from detox_core.editions import Edition
from detox_core.errors import ScorerUnavailableError
from detox_core.metrics.registry import preset_class, preset_label
from detox_core.ui.app import render
from detox_core.ui.app.models import shared_pool
from detox_core.ui.widgets.tables import MISSING
from detox_core.vocab import HUMAN_AXES, RTL_LANGUAGES, language_name

#: What a language filter offers first: every language together.
EVERY_LANGUAGE = "all languages"


def judge_files(edition: Edition) -> dict[str, Path]:
    """The edition's fetched LLM-judge files, judge name -> path (empty when the judges
    name their pairs by id and the pairs file is missing)."""
    if edition.judged_pairs and edition.optional(edition.judged_pairs) is None:
        return {}
    paths = [edition.optional(rel) for rel in edition.judges]
    return {p.stem: p for p in paths if p is not None}


@st.cache_data(show_spinner="Reading the LLM judges' labels…", max_entries=4)
def _judges(paths: tuple[str, ...], pairs: str | None, stamp: tuple) -> dict[str, pd.DataFrame]:
    return load_judges([Path(p) for p in paths], load_pairs(Path(pairs)) if pairs else None)


def edition_judges(edition: Edition) -> dict[str, pd.DataFrame]:
    """Every fetched judge of the edition as judgements (cached; re-read when a file changes)."""
    files = judge_files(edition)
    if not files:
        return {}
    pairs = edition.optional(edition.judged_pairs) if edition.judged_pairs else None
    stamp = tuple(p.stat().st_mtime_ns for p in [*files.values(), *([pairs] if pairs else [])])
    return _judges(tuple(str(p) for p in files.values()), str(pairs) if pairs else None, stamp)


def metric_picker(container, metrics: list[str], judge: str | None, label: str, key: str) -> str:
    """A metric to put against the judgements (people's, or ``judge``'s labels): by default one
    from another source (:func:`~detox_core.data.judge_labels.default_metric`); one picked from the
    same judge is said to be so."""
    metric = container.selectbox(label, metrics, index=default_metric(metrics, judge), key=key)
    same_judge_note(metric, judge, container)
    return metric


def same_judge_note(metric: str, judge: str | None, container=st) -> None:
    """Said where a metric holds the labels of the judge it is put against."""
    other = column_judge(metric)
    if judge is not None and other is not None and same_judge(other, judge):
        how = "the same way" if other == judge else "otherwise"
        container.caption(f"**Same judge on both sides:** {render.md(metric)} holds labels of "
                          f"{render.md(judge_model(judge))}, the model whose labels ({render.md(judge)}) are the "
                          f"judgements here (prompted {how}). Their agreement says how consistent that judge is, "
                          "not how well a metric matches a different judge.")


def automatic_notice(judge: str) -> None:
    """Said wherever a judge's labels stand where human labels would."""
    st.warning(f"**{render.md(judge)}** is an LLM judge: its labels are **automatic judgements, not human ones**. "
               "Agreement here says how two automatic evaluations agree, not how well a metric matches people.",
               icon=":material/smart_toy:")


def language_filter(frame: pd.DataFrame, key: str) -> tuple[pd.DataFrame, str]:
    """A language picker for judgements with a ``lang`` column: the rows of the chosen
    language (or all of them) and the choice."""
    if "lang" not in frame:
        return frame, EVERY_LANGUAGE
    langs = list(dict.fromkeys(frame["lang"].tolist()))
    chosen = st.selectbox("Language", [EVERY_LANGUAGE, *langs], key=key, width=360,
                          format_func=lambda c: c if c == EVERY_LANGUAGE else f"{language_name(c)} ({c})",
                          help="The per-sentence, correlation, meta-evaluation and calibration views use the rows of "
                          "this language; the per-language view compares them all.")
    return (frame if chosen == EVERY_LANGUAGE else frame[frame["lang"] == chosen].reset_index(drop=True)), chosen


def languages_text(codes) -> str:
    return ", ".join(f"{language_name(c)} ({c})" for c in codes)


def _missing_by_language(frame: pd.DataFrame, columns: list[str]) -> dict[str, list[str]]:
    """Column -> the languages where none of its rows has a value."""
    if "lang" not in frame:
        return {}
    out = {}
    for col in columns:
        empty = frame.groupby("lang", sort=False)[col].apply(lambda s: s.notna().sum() == 0)
        if empty.any():
            out[col] = empty[empty].index.tolist()
    return out


def covered_rows(frame: pd.DataFrame, preset: str) -> np.ndarray | None:
    """The rows in a language the preset's models cover (None: every row; no ``lang`` column)."""
    if "lang" not in frame:
        return None
    covers = {lang: preset_class(preset).covers(lang) for lang in frame["lang"].unique()}
    return frame["lang"].map(covers).to_numpy(bool)


def add_embedded(frame: pd.DataFrame) -> pd.DataFrame:
    """The embedded preset's scores of the judged pairs in the languages it covers: scored
    once with a progress bar, then read from the disk cache."""
    russian = covered_rows(frame, "embedded")
    coverage = preset_class("embedded").coverage()
    if russian is not None and not russian.any():
        st.caption(f"**Embedded preset:** it covers {coverage}, and these judgements have no pair in it.")
        return frame
    bar = st.empty()

    def step(name: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"Scoring the {total:,} judged pairs with the embedded "
                     f"preset (once; kept for the next start): {name}")

    with st.spinner("Embedded preset scores of the judged pairs…"):
        scores = preset_scores(frame, "embedded", rows=russian, progress=step)
    bar.empty()
    if russian is not None:
        others = sorted(set(frame.loc[~russian, "lang"]))
        if others:
            st.caption(f"**Embedded preset:** it covers {coverage}: {int(russian.sum()):,} pairs scored; no embedded "
                       f"scores in {languages_text(others)}.")
    return add_preset_scores(frame, scores, "embedded")


def preset_section(frame: pd.DataFrame, presets: list[str]) -> pd.DataFrame:
    """Score the judged pairs with one of the edition's model presets on request (a
    progress bar; kept on disk, so a later visit adds them without scoring); say what
    cannot run here and what can."""
    presets = [p for p in presets if p != "embedded"]
    if not presets:
        return frame
    with st.expander("Score the judged pairs with a model preset", icon=":material/model_training:"):
        c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
        preset = c1.selectbox("Preset", presets, format_func=preset_label, key="he_preset")
        n = len(frame) if "lang" not in frame else int(frame["lang"].map(preset_class(preset).covers).sum())
        go_score = c2.button(f"Score {n:,} pairs", key="he_preset_go", icon=":material/play_arrow:",
                             help=f"{preset_label(preset)} covers {preset_class(preset).coverage()}.")
        pool = shared_pool()
        rows = covered_rows(frame, preset)
        try:
            scores = preset_scores(frame, preset, rows=rows, pool=pool, cached_only=True)
        except ScorerUnavailableError as err:
            st.error(render.md(err, None), icon=":material/error:")
            return frame
        if scores is None and go_score:
            bar = st.progress(0.0, text="Loading the models…")

            def step(name: str, done: int, total: int) -> None:
                bar.progress(min(done / max(total, 1), 1.0), text=f"{preset_label(preset)}: {name}: {done:,} / {total:,}")

            try:
                scores = preset_scores(frame, preset, rows=rows, pool=pool, progress=step)
            except ScorerUnavailableError as err:
                bar.empty()
                st.error(render.md(err, None), icon=":material/error:")
                st.info("What runs on this server without those models: the **embedded** preset (offline, Russian "
                        "only), the **LLM judges' labels** and **stored submissions'** scores (toggles above).",
                        icon=":material/info:")
                return frame
            bar.empty()
        if scores is None:
            st.caption(f"{preset_label(preset)} needs its models (from the model hub, or local folders set under "
                       "**Metric models** in the sidebar); scoring runs once and is kept for every later visit.")
            return frame
        out = add_preset_scores(frame, scores, preset)
        cols = [f"{preset}:{a}" for a in HUMAN_AXES]
        st.caption(f"Scores of {preset_label(preset)} added as " + ", ".join(f"`{c}`" for c in cols) + ".")
        for col in cols:
            if out[col].isna().all():
                st.caption(f"`{col}`: n/a for every pair (this recipe needs references, which these pairs lack).")
        for col, langs in _missing_by_language(out[out[cols].notna().any(axis=1)] if len(out) else out, cols).items():
            st.caption(f"`{col}`: no score in {languages_text(langs)}.")
        return out


@st.cache_data(show_spinner="Agreement language by language…", max_entries=32)
def _per_language(key: str, axis: str, metric: str, _frame: pd.DataFrame) -> pd.DataFrame:
    return per_language_agreement(_frame, axis, metric)


def per_language_tab(frame: pd.DataFrame, metrics: dict[str, list[str]], axis_names: dict[str, str], key: str,
                     who: str, judge: str | None = None) -> None:
    """One axis against one metric, language by language: sentence-level Spearman,
    Kendall, Pearson, ROC-AUC and system-level agreement over the systems. ``judge``: the
    LLM judge whose labels are the judgements (None: people's)."""
    a1, a2 = st.columns(2)
    axis = a1.selectbox(f"{who.capitalize()} axis", list(HUMAN_AXES), format_func=axis_names.get, key="he_lang_axis")
    if not metrics[axis]:
        st.info("No automatic metric for this axis.")
        return
    metric = metric_picker(a2, metrics[axis], judge, "Automatic metric", f"he_lang_metric_{axis}")
    table = _per_language(key, axis, metric, frame)
    missing = table.loc[(table["n"] == 0) & (table["lang"] != ALL_LANGUAGES), "lang"].tolist()
    shown = table.assign(language=[ALL_LANGUAGES if c == ALL_LANGUAGES else language_name(c) for c in table["lang"]])
    scored = shown[shown["n"] > 0]
    fig = go.Figure()
    for stat, color, name in (("spearman", "#2c7fb8", "Spearman"), ("kendall", "#2e7d5b", "Kendall"),
                              ("pearson", "#e67e22", "Pearson")):
        error = dict(type="data", symmetric=False, array=scored["spearman_high"] - scored["spearman"],
                     arrayminus=scored["spearman"] - scored["spearman_low"]) if stat == "spearman" else None
        fig.add_trace(go.Bar(name=name, x=scored["language"], y=scored[stat], marker_color=color, error_y=error))
    fig.update_layout(barmode="group", height=340, margin=dict(t=10, b=10), yaxis=dict(range=[-1, 1], title="correlation"),
                      legend=dict(orientation="h", y=-0.2))
    st.plotly_chart(fig, width="stretch", config={"displayModeBar": False})
    st.caption(f"Sentence level, {who} {axis_names[axis]} against `{metric}` in each language (95% bootstrap "
               "interval of Spearman). **System level**: the per-system means within the language, over "
               f"{int(table['systems'].max()) if table['systems'].notna().any() else 0} systems.")
    if missing:
        st.warning(f"`{metric}` has no score in {languages_text(missing)}: those languages are left out.",
                   icon=":material/block:")
    columns = ["language", "lang", "n", "spearman", "spearman_low", "spearman_high", "kendall", "pearson", "roc_auc",
               "systems", "system_spearman", "system_kendall", "ranking_accuracy"]
    st.dataframe(shown[columns], hide_index=True, placeholder=MISSING, column_config={
        "language": st.column_config.TextColumn("Language"), "lang": st.column_config.TextColumn("Code", width="small"),
        "n": st.column_config.NumberColumn("Sentences", width="small"),
        "systems": st.column_config.NumberColumn("Systems", width="small"),
        **{c: st.column_config.NumberColumn(c.replace("_", " ").capitalize().replace("auc", "AUC"), format="%.3f")
           for c in columns[3:] if c != "systems"}})


def judges_tab(judges: dict[str, pd.DataFrame], axis_names: dict[str, str]) -> None:
    """How often two LLM judges give the same label, per axis and per language."""
    st.markdown("Two LLM judges **agree** on a pair when they give it the same label; **Cohen's kappa** corrects that "
                "share for the agreement two judges with their label frequencies would reach by chance (1: always the "
                "same, 0: chance). Only pairs both judges answered count. Both sides are automatic judgements.")
    axis = st.selectbox("Axis", list(HUMAN_AXES), format_func=axis_names.get, key="he_jj_axis", width=360)
    column = HUMAN_AXES[axis]
    silent = [name for name, f in judges.items() if f[column].isna().all()]
    answered = {name: f for name, f in judges.items() if name not in silent}
    if silent:
        st.caption(f"No {axis_names[axis]} labels from: " + ", ".join(render.md(s) for s in silent) + ".")
    if len(answered) < 2:
        st.info("Fewer than two judges give this label.", icon=":material/info:")
        return
    table = judge_agreement_by_language(answered, column)
    # Judges lettered (A, B, ...) so that the map keeps its width on a narrow screen; the
    # hover and the caption give their names.
    letters = {name: chr(ord("A") + i) for i, name in enumerate(answered)}
    table["pair"] = table["judge_a"].map(letters) + " · " + table["judge_b"].map(letters)
    langs = list(dict.fromkeys(table["lang"]))
    heat = table.pivot(index="pair", columns="lang", values="kappa").reindex(columns=langs)
    names = table.drop_duplicates("pair").set_index("pair").reindex(heat.index)
    hover = np.array([[f"{a} · {b}" for _ in langs] for a, b in zip(names["judge_a"], names["judge_b"])])
    fig = go.Figure(go.Heatmap(z=heat.to_numpy(), x=[c if c == "all" else language_name(c) for c in heat.columns],
                               y=list(heat.index), zmin=-0.2, zmax=1, colorscale="Greens",
                               text=np.round(heat.to_numpy(), 2), texttemplate="%{text}", customdata=hover,
                               hovertemplate="%{customdata}<br>%{x}: kappa %{z:.3f}<extra></extra>"))
    fig.update_layout(height=120 + 30 * len(heat), margin=dict(t=10, b=10, l=10, r=10),
                      yaxis=dict(automargin=True, autorange="reversed"))
    st.plotly_chart(fig, width="stretch", config={"displayModeBar": False})
    st.caption("Judges: " + "; ".join(f"**{letter}** {render.md(name)}" for name, letter in letters.items()) + ".")
    st.caption(f"Cohen's kappa of each pair of judges on {axis_names[axis]}, by language.")
    lang = st.selectbox("Agreement matrix of", ["all", *[c for c in langs if c != "all"]], key="he_jj_lang", width=360,
                        format_func=lambda c: EVERY_LANGUAGE if c == "all" else f"{language_name(c)} ({c})")
    frames = answered if lang == "all" else {n: f[f["lang"] == lang] for n, f in answered.items()}
    matrix = judge_agreement_table(frames, column)
    st.dataframe(matrix, placeholder=MISSING, column_config={
        c: st.column_config.NumberColumn(c, format="%.3f") for c in matrix.columns})
    st.caption("Share of pairs with the same label (row judge, column judge).")
    st.dataframe(table[["lang", "judge_a", "judge_b", "n", "agreement", "kappa"]], hide_index=True,
                 placeholder=MISSING, height=280, column_config={
                     "lang": st.column_config.TextColumn("Language", width="small"),
                     "judge_a": st.column_config.TextColumn("Judge A"), "judge_b": st.column_config.TextColumn("Judge B"),
                     "n": st.column_config.NumberColumn(
                         "Pairs", width="small", help="Pairs (input, output) that both judges labelled: LLM judges "
                         "may have labelled more systems' outputs than people judged"),
                     "agreement": st.column_config.NumberColumn("Agreement", format="%.3f"),
                     "kappa": st.column_config.NumberColumn("Kappa", format="%.3f")})


def pair_detail(row: pd.Series) -> None:
    """One judged pair's texts, right to left for a right-to-left language."""
    lang = str(row.get("lang", "") or "")
    rtl = lang in RTL_LANGUAGES
    parts = [("Input", row["toxic_sentence"]), ("Output", row["neutral_sentence"])]
    if isinstance(row.get("neutral_sentence_reference"), str) and row["neutral_sentence_reference"]:
        parts.append(("Reference", row["neutral_sentence_reference"]))
    lang_attr = f" lang='{html.escape(lang, quote=True)}'" if lang else ""
    blocks = "".join(
        f"<div style='margin:.2rem 0'><span style='color:#5b6b63;font-size:.8rem'>{label}</span>"
        f"<div class='dx-text' dir='{'rtl' if rtl else 'auto'}'{lang_attr}>{html.escape(str(text))}</div></div>"
        for label, text in parts)
    st.markdown(render.STYLE + blocks, unsafe_allow_html=True)
