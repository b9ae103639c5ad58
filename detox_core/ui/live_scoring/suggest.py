"""Live scoring: the buttons' callbacks that fill the boxes (an example of the corpus) and
add suggested rewrites (the Delete baseline, the LLM, a seq2seq model) to the candidates,
remembering who suggested each; their notes wait in the session for the next run."""

from __future__ import annotations

import random

import streamlit as st

from detox_core.data import PARAPHRASE_COLUMNS
from detox_core.errors import ScorerUnavailableError
from detox_core.rewriters.baselines import delete_baseline, Seq2SeqDetoxifier
from detox_core.rewriters.seq2seq_models import seq2seq_model, surely_missing
from detox_core.live.request import MAX_CANDIDATES, example_boxes
from detox_core.live.inputs import corpus_rows, live_lexicon
from detox_core.text import lexicon_spans
from detox_core.ui.app import cache, render
from detox_core.ui.app.auth import is_organizer, model_folder_allowed
from detox_core.ui.app.models import shared_pool
from detox_core.ui.live_scoring.llm_rewrite import suggest as llm_suggest
from detox_core.ui.sidebar.corpus import CorpusChoice
from detox_core.vocab import language_name



#: Session state key: Live scoring's language follows the typed text (the visitor has not
#: picked one, nor has a link or an example of the corpus set it).
LANG_FOLLOWS = "_live_lang_auto"


def load_example(choice: CorpusChoice) -> None:
    """A random corpus pair: its first paraphrase and the Delete baseline's rewrite as the candidates.

    The other paraphrases are the references, so chrF compares the candidates with human
    rewrites they were not copied from (a pair with one paraphrase has no references).
    """
    frame = corpus_rows(choice, st.session_state.get("live_lang"))
    if frame is None or not len(frame):  # never a sentence in another language than the one picked
        return
    several = frame[frame["n_refs"] >= 2]  # pairs with a paraphrase left over as a reference, when there are any
    frame = several if len(several) else frame
    row = frame.iloc[random.randrange(len(frame))]
    st.session_state["live_input"] = row["toxic_comment"]
    st.session_state[LANG_FOLLOWS] = False  # the example is in the language picked: a detector must not move it
    paraphrases = [row[c] for c in PARAPHRASE_COLUMNS if row[c]]
    lang = st.session_state.get("live_lang")
    lexicon = live_lexicon(choice, lang, cache.language_lexicons())
    deleted = delete_baseline(row["toxic_comment"], lexicon, lang) if lexicon else ""
    candidates, references = example_boxes(paraphrases, deleted)
    st.session_state["live_refs"] = "\n".join(references)
    st.session_state["live_candidates"] = "\n".join(candidates)
    if not paraphrases:
        st.session_state["_live_example_note"] = (
            "Example: a toxic sentence of the corpus that has no paraphrase there (no public references for its "
            "split), so there is no reference and chrF is n/a"
            + ("; rewrite 1 is the Delete baseline." if candidates else ": type a rewrite."))
        return
    st.session_state["_live_example_note"] = (
        "Example: rewrite 1 is a human paraphrase from the corpus"
        + (", rewrite 2 the Delete baseline" if len(candidates) > 1 else "")
        + (f"; the pair's other {len(references)} paraphrase(s) are the references." if references
           else "; the pair has no other paraphrase, so there is no reference and chrF is n/a."))


def suggest_delete(choice: CorpusChoice) -> None:
    text = st.session_state.get("live_input", "")
    lang = st.session_state.get("live_lang")
    lexicon = live_lexicon(choice, lang, cache.language_lexicons())
    rewrite = delete_baseline(text, lexicon, lang)
    if not lexicon_spans(text, lexicon, lang):  # nothing to remove: say so
        st.session_state["_live_delete_note"] = (
            f"The Delete baseline found no word of the {language_name(lang)} toxic lexicon in the sentence, so it "
            "removes nothing.")
        return
    if not rewrite:
        st.session_state["_live_delete_note"] = (
            f"The sentence is made of words of the {language_name(lang)} toxic lexicon only: the Delete baseline "
            "would leave nothing.")
        return
    _add_candidate(rewrite, "Delete baseline")


