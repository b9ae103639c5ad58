"""Compare systems: the means of two or more submissions with their intervals (per
language for a multilingual corpus), which differences are significant, and one pair of
systems sentence by sentence."""

from __future__ import annotations


import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core import vocab
from detox_core.analysis.compare import (
    AXES,
    largest_differences,
    paired_differences,
    per_language_means,
    system_means,
    win_tie_loss,
)
from detox_core.analysis.compare_languages import common_languages
from detox_core.analysis.export import csv_export, signature_caption, with_interval
from detox_core.metrics.reference import reference_notes
from detox_core.metrics.registry import preset_class
from detox_core.text import word_diff
from detox_core.ui.app import render
from detox_core.ui.app.params import keep_options
from detox_core.ui.widgets.scores import preset_label
from detox_core.ui.sidebar.corpus import CorpusChoice
from detox_core.ui.widgets.tables import MISSING, paper_downloads

AXIS_NAMES = vocab.LABELS
N_BOOT = 1000


@st.cache_data(show_spinner="Paired bootstrap of every pair…", max_entries=32)
def cached_significance(systems: tuple[str, ...], table, by_language: bool = False):
    """Means with intervals and the pairs' tests (computed once per set of systems)."""
    return (system_means(table, systems, N_BOOT, by_language=by_language),
            paired_differences(table, list(systems), N_BOOT, by_language=by_language))


def _langs(codes) -> str:
    return ", ".join(f"{vocab.language_name(c)} ({c})" for c in codes)


def language_scope(frames: dict, subset: pd.DataFrame, names: dict, picked: list, languages: tuple[str, ...],
                   group: tuple) -> tuple[dict, list[str]]:
    """The frames cut to the picked languages every system answers, and those languages; the
    partial systems and the languages the preset does not cover said (none in common stops the page)."""
    answered_by = {names[i]: subset.set_index("id").at[i, "answered"] for i in picked}
    frames, common, missing, uncovered = common_languages(frames, languages, answered_by)
    for name, langs in missing.items():
        st.warning(f"{render.md(name, None)} is partial: it does not answer {_langs(langs)}; the systems are compared "
                   "on the languages all of them answer.", icon=":material/info:")
    if uncovered:
        st.info(f"The {preset_label(*group)} preset covers {render.md(preset_class(group[0]).coverage(), None)}: "
                f"{_langs(uncovered)} are answered but not scored (n/a, never zero). The means below are over "
                f"{len(common)} of {len(languages)} languages, not the edition's average.",
                icon=":material/info:")
    if not common:
        st.info("These systems answer no picked language in common.")
        st.stop()
    st.caption(f"Compared on {len(common)} language(s): {_langs(common)}. Means are over languages (each counts once, "
               "whatever its size), resampling sentences within each language.")
    return frames, common


