"""Corpus: the file format an upload needs, what the chosen corpus holds, and the search
box and filters that pick the pairs shown."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from detox_core.analysis.corpus import CorpusQuery, filter_corpus
from detox_core.errors import DetoxInputError
from detox_core.lexicons import lexicon_note
from detox_core.ui.app import render
from detox_core.ui.app.params import clamp_range, keep_options
from detox_core.ui.sidebar.corpus import CorpusChoice

SEARCH_IN = {"both": "both", "toxic": "toxic", "paraphrases": "neutral"}
LEXICON_FILTER = {"any": "any", "present": "with", "absent": "without"}


def corpus_format() -> None:
    """The corpus file format, in an expander (shown when no corpus is loaded)."""
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


def corpus_caption(choice: CorpusChoice) -> frozenset[str]:
    """What the chosen corpus holds; returns every toxic lexicon of the picked languages."""
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
    return any_lexicon


def corpus_search(choice: CorpusChoice, any_lexicon: frozenset[str]) -> tuple[CorpusQuery, pd.DataFrame]:
    """The search box and the filters (kept in the address); returns the query and the pairs it keeps."""
    prepared, multilingual = choice.prepared, choice.multilingual
    # One row on a wide screen; on a narrow one the switches wrap under the search box.
    bar = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
    text = bar.text_input(
        "Search", key="q", bind="query-params", placeholder="a word, a phrase or a regular expression", width=440,
        help="Case and ё/е are ignored unless **Match case** is on.",
    )
    use_regex = bar.toggle("Regex", key="regex", bind="query-params", help="Python regular expression syntax.")
    case = bar.toggle("Match case", key="case", bind="query-params")
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
    return query, shown
