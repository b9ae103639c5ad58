"""Corpus: browse the parallel corpus of toxic sentences and their paraphrases."""

from __future__ import annotations

import hashlib

import plotly.graph_objects as go
import streamlit as st

from detox_core.analysis.corpus import corpus_stats, CorpusQuery, filter_corpus, language_stats, public_columns
from detox_core.data import PARAPHRASE_COLUMNS
from detox_core.errors import DetoxInputError
from detox_core.lexicons import lexicon_note
from detox_core.text import edit_kind, word_diff
from detox_core.ui.app.auth import require_page
from detox_core.ui.app import render
from detox_core.ui.app.params import clamp_range, keep_options
from detox_core.ui.sections.sidebar import current_choice
from detox_core.ui.sections.similar import find_similar_section
from detox_core.ui.sections.tables import MISSING
from detox_core.vocab import UNSPACED_LANGUAGES, language_name

TABLE_COLUMNS = ["pair_id", "split", "toxic_comment", *PARAPHRASE_COLUMNS, "n_refs", "toxic_words", "lexicon_words"]
EDIT_KIND_LABEL = {
    "unchanged": "unchanged copy",
    "deletion": "pure deletion",
    "rewrite": "rewrite",
}

st.title("Corpus")
require_page("corpus")
choice = current_choice()
if not choice.ok:
    st.info(choice.problem or "No corpus loaded.", icon=":material/info:")
    with st.expander("The corpus file format", icon=":material/description:"):
        st.markdown(
            "A UTF-8 text file, one toxic sentence per line, columns separated by tabs, with a header "
            "line. Quote a field that holds a tab, a line break or a quote with `\"`, and write a quote "
            "inside it as `\"\"`."
        )
        st.code(
            "index\ttoxic_comment\tneutral_comment1\tneutral_comment2\tneutral_comment3\n"
            "0\tты дебил, иди отсюда\tты неправ, иди отсюда\tуйди, пожалуйста\t\n"
            "1\tэтот мудак опять врёт\tэтот человек опять врёт\t\t",
            language=None,
        )
    st.stop()

prepared, edits = choice.prepared, choice.edits
multilingual = choice.multilingual
st.caption(
    f"{render.md(choice.label)} · splits: {', '.join(choice.splits)}"
    + (f" · {len(choice.languages)} of {len(choice.all_languages)} languages" if multilingual else "")
    + f" · {len(prepared):,} toxic sentences with {len(edits):,} neutral paraphrases"
    + (f" · lexicon of {len(choice.lexicon):,} toxic word forms" if choice.lexicon and not multilingual else "")
)
if multilingual:
    st.caption(lexicon_note(choice.languages, choice.lexicons))
    # Every lexicon of the picked languages, for the chart of removed words (a row's own
    # language's list marks its words everywhere else).
    any_lexicon = frozenset().union(*(choice.lexicon_for(lang) for lang in choice.languages))
else:
    any_lexicon = choice.lexicon

# ------------------------------------------------------------------ search and filters
# One row on a wide screen; on a narrow one the switches wrap under the search box.
bar = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
text = bar.text_input(
    "Search", key="q", bind="query-params", placeholder="a word, a phrase or a regular expression", width=440,
    help="Case and ё/е are ignored unless **Match case** is on.",
)
use_regex = bar.toggle("Regex", key="regex", bind="query-params", help="Python regular expression syntax.")
case = bar.toggle("Match case", key="case", bind="query-params")
SEARCH_IN = {"both": "both", "toxic": "toxic", "paraphrases": "neutral"}
search_in = SEARCH_IN[
    bar.segmented_control("Search in", list(SEARCH_IN), default="both", required=True, key="in", bind="query-params",
                          wrap=True)
    or "both"
]

