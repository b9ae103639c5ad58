"""Corpus: the table of the pairs shown (its selected row is the pair in the address) and
its exports."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from detox_core.analysis.export import csv_export
from detox_core.analysis.corpus import CorpusQuery, public_columns
from detox_core.data import PARAPHRASE_COLUMNS
from detox_core.ui.sidebar.corpus import CorpusChoice
from detox_core.ui.widgets.tables import MISSING

TABLE_COLUMNS = ["pair_id", "split", "toxic_comment", *PARAPHRASE_COLUMNS, "n_refs", "toxic_words", "lexicon_words"]


def corpus_table(choice: CorpusChoice, shown: pd.DataFrame, query: CorpusQuery) -> str | None:
    """Counts, the table of ``shown`` and its exports; returns the selected pair (in the address as ``pair``)."""
    prepared, multilingual = choice.prepared, choice.multilingual
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
        "Export CSV", lambda: csv_export(view), file_name="corpus_filtered.csv",
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
    return url_pair