def suggest_llm(choice: CorpusChoice) -> None:
    """Ask the LLM for rewrites and add them to the candidates (scored with the typed ones
    on this run); a failure is one warning, and the typed candidates still score."""
    text = st.session_state.get("live_input", "").strip()
    room = MAX_CANDIDATES - len(_candidate_lines())
    if not text or room <= 0:
        st.session_state["_live_llm_warning"] = (
            "Type a toxic sentence first." if not text else
            f"The candidate box is full ({MAX_CANDIDATES} rewrites): remove some to make room for the LLM's.")
        return
    n = min(int(st.session_state.get("live_llm_n") or 3), room)
    editions = [choice.edition.name] if choice.edition is not None else []
    result, problem = llm_suggest(text, st.session_state.get("live_lang", "ru"), n, editions)
    if problem:
        st.session_state["_live_llm_warning"] = problem
    if result is None or not result.rewrites:
        return
    for rewrite, copy in zip(result.rewrites, result.copies):
        _add_candidate(rewrite, "LLM" + (" (a copy of the input)" if copy else ""))
    dropped = f" · {result.dropped} item(s) of the answer left out (empty, repeated or too long)" if result.dropped else ""
    # The prompt's tag is ours (a code span); the examples' source and the cost go through render.md.
    st.session_state["_live_llm_info"] = (
        f"**LLM rewrites:** prompt `{result.prompt_tag}` · examples: {render.md(result.examples, None)} · "
        + render.md(result.usage.text() + dropped, None) + ".")


def _organizer_model() -> str:
    """The seq2seq model an organizer set for every language ("" for the language's own)."""
    # Which model runs is an organizer setting: a visitor gets the language's published one.
    return st.session_state.get("live_seq2seq", "").strip() if is_organizer() else ""


def seq2seq_placeholder(language: str) -> str:
    """What the organizers' model setting holds when left empty: the language's model."""
    model = seq2seq_model(language)
    return model.model_id if model else f"none published for {language_name(language)}"


def seq2seq_button(language: str) -> dict:
    """The seq2seq button's label, state and help for ``language``: the published model of
    that language (:data:`detox_core.rewriters.seq2seq_models.SEQ2SEQ_MODELS`), or, where
    there is none, a disabled button that says so (never another language's model)."""
    if custom := _organizer_model():
        return {"label": "Suggest: seq2seq model", "disabled": False,
                "help": f"Rewrite with {render.md(custom)}, the model set below (loaded once per server)."}
    model = seq2seq_model(language)
    if model is None:
        return {"label": f"No seq2seq model for {language_name(language)}", "disabled": True,
                "help": f"No published seq2seq detoxification model covers {language_name(language)}: use the "
                "Delete baseline, the LLM or type a rewrite."}
    if surely_missing(model.model_id, shared_pool()):
        return {"label": "Suggest: seq2seq model", "disabled": True,
                "help": f"`{model.model_id}` ({model.cite}), the published seq2seq detox model for "
                f"{language_name(language)}, is not on this server and the model hub is off here: the organizers "
                "can put it in the model folder (`DETOX_MODEL_DIR`) or map it to a folder (`DETOX_MODEL_MAP`)."}
    return {"label": "Suggest: seq2seq model", "disabled": False,
            "help": f"Rewrite with `{model.model_id}` ({model.cite}), a published seq2seq detox model for "
            f"{language_name(language)} (loaded once per server)."}


def suggest_seq2seq() -> None:
    language = st.session_state.get("live_lang") or "ru"
    model_id, prefix = _organizer_model(), ""
    if not model_id:
        if (model := seq2seq_model(language)) is None:
            st.session_state["_live_seq2seq_error"] = (
                f"No published seq2seq detoxification model covers {language_name(language)}.")
            return
        model_id, prefix = model.model_id, model.prefix
    looks_local = model_id.startswith((".", "/", "~")) or "\\" in model_id or model_id.count("/") > 1
    if looks_local and not model_folder_allowed(model_id):
        st.session_state["_live_seq2seq_error"] = "That folder is not inside the model folders configured here."
        return
    try:
        rewrite = Seq2SeqDetoxifier(model_id, pool=shared_pool(), prefix=prefix).rewrite(
            [st.session_state.get("live_input", "")])[0]
    except ScorerUnavailableError as err:
        st.session_state["_live_seq2seq_error"] = str(err)
        return
    _add_candidate(rewrite, "seq2seq model")


def _candidate_lines() -> list[str]:
    return [ln for ln in st.session_state.get("live_candidates", "").split("\n") if ln.strip()]


def _add_candidate(rewrite: str, source: str) -> None:
    """Add ``rewrite`` to the candidates, remembering who suggested it (while its line is unchanged)."""
    lines = _candidate_lines()
    if rewrite and rewrite not in lines:
        lines.append(rewrite)
        st.session_state.setdefault("_live_sources", {})[rewrite.strip()] = source
    st.session_state["live_candidates"] = "\n".join(lines)
