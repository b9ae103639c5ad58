"""Corpus: browse the parallel corpus of toxic sentences and their paraphrases."""

from __future__ import annotations

import streamlit as st

from detox_core.ui.app.auth import require_page
from detox_core.ui.corpus.charts import corpus_statistics
from detox_core.ui.corpus.pair import corpus_pair
from detox_core.ui.corpus.search import corpus_caption, corpus_format, corpus_search
from detox_core.ui.corpus.table import corpus_table
from detox_core.ui.sidebar.corpus import current_choice
from detox_core.ui.corpus.similar import find_similar_section

st.title("Corpus")
require_page("corpus")
choice = current_choice()
if not choice.ok:
    st.info(choice.problem or "No corpus loaded.", icon=":material/info:")
    corpus_format()
    st.stop()

prepared = choice.prepared
any_lexicon = corpus_caption(choice)
# ------------------------------------------------------------------ search and filters
query, shown = corpus_search(choice, any_lexicon)
# ------------------------------------------------------------------ table
url_pair = corpus_table(choice, shown, query)
# ------------------------------------------------------------------ similar sentences
selected = prepared.loc[prepared["pair_id"] == url_pair, "toxic_comment"] if url_pair is not None else None
find_similar_section(choice, str(selected.iloc[0]) if selected is not None and len(selected) else None)
# ------------------------------------------------------------------ the selected pair
corpus_pair(choice, url_pair)
# ------------------------------------------------------------------ statistics
corpus_statistics(choice, shown, any_lexicon)
