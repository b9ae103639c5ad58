"""Corpus: the statistics of the shown pairs (per language for a multilingual corpus) and
their charts, one tab at a time."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from detox_core.analysis.corpus import corpus_stats, language_stats
from detox_core.ui.corpus.pair import EDIT_KIND_LABEL
from detox_core.ui.sidebar.corpus import CorpusChoice
from detox_core.ui.widgets.tables import MISSING


def corpus_statistics(choice: CorpusChoice, shown: pd.DataFrame, any_lexicon: frozenset[str]) -> None:
    """Counts, edits and charts of ``shown`` (no pairs: said, and the page stops)."""
    edits, multilingual = choice.edits, choice.multilingual
    st.subheader("Statistics of the shown pairs")
    if shown.empty:
        st.caption("No pairs match.")
        st.stop()
    if multilingual:
        st.markdown("**By language**")
        by_language = language_stats(shown, edits)
        order = {code: k for k, code in enumerate(choice.languages)}
        by_language = by_language.sort_values("lang", key=lambda col: col.map(order)).reset_index(drop=True)
        st.dataframe(by_language, hide_index=True, placeholder=MISSING, column_config={
            "lang": st.column_config.TextColumn("Code", width="small"),
            "language": st.column_config.TextColumn("Language"),
            "pairs": st.column_config.NumberColumn("Toxic sentences"),
            "with_reference": st.column_config.ProgressColumn("With a paraphrase", min_value=0.0, max_value=1.0,
                                                              format="percent",
                                                              help="Share of the toxic sentences with a paraphrase"),
            "paraphrases": st.column_config.NumberColumn("Paraphrases"),
            "toxic_length": st.column_config.NumberColumn("Toxic length", format="%.0f",
                                                          help="Median words (characters for Chinese and Japanese)"),
            "neutral_length": st.column_config.NumberColumn("Neutral length", format="%.0f",
                                                            help="Median words (characters for Chinese and Japanese)"),
            "deletions": st.column_config.NumberColumn("Pure deletions", format="percent",
                                                       help="Share of changed paraphrases that only delete words"),
            "unchanged": st.column_config.NumberColumn("Unchanged copies"),
        })
        without = by_language.loc[by_language["paraphrases"] == 0, "language"].tolist()
        if without:
            st.caption(f"No paraphrase in the shown pairs of {', '.join(without)}: their references are not public "
                       "for these splits, or not fetched."
                       + (f" {choice.edition.references_hint()}" if choice.edition else ""))
    stats = corpus_stats(shown, edits, any_lexicon)
    # Four figures in a row on a wide screen, two by two on a narrow one.
    s1 = s2 = s3 = s4 = st.container(horizontal=True, wrap=True, gap="medium")
    s1.metric("Toxic sentences", f"{stats.n_pairs:,}", width=190)
    s2.metric("Paraphrases", f"{stats.n_edits:,}", width=190)
    s3.metric(
        "Pure deletions", f"{stats.deletion_share:.1%}" if stats.n_edits else "—",
        help="Share of changed paraphrases whose words are the toxic sentence's words with some removed "
        "and nothing added or replaced (case and punctuation ignored).", width=190,
    )
    s4.metric("Unchanged copies", f"{int(stats.edit_kinds.get('unchanged', 0)):,}" if stats.n_edits else "—",
              help="Paraphrases with the same words as the input.", width=190)
    if not stats.n_edits:
        st.caption("The shown pairs have no paraphrase: the charts of edits are empty.")

    # Tabs that track their state: only the open tab's chart is built on a rerun.
    tabs = st.tabs(
        ["Lengths", "Paraphrases per input", "Most often removed words", "Kinds of edit"],
        key="chart", on_change="rerun", bind="query-params",
    )
    LAYOUT = dict(height=340, margin=dict(t=10, b=10, l=10, r=10), bargap=0.05)
    if tabs[0].open is not False:
        with tabs[0]:
            lengths = stats.lengths
            cap = int(lengths["words"].quantile(0.995)) + 1
            fig = go.Figure()
            for kind, color in (("toxic", "#c0392b"), ("neutral", "#2e7d5b")):
                values = lengths.loc[(lengths["text"] == kind) & (lengths["words"] <= cap), "words"]
                fig.add_trace(go.Histogram(x=values, name=kind, marker_color=color, opacity=0.6, xbins=dict(start=0.5, size=1), histnorm="percent"))
            unit = "words (characters for Chinese and Japanese)" if multilingual else "words"
            fig.update_layout(barmode="overlay", xaxis_title=f"length in {unit}", yaxis_title="% of sentences", **LAYOUT)
            st.plotly_chart(fig, width="stretch")
            med = lengths.groupby("text")["words"].median()
            st.caption(
                f"Median length: toxic {med.get('toxic', 0):.0f} words, neutral "
                + (f"{med['neutral']:.0f} words" if "neutral" in med else "— (no paraphrase)")
                + ("; Chinese and Japanese counted in characters" if multilingual else "")
                + " (the longest 0.5% are cut from the plot)."
            )
    if tabs[1].open:
        with tabs[1]:
            refs = stats.refs_per_input
            fig = go.Figure(go.Bar(x=refs.index, y=refs.values, text=refs.values, marker_color="#2e7d5b"))
            fig.update_layout(xaxis=dict(title="paraphrases per toxic sentence", dtick=1), yaxis_title="toxic sentences", **LAYOUT)
            st.plotly_chart(fig, width="stretch")
    if tabs[2].open:
        with tabs[2]:
            removed = stats.removed.iloc[::-1]
            if removed.empty:
                st.info("No word was removed in the shown pairs (or they have no paraphrase).", icon=":material/info:")
            else:
                fig = go.Figure(
                    go.Bar(
                        x=removed["count"], y=removed["word"], orientation="h",
                        marker_color=["#c0392b" if lex else "#7f8c8d" for lex in removed["in_lexicon"]],
                        hovertemplate="%{y}: removed in %{x} paraphrases<extra></extra>",
                    )
                )
                fig.update_layout(**{**LAYOUT, "height": max(340, 18 * len(removed))},
                                  xaxis_title="paraphrases that removed the word")
                st.plotly_chart(fig, width="stretch")
                st.caption(
                    "Words of 3+ letters present in the toxic sentence and absent from the paraphrase, counted once per "
                    "paraphrase. Red: words of the toxic lexicon; grey: other words."
                )
    if tabs[3].open:
        with tabs[3]:
            kinds = stats.edit_kinds.rename(index=EDIT_KIND_LABEL)
            if not kinds.sum():
                st.info("The shown pairs have no paraphrase: there are no edits to count.", icon=":material/info:")
            else:
                fig = go.Figure(go.Bar(x=kinds.index, y=kinds.values, text=kinds.values,
                                       marker_color=["#7f8c8d", "#e67e22", "#2e7d5b"]))
                fig.update_layout(yaxis_title="paraphrases", **LAYOUT)
                st.plotly_chart(fig, width="stretch")
                st.caption(
                    "Unchanged copy: the same words as the input. Pure deletion: only words removed. "
                    "Rewrite: words added or replaced (case and punctuation ignored)."
                )
