"""Submissions: one stored submission sentence by sentence (language by language for a
multilingual corpus), a sentence's score card, and the distributions of its scores."""

from __future__ import annotations

import hashlib

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core.analysis.export import csv_export
from detox_core import vocab
from detox_core.analysis.leaderboard import is_official
from detox_core.metrics.registry import preset_class
from detox_core.submissions.explain import FLAGS
from detox_core.submissions.service import filter_sentences, language_summary, stored_references
from detox_core.ui.app import render
from detox_core.ui.app.params import clamp_value
from detox_core.ui.app.submission_store import cached_scores, cached_sentence_table
from detox_core.ui.widgets.scores import preset_label, score_card
from detox_core.ui.submissions.scoring import SubmissionTarget
from detox_core.ui.widgets.tables import MISSING
from detox_core.stats.summary import FIGURES, LABELS, summarize
from detox_core.vocab import MODEL_AXES, SCORE_COLUMNS, language_name


def show_languages(target: SubmissionTarget, scores, answered=None) -> None:
    """The viewed submission language by language, with what is missing said in words:
    languages its file does not answer apart from those the preset does not cover."""
    choice, preset, calibrated, languages = target.choice, target.preset, target.calibrated, target.languages
    summary = language_summary(scores, languages)
    answered = set(answered or ()) | set(summary.table["lang"])
    not_answered = [c for c in summary.missing if c not in answered]
    not_covered = [c for c in summary.missing if c in answered]
    st.subheader("By language")
    first = ["lang", "language", "n", "j", *MODEL_AXES]  # J first among the scores, as in the stored table
    st.dataframe(summary.table, hide_index=True, placeholder=MISSING,
                 column_order=[*first, *(c for c in summary.table if c not in first)], column_config={
        "lang": st.column_config.TextColumn("Code", width="small"),
        "language": st.column_config.TextColumn("Language"),
        "n": st.column_config.NumberColumn("Sentences"),
        **{c: st.column_config.ProgressColumn(vocab.label(c), min_value=0.0, max_value=1.0, format="%.3f",
                                              help=vocab.axis_help(c)) for c in SCORE_COLUMNS},
    })
    mean = summary.means.get("j")
    scored = summary.scored_count("j")
    value = f"**{mean:.3f}**" if mean == mean else "n/a"
    official = choice.edition.official_preset if choice.edition else None
    if scored == len(languages) and choice.edition and is_official(choice.edition, preset, calibrated):
        st.caption(f"Official average (mean J over the {scored} languages): {value}")
    elif scored == len(languages):
        st.caption(f"Mean J over the {scored} languages, each counting once: {value}."
                   + (f" The official average is this with {preset_label(official)}, not {preset_label(preset)}."
                      if official else ""))
    else:
        st.caption(f"Mean J over {scored} of {len(languages)} languages: {value}. Not the official average, which "
                   "needs every language scored; not comparable with means over every language.")
    if not_answered:
        st.warning(f"Partial: the file does not answer {', '.join(language_name(c) for c in not_answered)}.",
                   icon=":material/translate:")
    if not_covered:
        st.info(f"Answered but not scored: {', '.join(language_name(c) for c in not_covered)}. The "
                f"{preset_label(preset)} preset covers {preset_class(preset).coverage()}; pick a preset that covers "
                "them to score them (n/a here, never zero).", icon=":material/translate:")
    if summary.unscored.get("j"):
        st.info(f"FL and J are n/a for {', '.join(language_name(c) for c in summary.unscored['j'])}: this split has "
                "no references for them (the recipe's fluency compares the rewrite with references). STA and SIM "
                "are scored." + (f" {choice.edition.references_hint()}" if choice.edition else ""),
                icon=":material/info:")


def submission_sentences(target: SubmissionTarget, listed: pd.DataFrame, view_id: int, name: str) -> None:
    """The submission ``view_id``: by language (multilingual), its sentences with filters and
    the selected one's score card, then the distributions of its scores."""
    choice = target.choice
    if target.multilingual:
        view_scores = cached_scores(view_id)
        references = stored_references(view_scores, target.rows)
    else:
        references = target.references
    refs_key = hashlib.sha1(repr(references).encode()).hexdigest()
    table = cached_sentence_table(view_id, f"{choice.source}|{refs_key}", references, choice.lexicon)
    if target.multilingual:
        show_languages(target, view_scores, listed.set_index("id").at[view_id, "answered"])
        table = table[table["lang"].isin(target.languages)]
    _summary(table)
    _sentences(target, table, references, view_id, name)
    _distributions(table)


@st.cache_data(max_entries=16, show_spinner="Bootstrapping the intervals…")
def _summary_text(table: pd.DataFrame) -> str:
    summary = summarize(table[[c for c in ("lang", *FIGURES) if c in table]], by_language=False)
    figures = " · ".join(f"{LABELS[c]} {fig.text()}" for c, fig in summary.figures.items())
    return f"{figures} ({summary.averaged}; n = {summary.n:,})"