def means_section(choice: CorpusChoice, split: str, group: tuple, table: pd.DataFrame, labels: list[str],
                  means: pd.DataFrame, by_language: bool, common: list[str] | None, store, first: int) -> list[str]:
    """The means with their intervals, their paper table and (per language) their table per
    language; returns the axes no compared system has a score on (``first``: the stored
    submission whose signature the scores carry)."""
    st.subheader("Means over languages" if by_language else "Means")
    # An axis no compared system has a score on (BERTScore off when they were scored, a model
    # that could not run): said once below, with the reason the scores' signature gives, and not
    # as "no references" in every language (a split with references said it had none).
    unscored_axes = [a for a in AXES if means[means["axis"] == a]["mean"].isna().all()]
    if by_language:
        # One message per set of languages, naming every metric it concerns (the reference metrics
        # share their gaps: four boxes said the same thing).
        gaps: dict[str, list[str]] = {}
        for a, u in zip(means["axis"], means["unscored"]):
            if u and a not in unscored_axes and AXIS_NAMES[a] not in gaps.setdefault(u, []):
                gaps[u].append(AXIS_NAMES[a])
        for unscored, labels_ in ((u, ls) for u, ls in gaps.items() if ls):
            named = ", ".join(labels_[:-1]) + f" and {labels_[-1]}" if len(labels_) > 1 else labels_[0]
            st.warning(f"{named}: n/a — no references for {_langs(unscored.split(', '))}; left out of "
                       f"{'their' if len(labels_) > 1 else 'its'} means (never counted as 0).", icon=":material/info:")
    stored_signature = store.get(first).signature
    if unscored_axes:
        notes = reference_notes(stored_signature)
        for a in unscored_axes:
            st.caption(f"{AXIS_NAMES[a]}: n/a for these systems — "
                       + render.md(notes.get(a) or ("not computed when they were scored (organizers turn it on under "
                                                    "Metric models)" if a == "bertscore" else "no scores on this axis"),
                                   None) + "; left out of the comparison.")
    chart_axes = [a for a in AXES if a not in unscored_axes]
    fig = go.Figure()
    for name in labels:
        m = means[means["system"] == name].set_index("axis").loc[chart_axes]
        fig.add_trace(go.Bar(
            name=render.plot_text(name), x=[AXIS_NAMES[a] for a in chart_axes], y=m["mean"],
            error_y=dict(type="data", symmetric=False, array=m["high"] - m["mean"], arrayminus=m["mean"] - m["low"]),
            hovertemplate="%{x}: %{y:.3f}<extra>" + render.plot_text(name) + "</extra>",
        ))
    fig.update_layout(barmode="group", height=320, margin=dict(t=10, b=10), yaxis=dict(range=[0, 1]),
                      legend=dict(orientation="h", y=-0.15))
    st.plotly_chart(fig, width="stretch")
    st.caption(f"Error bars: 95% bootstrap intervals over sentences ({N_BOOT:,} resamples"
               + (", within each language)." if by_language else ")."))
    paper = pd.DataFrame({"system": labels})
    for a in AXES:
        m = means[means["axis"] == a].set_index("system")
        paper[a] = [with_interval(m.at[n, "mean"], m.at[n, "low"], m.at[n, "high"]) if n in m.index else MISSING
                    for n in labels]
    paper_downloads(paper, {"system": "System", **{a: AXIS_NAMES[a] for a in AXES}},
                    signature_caption(f"{choice.label}, {split} split: {preset_label(*group)}, means with 95% bootstrap "
                                      "intervals over " + ("sentences within each language, each language counting once"
                                                           if by_language else "sentences"),
                                      stored_signature, languages=", ".join(common) if by_language else None),
                    f"compare_{choice.source}_{split}", "cmp_paper")
    if by_language:
        st.subheader("Per language")
        lang_axis = st.segmented_control("Axis", list(AXIS_NAMES), default="j", required=True, key="cmp_lang_axis",
                                         wrap=True, format_func=AXIS_NAMES.get) or "j"
        per = per_language_means(table, labels, lang_axis)
        per.insert(1, "mean", means[means["axis"] == lang_axis].set_index("system").loc[labels, "mean"].to_numpy())
        st.dataframe(per, hide_index=True, placeholder=MISSING, key="cmp_per_lang", column_config={
            "system": st.column_config.TextColumn("System"),
            "mean": st.column_config.NumberColumn(f"{AXIS_NAMES[lang_axis]} mean over languages", format="%.3f"),
            **{c: st.column_config.NumberColumn(c.upper(), format="%.3f", help=vocab.language_name(c))
               for c in per.columns[2:]}})
        st.caption(f"{AXIS_NAMES[lang_axis]} per language; — = no score ("
                   + ("none of these systems has one on this axis: see above)." if lang_axis in unscored_axes
                      else "no references for that language)."))
    return unscored_axes


def significance_section(pairs: pd.DataFrame, unscored_axes: list[str], by_language: bool) -> None:
    """The paired bootstrap tests of every pair of systems, on one axis or all."""
    st.subheader("Which differences are significant")
    pairs = pairs[~pairs["axis"].isin(unscored_axes)]  # nothing to test on an axis without scores
    shown = pairs.assign(
        interval=[f"[{lo:+.3f}, {hi:+.3f}]" if lo == lo else "—" for lo, hi in zip(pairs["low"], pairs["high"])],
        axis=pairs["axis"].map(AXIS_NAMES), verdict=[
            "n/a (no scores)" if not n or d != d else ("A better" if d > 0 else "B better") if sig
            else "no significant difference" for d, sig, n in zip(pairs["delta"], pairs["significant"], pairs["n"])],
    )
    sig_axes = ["all", *(AXIS_NAMES[a] for a in AXES if a not in unscored_axes)]
    keep_options("cmp_sig_axis", sig_axes)
    only = st.segmented_control("Axes", sig_axes, default="J", required=True, key="cmp_sig_axis", wrap=True)
    if only != "all":
        shown = shown[shown["axis"] == only]
    st.dataframe(
        shown[["a", "b", "axis", "delta", "interval", "p", "verdict", "n"]],
        column_config={
            "a": st.column_config.TextColumn("System A"), "b": st.column_config.TextColumn("System B"),
            "axis": st.column_config.TextColumn("Axis", width="small"),
            "delta": st.column_config.NumberColumn("A - B", format="%+.3f", help="Mean difference over sentences"),
            "interval": st.column_config.TextColumn("95% CI of A - B"),
            "p": st.column_config.NumberColumn("p", format="%.3f", help="Two-sided paired bootstrap p-value"),
            "verdict": st.column_config.TextColumn("At p < 0.05", width="medium"),
            "n": st.column_config.NumberColumn("Sentences", width="small"),
        },
        hide_index=True, key="cmp_sig_table", placeholder=MISSING,
    )
    st.caption(f"Paired bootstrap over sentences ({N_BOOT:,} resamples, the same ones for every pair and axis, as on the "
               "Leaderboard): A - B is the mean difference, its 95% interval and the two-sided p-value of no difference. "
               "Sentences without a score on an axis (chrF without references) are left out of it."
               + (" Here A - B is the difference of the means over languages, resampling within each language; a language "
                  "without references is left out of the axes that need them." if by_language else ""))