with st.expander("Filters", icon=":material/filter_list:"):
    f1, f2, f3 = st.columns(3)
    ref_options = sorted(int(n) for n in prepared["n_refs"].unique())
    keep_options("refs", ref_options)
    n_refs = f1.multiselect(
        "Paraphrases per input", ref_options, key="refs", bind="query-params",
        placeholder="any number", help="Keep toxic sentences with this many neutral paraphrases.",
    )
    lo, hi = int(prepared["toxic_words"].min()), int(prepared["toxic_words"].max())
    if hi > lo:
        clamp_range("len", lo, hi)  # other splits or languages: the remembered range may no longer fit
        length = f2.slider("Toxic sentence length (words)", lo, hi, (lo, hi), key="len", bind="query-params")
    else:
        length = (lo, hi)
    LEXICON_FILTER = {"any": "any", "present": "with", "absent": "without"}
    lexicon_filter = LEXICON_FILTER[
        f3.selectbox(
            "Lexicon words in the toxic sentence", list(LEXICON_FILTER), key="lex", bind="query-params",
            disabled=not any_lexicon,
            help=("Words of each language's toxic lexicon (`data/lexicons`, built by `build-lexicons`): "
                  if multilingual else "Words of the toxic lexicon (`lexicon/toxic_vocab.txt`): ")
            + "any = no filter, present = at least one, absent = none.",
        )
    ]

query = CorpusQuery(
    text=text or "",
    regex=use_regex,
    case_sensitive=case,
    search_in=search_in,
    n_refs=tuple(n_refs),
    min_words=length[0] if length[0] > lo else None,
    max_words=length[1] if length[1] < hi else None,
    lexicon=lexicon_filter if any_lexicon else "any",
)
try:
    shown = filter_corpus(prepared, query)
except DetoxInputError as err:
    st.error(f"Search: {render.md(err, None)}", icon=":material/error:")
    shown = prepared.iloc[0:0]

# ------------------------------------------------------------------ table
m1, m2, m3 = st.columns(3)
m1.metric("Pairs shown", f"{len(shown):,}", help="Toxic sentences matching the search and filters.")
m2.metric("of all", f"{len(prepared):,}")
m3.metric("Paraphrases shown", f"{int(shown['n_refs'].sum()):,}")

columns = TABLE_COLUMNS if not multilingual else ["pair_id", "split", "lang", *TABLE_COLUMNS[2:]]
view = public_columns(shown)[columns]
# A new search is a new table: the row selection belongs to the old one.
table_key = "corpus_table_" + hashlib.md5(repr(query).encode() + repr(choice.splits).encode()).hexdigest()[:10]
url_pair = st.query_params.get("pair")
default_rows = []
if url_pair is not None:
    hits = [i for i, pid in enumerate(view["pair_id"]) if pid == url_pair]
    default_rows = hits[:1]
event = st.dataframe(
    view,
    key=table_key,
    on_select="rerun",
    selection_mode="single-row",
    selection_default={"selection": {"rows": default_rows}} if default_rows else None,
    hide_index=True, placeholder=MISSING,
    height=380,
    column_config={
        "pair_id": st.column_config.TextColumn("Pair", help="split-index; select a row to see the pair", width="small"),
        "split": st.column_config.TextColumn("Split", width="small"),
        "lang": st.column_config.TextColumn("Lang", help="Language (ISO code)", width="small"),
        "toxic_comment": st.column_config.TextColumn("Toxic", width="large"),
        "neutral_comment1": st.column_config.TextColumn("Paraphrase 1", width="large"),
        "neutral_comment2": st.column_config.TextColumn("Paraphrase 2", width="medium"),
        "neutral_comment3": st.column_config.TextColumn("Paraphrase 3", width="medium"),
        "n_refs": st.column_config.NumberColumn("# para.", help="Number of neutral paraphrases", width="small"),
        "toxic_words": st.column_config.NumberColumn("Words", help="Length of the toxic sentence in words", width="small"),
        "lexicon_words": st.column_config.TextColumn("Lexicon words", help="Toxic-lexicon words in the toxic sentence"),
    },
)
rows = list(event.selection.rows) if event is not None else []
prev_key, prev_rows = st.session_state.get("_corpus_prev", (None, []))
if rows:
    picked = str(view.iloc[rows[0]]["pair_id"])
    if picked != url_pair:
        st.query_params["pair"] = picked
        url_pair = picked
