"""Corpus: one pair, its toxic sentence against each paraphrase word by word."""

from __future__ import annotations

import streamlit as st

from detox_core.data import PARAPHRASE_COLUMNS
from detox_core.text import edit_kind, word_diff
from detox_core.data import spans
from detox_core.ui.app import cache, render
from detox_core.ui.sidebar.corpus import CorpusChoice
from detox_core.vocab import UNSPACED_LANGUAGES, language_name

EDIT_KIND_LABEL = {
    "unchanged": "unchanged copy",
    "deletion": "pure deletion",
    "rewrite": "rewrite",
}


def corpus_pair(choice: CorpusChoice, url_pair: str | None) -> None:
    """The pair ``url_pair`` of the chosen corpus (or how to pick one)."""
    prepared, multilingual = choice.prepared, choice.multilingual
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
            marked = cache.people_marked().get((str(row["toxic_comment"]).strip(), row.get("lang"))) if multilingual else None
            if marked:
                st.caption(f"Toxic words people marked in this sentence ({spans.SOURCE}): "
                           + ", ".join(render.md(w, 60) for w in marked))
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
