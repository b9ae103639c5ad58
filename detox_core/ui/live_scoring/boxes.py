"""Live scoring: the language picker, the boxes of texts (kept in the address) and the row
of buttons that fill them, with the notes those buttons leave for the next run."""

from __future__ import annotations

import streamlit as st

from detox_core.lexicons import lexicon_help
from detox_core.languages.detect import script_mismatch
from detox_core.limits import MAX_TEXT_CHARS
from detox_core.live.request import MAX_CANDIDATES, MAX_REFERENCES
from detox_core.live.inputs import (browser_languages, corpus_rows, default_language, known_languages,
                                                live_lexicon, typed_language)
from detox_core.ui.app import cache, render
from detox_core.ui.app.auth import is_organizer
from detox_core.ui.app.params import accept_plain_values
from detox_core.ui.live_scoring.suggest import (LANG_FOLLOWS, load_example, seq2seq_button, seq2seq_placeholder,
                                                 suggest_delete, suggest_llm, suggest_seq2seq)
from detox_core.ui.live_scoring.llm_rewrite import MAX_REWRITES, offer as llm_offer
from detox_core.ui.sidebar.corpus import CorpusChoice
from detox_core.vocab import LANGUAGES, language_label, language_name

#: The texts live in the address (a link shares them, with the preset) and survive a page change.
KEEP = {"bind": "query-params", "persist_state": "session"}


#: Session state key: the language was not picked by the visitor (nor named by the link), so
#: it follows the typed text.
_AUTO = LANG_FOLLOWS
#: ... and the language it was last set to here.
_SET = "_live_lang_set"
#: The language the typed text is in, for the next run of the whole page to switch to.
_WANT = "_live_lang_want"


def _browser_languages() -> list[str]:
    try:
        return browser_languages(st.context.headers.get("Accept-Language"), st.context.locale)
    except Exception:  # noqa: BLE001 - no request context (a test harness)
        return []


def language_picker(choice: CorpusChoice, top) -> str:
    """The language of the texts, in ``top`` (kept in the address as ``live_lang``).

    Until the visitor picks one (or a link names it), it is the language of the typed text
    when that can be told, else the browser's (:func:`default_language`)."""
    codes = list(LANGUAGES)
    # A hand-made link may name the language by its code (?live_lang=zh) or name, not only the label.
    accept_plain_values("live_lang", codes, language_label, aliases=lambda code: [language_name(code)])
    current = st.session_state.get("live_lang")
    # A link that names a language (?live_lang=de) has it in the session here: picked.
    auto = st.session_state.setdefault(_AUTO, current not in codes)
    if auto and st.session_state.get(_SET) not in (None, current):  # changed since it was set here: picked
        auto = st.session_state[_AUTO] = False
    if auto or current not in codes:  # (a value a link named that is no language: the default instead)
        guess = st.session_state.pop(_WANT, None) or default_language(choice, st.session_state.get("live_input", ""),
                                                                      _browser_languages())
        if current != guess:
            st.session_state["live_lang"] = guess
        st.session_state[_SET] = guess
    # The value is in the session above: no default besides it (Streamlit warns when a widget gets both).
    return top.selectbox("Language", codes, key="live_lang", index=None, bind="query-params", width=200,
                         format_func=language_label,
                         help="The language of the texts: only the metric presets that cover it are offered. "
                              "Until you pick one, it follows the text you type.")


def follow_typed_language(choice: CorpusChoice, language: str) -> None:
    """The boxes' run (a fragment): while the visitor has not picked a language, text typed
    in another language the page knows switches the page to it (the whole page runs again,
    the picker and the presets with it)."""
    typed = st.session_state.get("live_input", "")
    if not st.session_state.get(_AUTO) or not typed.strip() or st.session_state.get("live_lang") != language:
        return
    guess = typed_language(typed, known_languages(choice) or list(LANGUAGES))
    if guess is not None and guess != language:
        st.session_state[_WANT] = guess
        st.rerun(scope="app")


def picked_language_note(choice: CorpusChoice, language: str) -> None:
    """A warning when the toxic sentence reads as another language of the same script than the
    one picked (the script's own warning is :func:`~detox_core.ui.live_scoring.results.live_request`'s):
    the scores use the picked language's models, and a rewrite in the typed language is then "in
    another language" (an English pair under German: the long rewrite called another language, the
    short one starred)."""
    typed = st.session_state.get("live_input", "")
    # While the language follows the typed text, follow_typed_language has asked already (and switched).
    if st.session_state.get(_AUTO) or not typed.strip() or script_mismatch(language, typed):
        return
    guess = typed_language(typed, known_languages(choice) or list(LANGUAGES))
    if guess is not None and guess != language:
        st.warning(f"The toxic sentence reads as {language_name(guess)}, not {language_name(language)}: the scores "
                   f"below use the {language_name(language)} models, and a rewrite in {language_name(guess)} may be "
                   f"called another language. Pick {language_label(guess)} in **Language** above.",
                   icon=":material/translate:")