def _summary(table: pd.DataFrame) -> None:
    """The viewed submission's means with their 95% bootstrap intervals: the summary
    ``detox score`` and ``detox_core.score`` give (:func:`detox_core.stats.summary.summarize`)."""
    if table.empty:
        return
    st.markdown(f"**Means with 95% intervals**: {_summary_text(table)}",
                help="Each mean with its 95% bootstrap interval (1,000 resamples of the sentences, within each "
                     "language; over several languages each language's mean counts once). An interval is n/a where "
                     "a language has a single sentence. The same figures as `detox score` and `detox_core.score`.")


def _sentences(target: SubmissionTarget, table: pd.DataFrame, references, view_id: int, name: str) -> None:
    multilingual = target.multilingual
    st.subheader(f"Sentences of {render.md(name)}")
    filters = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
    text = filters.text_input("Search input or output", key="sub_q", width=260)
    clamp_value("sub_j", 0.0, 1.0)
    j_max = filters.slider("Only J below", 0.0, 1.0, 1.0, 0.01, key="sub_j", width=180,
                           help="Sentences whose J is below this value; at 1.00 every sentence is shown.")
    flag_filter = filters.multiselect("Flags", list(FLAGS.values()), key="sub_flags", width=220, placeholder="any")
    limit_filter = filters.multiselect("Limited by", list(MODEL_AXES), key="sub_limit", width=160, placeholder="any",
                                       format_func=str.upper, help="The axis with the lowest score (it caps J)")
    shown = filter_sentences(table, text, j_max if j_max < 1.0 else None, flag_filter, limit_filter)
    st.caption(f"{len(shown):,} of {len(table):,} sentences · sort by any column by clicking its header")
    if other := int(table["flags"].str.contains(FLAGS["language"], regex=False).sum()):
        st.warning(f"{other:,} of {len(table):,} outputs are in another language or script than their input. "
                   f"Pick \"{FLAGS['language']}\" under Flags to see them.", icon=":material/translate:")
    if unanswered := int(table[["sta", "sim"]].isna().any(axis=1).sum()):  # an LLM judge's missing answers
        st.caption(f"{unanswered:,} of {len(table):,} sentences have no STA or SIM (an answer could not be had): "
                   "their J is n/a, and the means skip them.")
    event = st.dataframe(
        shown[["line", *(["lang"] if multilingual else []), "input", "output", *SCORE_COLUMNS, "limiting", "flags"]],
        key=f"sub_table_{view_id}", on_select="rerun", selection_mode="single-row", hide_index=True,
        placeholder=MISSING, height=360,
        column_config={
            "line": st.column_config.NumberColumn(
                "#" if multilingual else "Line", width="small",
                help="Sentence number, in the split's order of inputs" if multilingual else "Line of the submission"),
            "lang": st.column_config.TextColumn("Lang", width="small"),
            "input": st.column_config.TextColumn("Input", width="large"),
            "output": st.column_config.TextColumn("Output", width="large"),
            **{c: st.column_config.NumberColumn(vocab.label(c), format="%.2f", width="small", help=vocab.axis_help(c))
               for c in SCORE_COLUMNS},
            "limiting": st.column_config.TextColumn("Limit", help="The axis with the lowest score (it caps J)",
                                                     width="small"),
            "flags": st.column_config.TextColumn("Flags"),
        },
    )
    st.download_button("Export CSV", lambda: csv_export(shown),
                       file_name=f"{name}.scores.csv", mime="text/csv", icon=":material/download:")
    rows = list(event.selection.rows) if event is not None else []
    if rows:
        row = shown.iloc[rows[0]]
        refs = references[int(row["idx"])]
        score_card(row["input"], row["output"], row.to_dict(), target.choice.lexicon, preset=target.preset,
                   lang=row.get("lang"),
                   title=f"Sentence {int(row['idx']) + 1}" + (f" · references: {' | '.join(refs)}" if refs else ""))
    else:
        st.caption("Select a row to see the pair, its references, the diff and why J is what it is.")


def _distributions(table: pd.DataFrame) -> None:
    st.subheader("Distributions")
    fig = go.Figure()
    for col, color in (("sta", "#2e7d5b"), ("sim", "#2c7fb8"), ("fl", "#e67e22"), ("j", "#6a1b9a")):
        fig.add_trace(go.Histogram(x=table[col], name=col.upper(), marker_color=color, opacity=0.6,
                                   xbins=dict(start=0, end=1.0001, size=0.05)))
    fig.update_layout(barmode="overlay", height=320, margin=dict(t=10, b=10), xaxis_title="score",
                      yaxis_title="sentences")
    st.plotly_chart(fig, width="stretch")