def pair_section(table: pd.DataFrame, labels: list[str], by_language: bool, lexicon) -> None:
    """Two systems sentence by sentence: wins, ties and losses, the largest differences and
    the word diff of a selected row."""
    a, b = labels[0], labels[1]
    if len(labels) > 2:
        p1, p2 = st.columns(2)
        a = p1.selectbox("Pair: system A", labels, index=0, key="cmp_a")
        b = p2.selectbox("system B", [n for n in labels if n != a], index=0, key="cmp_b")
    st.subheader(f"{render.md(a)} vs {render.md(b)}")
    wtl = win_tie_loss(table, a, b)
    fig = go.Figure()
    for part, color in (("win", "#2e7d5b"), ("tie", "#bdbdbd"), ("loss", "#c0392b")):
        fig.add_trace(go.Bar(name={"win": f"{render.plot_text(a)} better", "tie": "tie", "loss": f"{render.plot_text(b)} better"}[part], y=[AXIS_NAMES[x] for x in wtl["axis"]],
                             x=wtl[part], orientation="h", marker_color=color, text=wtl[part], textposition="inside"))
    fig.update_layout(barmode="stack", height=260, margin=dict(t=10, b=10), xaxis_title="sentences",
                      yaxis=dict(autorange="reversed"), legend=dict(orientation="h", y=-0.25))
    st.plotly_chart(fig, width="stretch")
    st.caption("Win / tie / loss per sentence: a tie is a difference of at most 0.05, or identical outputs.")
    axis = st.segmented_control("Largest differences in", list(AXIS_NAMES), default="j", required=True, key="cmp_axis", wrap=True,
                                format_func=AXIS_NAMES.get) or "j"
    ranked = largest_differences(table, a, b, axis)
    view = ranked[["line", *(["lang"] if by_language else []), "input", f"output:{a}", f"output:{b}", f"{axis}:{a}", f"{axis}:{b}", "delta"]]
    event = st.dataframe(
        view, key=f"cmp_table_{a}_{b}_{axis}", on_select="rerun", placeholder=MISSING, selection_mode="single-row", hide_index=True, height=360,
        column_config={
            "line": st.column_config.NumberColumn("Line", width="small"),
            "lang": st.column_config.TextColumn("Lang", width="small"),
            "input": st.column_config.TextColumn("Input", width="medium"),
            f"output:{a}": st.column_config.TextColumn(a, width="medium"),
            f"output:{b}": st.column_config.TextColumn(b, width="medium"),
            f"{axis}:{a}": st.column_config.NumberColumn(f"{AXIS_NAMES[axis]} {a}", format="%.2f"),
            f"{axis}:{b}": st.column_config.NumberColumn(f"{AXIS_NAMES[axis]} {b}", format="%.2f"),
            "delta": st.column_config.NumberColumn("A - B", format="%+.2f"),
        },
    )
    st.download_button("Export CSV", lambda: csv_export(ranked), file_name=f"compare_{a}_{b}.csv",
                       mime="text/csv", icon=":material/download:")
    rows = list(event.selection.rows) if event is not None else []
    if rows:
        row = view.iloc[rows[0]]
        st.markdown(render.STYLE + render.LEGEND, unsafe_allow_html=True)
        st.caption(f"Line {int(row['line'])}: words of {render.md(b)}'s output against {render.md(a)}'s.")
        src, tgt = render.diff_html(word_diff(row[f"output:{a}"], row[f"output:{b}"], lexicon))
        left, right = st.columns(2)
        left.markdown(f"**{render.md(a)}**")
        left.markdown(src, unsafe_allow_html=True)
        right.markdown(f"**{render.md(b)}**")
        right.markdown(tgt, unsafe_allow_html=True)
    else:
        st.caption("Select a row to see the two outputs' word diff.")