def text_boxes() -> None:
    """The toxic sentence, the references and the candidate rewrites."""
    c1, c2 = st.columns([1, 1])
    with c1:
        st.text_area("Toxic sentence", key="live_input", height=90, placeholder="a toxic sentence to rewrite",
                     max_chars=MAX_TEXT_CHARS, **KEEP)
        # No max_chars on the boxes of several lines: its counter ("72/10010") counts characters of
        # all lines together; the limits are per line and per box, checked by parse_request and
        # said in the help (max_chars is only a browser-side limit anyway).
        st.text_area("References (optional, one per line)", key="live_refs", height=90, **KEEP,
                     help=f"Human rewrites of the input; chrF compares each candidate with them. At most {MAX_REFERENCES}, "
                     f"of at most {MAX_TEXT_CHARS:,} characters each.")
    with c2:
        st.text_area("Candidate rewrites (one per line)", key="live_candidates", height=200, **KEEP,
                     placeholder="one or more neutral rewrites",
                     help=f"At most {MAX_CANDIDATES} rewrites of at most {MAX_TEXT_CHARS:,} characters each.")


def suggestions(choice: CorpusChoice, language: str) -> tuple[frozenset[str], bool]:
    """The buttons that fill the boxes, the seq2seq model's setting and the notes the
    buttons left; returns the language's toxic lexicon and whether the corpus has examples."""
    # A row that wraps: on a narrow screen the buttons go on a second line instead of being cut.
    buttons = st.container(horizontal=True, wrap=True)
    examples = corpus_rows(choice, language)
    has_examples = examples is not None and len(examples) > 0
    buttons.button("Example from the corpus", on_click=load_example, args=(choice,), disabled=not has_examples,
                   icon=":material/shuffle:",
                   help="A random pair of the corpus chosen in the sidebar: its first paraphrase and the Delete "
                   "baseline's rewrite become the candidates, its other paraphrases the references."
                   if has_examples else f"The corpus chosen in the sidebar ({choice.label}) has no {language_name(language)} "
                   "sentences: choose a corpus in that language there.")
    language_lexicon = live_lexicon(choice, language, cache.language_lexicons())
    lexicon_source = ("the RUSSE-2022 lexicon" if language == "ru" and language_lexicon is choice.lexicon
                      else lexicon_help(language, cache.language_lexicons()))
    buttons.button("Suggest: Delete baseline", on_click=suggest_delete, args=(choice,), icon=":material/auto_fix_high:",
                   help=f"Remove the words of the {language_name(language)} toxic lexicon and tidy the punctuation (the "
                   f"RUSSE-2022 Delete baseline; in Chinese and Japanese after word segmentation). The list: "
                   f"{lexicon_source}",
                   disabled=not language_lexicon or not st.session_state.get("live_input", "").strip())
    buttons.button(**seq2seq_button(language), on_click=suggest_seq2seq, icon=":material/smart_toy:")
    llm = llm_offer()
    if llm.shown:  # organizers, and visitors only where the organizers opted them in
        # The button and its number stay together when the row wraps.
        group = buttons.container(horizontal=True, gap="small", vertical_alignment="center", width="content")
        group.button("Suggest with the LLM", on_click=suggest_llm, args=(choice,), icon=":material/chat:",
                     disabled=not llm.enabled, help=llm.help)
        group.selectbox("LLM rewrites", list(range(1, MAX_REWRITES + 1)), index=2, key="live_llm_n",
                        label_visibility="collapsed", width=130, disabled=not llm.enabled,
                        format_func=lambda k: f"{k} rewrite{'s' if k > 1 else ''}",
                        help="How many rewrites one request asks the LLM for (the box holds at most "
                        f"{MAX_CANDIDATES}).")
    if llm.note:
        st.caption(llm.note)
    with st.expander("Seq2seq model for suggestions", icon=":material/settings:"):
        st.text_input("Model id or local folder", key="live_seq2seq", placeholder=seq2seq_placeholder(language),
                      disabled=not is_organizer(), max_chars=300,
                      help=None if is_organizer() else "Set by the organizers of this server.")
    if err := st.session_state.pop("_live_seq2seq_error", None):
        st.error(render.md(err, None), icon=":material/error:")
    if note := st.session_state.pop("_live_example_note", None):
        st.caption(note)
    if note := st.session_state.pop("_live_delete_note", None):
        st.caption(note)
    if not language_lexicon:
        st.caption(f"No toxic lexicon for {language_name(language)}: the Delete baseline is off "
                   "(`python -m detox_core fetch-data` builds the lists, or `build-lexicons` alone).")
    elif (built := cache.language_lexicons().get(language)) is not None and built.weak and language_lexicon is built.words:
        st.caption(f"The {language_name(language)} toxic lexicon is weak ({built.reason}): Delete suggestions miss "
                   "many insults.")
    if problem := st.session_state.pop("_live_llm_warning", None):
        st.warning(render.md(problem, None), icon=":material/cloud_off:")
    return language_lexicon, has_examples