elif prev_key == table_key and prev_rows:
    # The user cleared the selection of this very table.
    st.query_params.pop("pair", None)
    url_pair = None
st.session_state["_corpus_prev"] = (table_key, rows)

exports = st.container(horizontal=True, wrap=True)
d1 = d2 = exports
# Callables: the files are built only when a button is clicked, not on every rerun.
d1.download_button(
    "Export CSV", lambda: view.to_csv(index=False).encode("utf-8"), file_name="corpus_filtered.csv",
    mime="text/csv", icon=":material/download:", help="The shown rows, all columns.",
)


def corpus_tsv() -> bytes:
    """The shown rows in the corpus format (the multilingual one for a multilingual corpus)."""
    if multilingual:
        out = view[["toxic_comment", "lang", "neutral_comment1"]].rename(
            columns={"toxic_comment": "toxic_sentence", "neutral_comment1": "neutral_sentence"})
    else:
        out = view[["toxic_comment", *PARAPHRASE_COLUMNS]]
    return out.to_csv(sep="\t", index=False).encode("utf-8")


d2.download_button(
    "Export corpus TSV", corpus_tsv, file_name="corpus_filtered.tsv", mime="text/tab-separated-values",
    icon=":material/download:", help="The shown rows in the corpus format, ready to upload again.",
)

# ------------------------------------------------------------------ similar sentences
selected = prepared.loc[prepared["pair_id"] == url_pair, "toxic_comment"] if url_pair is not None else None
find_similar_section(choice, str(selected.iloc[0]) if selected is not None and len(selected) else None)

# ------------------------------------------------------------------ the selected pair
st.subheader("Pair")
if url_pair is None:
    st.caption("Select a row of the table to compare the toxic sentence with each paraphrase.")
else:
    match = prepared[prepared["pair_id"] == url_pair]
    if match.empty:
        st.warning(f"Pair {render.md(url_pair, 80)} is not in the chosen dataset and splits.", icon=":material/warning:")
    else:
        row = match.iloc[0]
        st.markdown(render.STYLE + render.LEGEND, unsafe_allow_html=True)
        unit = "characters" if row.get("lang") in UNSPACED_LANGUAGES else "words"
        meta = (f"`{row['pair_id']}` · " + (f"{language_name(row['lang'])} · " if multilingual else "")
                + f"line {row['line']} of the {row['split']} file · {row['toxic_words']} {unit}")
        if row["lexicon_words"]:
            meta += f" · lexicon words: {render.md(row['lexicon_words'])}"
        st.caption(meta + " · the address bar now links to this pair")
        refs = [row[c] for c in PARAPHRASE_COLUMNS if row[c]]
        row_lang = row.get("lang") if multilingual else None
        row_lexicon = choice.lexicon_for(row_lang)
        if not refs:
            if row_lexicon:
                src, _ = render.diff_html(word_diff(row["toxic_comment"], row["toxic_comment"], row_lexicon, row_lang))
            else:
                src = render.text_html(row["toxic_comment"])
            st.markdown(src, unsafe_allow_html=True)
            st.caption("This input has no paraphrase (inputs of a split without public references).")
        for k, ref in enumerate(refs, 1):
            diff = word_diff(row["toxic_comment"], ref, row_lexicon, row_lang)
            src, tgt = render.diff_html(diff)
            left, right = st.columns(2)
            left.markdown("**Toxic**", help="Removed words struck through; lexicon words in bold.")
            left.markdown(src, unsafe_allow_html=True)
            right.markdown(f"**Paraphrase {k}** · {EDIT_KIND_LABEL[edit_kind(row['toxic_comment'], ref)]}")
            right.markdown(tgt, unsafe_allow_html=True)
            removed, added = diff.removed, diff.added
            st.caption(
                f"removed: {', '.join(dict.fromkeys(removed)) or '—'} · added: {', '.join(dict.fromkeys(added)) or '—'}"
            )

# ------------------------------------------------------------------ statistics
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
