"""Live scoring: type a toxic sentence and rewrites, see STA, SIM, FL, J and chrF at once."""

from __future__ import annotations

import random

import streamlit as st

from detox_core.rewriters.baselines import delete_baseline, Seq2SeqDetoxifier
from detox_core.data import PARAPHRASE_COLUMNS
from detox_core import config
from detox_core.metrics import warmup
from detox_core.embedded.language_id import SCRIPT_NAMES, languages_in_script, script_mismatch
from detox_core.errors import DetoxInputError, ScorerUnavailableError
from detox_core.judge.runner import Usage
from detox_core.limits import MAX_TEXT_CHARS
from detox_core.submissions.best import choose_best
from detox_core.submissions.live import (MAX_CANDIDATES, MAX_REFERENCES, example_boxes,
                                         parse_request)
from detox_core.metrics import preset_class, score
from detox_core.metrics.reference import reference_notes
from detox_core.lexicons import lexicon_help
from detox_core.text import lexicon_spans
from detox_core.ui.app.auth import is_organizer, model_folder_allowed, require_page
from detox_core.ui.app import cache, render
from detox_core.ui.sections.llm_rewrite import MAX_REWRITES, offer as llm_offer, suggest as llm_suggest
from detox_core.ui.app.models import shared_pool
from detox_core.ui.sections.agreement import ranking_trust, weak_parts_note
from detox_core.ui.app.warming import warming_notice
from detox_core.ui.sections.scores import preset_picker, preset_ready, score_card, show_scoring_error
from detox_core.ui.sections.sidebar import current_choice
from detox_core.vocab import LANGUAGES, label, language_label, language_name
from detox_core.ui.app.params import accept_plain_values

DEFAULT_SEQ2SEQ = "s-nlp/ruT5-base-detox"
#: The texts live in the address (a link shares them, with the preset) and survive a page change.
KEEP = {"bind": "query-params", "persist_state": "session"}

st.title("Live scoring")
require_page("live_scoring")
choice = current_choice()


def _default_language() -> str:
    if choice.languages:
        return choice.languages[0]
    edition = choice.edition
    return edition.languages[0] if edition is not None and edition.languages else "ru"


top = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
codes = list(LANGUAGES)
# A hand-made link may name the language by its code (?live_lang=zh) or name, not only the label.
accept_plain_values("live_lang", codes, language_label, aliases=lambda code: [language_name(code)])
# The default only for a widget without a value yet (one set from a link above is its value:
# Streamlit warns when a widget gets both).
language = top.selectbox("Language", codes, key="live_lang",
                         index=None if st.session_state.get("live_lang") in codes else codes.index(_default_language()),
                         bind="query-params", width=200,
                         format_func=language_label,
                         help="The language of the texts: only the metric presets that cover it are offered.")
preset, calibrated = preset_picker(container=top, languages=[language])
# A server started by `python -m detox_core serve` or app.py warms the models already; run alone
# (a test), the page starts that while the user types. With the warm-up off (DETOX_WARMUP=0),
# the embedded preset's models still load while the user types.
if config.warmup_enabled():
    warmup.start(delay=1.5)
elif preset == "embedded":
    warmup.warm_preset(preset)
# Checked in seconds, before anything is typed: a preset whose models are not here says so
# (and what would score this language) instead of failing after a minute of loading.
ready = preset is not None and preset_ready(preset, [language])


def corpus_rows(lang: str):
    """The sidebar corpus's pairs in language ``lang``: every language of a multilingual
    corpus, not only those picked there; none when the corpus is in another language."""
    if not choice.ok:
        return None
    frame = choice.whole if choice.whole is not None else choice.prepared
    if "lang" in frame.columns:
        return frame[frame["lang"] == lang]
    edition = choice.edition  # a monolingual edition is in its language; an upload's is not known
    return frame.iloc[:0] if edition is not None and lang not in edition.languages else frame


def live_lexicon(lang: str | None) -> frozenset[str]:
    """The toxic lexicon of ``lang``: RUSSE-2022's for Russian when that corpus is chosen,
    else the list built for the language (``data/lexicons``), else none."""
    if lang == "ru" and choice.lexicon and not choice.multilingual:
        return choice.lexicon
    built = cache.language_lexicons().get(lang or "")
    if built is not None and built.words:
        return built.words
    return choice.lexicon if lang == "ru" else frozenset()


def load_example() -> None:
    """A random corpus pair: its first paraphrase and the Delete baseline's rewrite as the candidates.

    The other paraphrases are the references, so chrF compares the candidates with human
    rewrites they were not copied from (a pair with one paraphrase has no references).
    """
    frame = corpus_rows(st.session_state.get("live_lang"))
    if frame is None or not len(frame):  # never a sentence in another language than the one picked
        return
    several = frame[frame["n_refs"] >= 2]  # pairs with a paraphrase left over as a reference, when there are any
    frame = several if len(several) else frame
    row = frame.iloc[random.randrange(len(frame))]
    st.session_state["live_input"] = row["toxic_comment"]
    paraphrases = [row[c] for c in PARAPHRASE_COLUMNS if row[c]]
    lang = st.session_state.get("live_lang")
    lexicon = live_lexicon(lang)
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


def suggest_delete() -> None:
    text = st.session_state.get("live_input", "")
    lang = st.session_state.get("live_lang")
    lexicon = live_lexicon(lang)
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


def suggest_llm() -> None:
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


def suggest_seq2seq() -> None:
    # Which model runs is an organizer setting: a visitor gets the default one.
    model_id = (st.session_state.get("live_seq2seq", "").strip() if is_organizer() else "") or DEFAULT_SEQ2SEQ
    looks_local = model_id.startswith((".", "/", "~")) or "\\" in model_id or model_id.count("/") > 1
    if looks_local and not model_folder_allowed(model_id):
        st.session_state["_live_seq2seq_error"] = "That folder is not inside the model folders configured here."
        return
    try:
        rewrite = Seq2SeqDetoxifier(model_id, pool=shared_pool()).rewrite([st.session_state.get("live_input", "")])[0]
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
# A row that wraps: on a narrow screen the buttons go on a second line instead of being cut.
buttons = st.container(horizontal=True, wrap=True)
examples = corpus_rows(language)
has_examples = examples is not None and len(examples) > 0
buttons.button("Example from the corpus", on_click=load_example, disabled=not has_examples, icon=":material/shuffle:",
               help="A random pair of the corpus chosen in the sidebar: its first paraphrase and the Delete "
               "baseline's rewrite become the candidates, its other paraphrases the references."
               if has_examples else f"The corpus chosen in the sidebar ({choice.label}) has no {language_name(language)} "
               "sentences: choose a corpus in that language there.")
language_lexicon = live_lexicon(language)
lexicon_source = ("the RUSSE-2022 lexicon" if language == "ru" and language_lexicon is choice.lexicon
                  else lexicon_help(language, cache.language_lexicons()))
buttons.button("Suggest: Delete baseline", on_click=suggest_delete, icon=":material/auto_fix_high:",
               help=f"Remove the words of the {language_name(language)} toxic lexicon and tidy the punctuation (the "
               f"RUSSE-2022 Delete baseline; in Chinese and Japanese after word segmentation). The list: "
               f"{lexicon_source}",
               disabled=not language_lexicon or not st.session_state.get("live_input", "").strip())
buttons.button("Suggest: seq2seq model", on_click=suggest_seq2seq, icon=":material/smart_toy:",
               help="Rewrite with the seq2seq detox model set below (loaded once per server).")
llm = llm_offer()
if llm.shown:  # organizers, and visitors only where the organizers opted them in
    # The button and its number stay together when the row wraps.
    group = buttons.container(horizontal=True, gap="small", vertical_alignment="center", width="content")
    group.button("Suggest with the LLM", on_click=suggest_llm, icon=":material/chat:", disabled=not llm.enabled,
                 help=llm.help)
    group.selectbox("LLM rewrites", list(range(1, MAX_REWRITES + 1)), index=2, key="live_llm_n",
                    label_visibility="collapsed", width=130, disabled=not llm.enabled,
                    format_func=lambda k: f"{k} rewrite{'s' if k > 1 else ''}",
                    help="How many rewrites one request asks the LLM for (the box holds at most "
                    f"{MAX_CANDIDATES}).")
if llm.note:
    st.caption(llm.note)
with st.expander("Seq2seq model for suggestions", icon=":material/settings:"):
    st.text_input("Model id or local folder", key="live_seq2seq", placeholder=DEFAULT_SEQ2SEQ,
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
               "(`python -m detox_core build-lexicons` builds the lists).")
elif (built := cache.language_lexicons().get(language)) is not None and built.weak and language_lexicon is built.words:
    st.caption(f"The {language_name(language)} toxic lexicon is weak ({built.reason}): Delete suggestions miss "
               "many insults.")
if problem := st.session_state.pop("_live_llm_warning", None):
    st.warning(render.md(problem, None), icon=":material/cloud_off:")

try:
    request = parse_request(st.session_state.get("live_input", ""), st.session_state.get("live_candidates", ""),
                            st.session_state.get("live_refs", ""))
except DetoxInputError as err:
    st.error(f"Not scored. {render.md(err, None)}", icon=":material/error:")
    st.stop()
source, candidates, references = request.source, list(request.candidates), list(request.references)
if source and (script := script_mismatch(language, source)):
    others = ", ".join(language_label(c) for c in languages_in_script(script))
    st.warning(f"The toxic sentence is written in {SCRIPT_NAMES[script]} script, in which {language_name(language)} "
               f"is not written: the scores below use the {language_name(language)} models. Pick the language of "
               "the text" + (f" ({others})" if others else "") + " in **Language** above.", icon=":material/translate:")
# Who suggested each candidate, for the lines still as suggested (an edited line is the user's).
sources = {text: who for text, who in st.session_state.get("_live_sources", {}).items() if text in candidates}
st.session_state["_live_sources"] = sources

if not ready or preset_class(preset).unavailable():  # no preset covers the language, its models are not
    st.stop()                                           # here, or no endpoint: said above
if not source or not candidates:
    st.info("Type a toxic sentence and at least one rewrite"
            + (" (or press **Example from the corpus**)." if has_examples else "."), icon=":material/keyboard:")
    st.stop()

try:
    with warming_notice(preset), st.spinner("Scoring…"):  # models still warming: said, and waited for
        # Where STA is P(neutral) of a text alone, the input rides along as a last row: its P(neutral)
        # tells whether a rewrite is more toxic (a comparative STA says that itself).
        alone = preset_class(preset).sta_of_text_alone
        extra = [source] if alone else []
        both = score([source] * (len(candidates) + len(extra)), [*candidates, *extra],
                     [references] * len(candidates) + [[]] * len(extra), preset=preset, calibrated=calibrated,
                     pool=shared_pool(), langs=[language] * (len(candidates) + len(extra)))
        frame = both.iloc[:len(candidates)]
        sta_input = float(both["sta_raw"].iloc[-1]) if alone else None
except ScorerUnavailableError as err:
    show_scoring_error(err, [language])
    st.stop()

# The cards keep the user's order; the best J is marked, not moved to the top, and only among
# the candidates that are rewrites at all (a copy, another language or an unrelated sentence never is).
choice_ = choose_best(source, candidates, frame["j"].tolist(), language) if len(candidates) > 1 else None
trust, distrust = ranking_trust(preset, calibrated, language) if choice_ is not None else ("agrees", "")
for i in range(len(candidates)):
    who = sources.get(candidates[i])
    mark = ""
    if choice_ is not None and i == choice_.best:
        mark = " · ★ best J" + {"agrees": "", "weak": " (agreement with people weak here)",
                                "unknown": " (agreement with people unknown here)"}[trust]
    elif choice_ is not None and (why := choice_.reason(i)):
        mark = " · not ranked: " + why.split(" (")[0]
    score_card(source, candidates[i], frame.loc[i].to_dict(), language_lexicon, sta_input=sta_input, preset=preset,
               lang=language, title=f"Rewrite {i + 1}" + (f" · suggested by the {who}" if who else "") + mark)
if choice_ is not None:
    out = [f"rewrite {k + 1} is {choice_.reason(k)}" for k in sorted(choice_.excluded)]
    text = ("★ marks the highest J among the rewrites" + (f"; not ranked: {'; '.join(out)}" if out else "") + ".")
    if choice_.best is None:
        text = ("No rewrite is marked best: " + ("; ".join(out) + "; the others have" if out else "the rewrites have")
                + " no J above 0.")
    if choice_.unchecked:
        text += (" Not checked here: " + ", ".join({"language": "the language of each rewrite (no language "
                 "identifier)", "unrelated": "whether a rewrite is related to the input (no model of meaning for "
                 "this language)"}[c] for c in choice_.unchecked) + ".")
    if choice_.best is not None and trust != "agrees":
        text += f" The star is this preset's pick, not a verdict: {distrust}."
    if choice_.best is not None and trust == "weak":
        st.warning(text, icon=":material/warning:")
    else:
        st.caption(text)
sig = frame.attrs["signature"]
st.caption(f"Preset `{sig['preset']}` v{sig['preset_version']} · "
           + ("calibrated" if sig["calibrated"] and sig.get("calibration") else "uncalibrated")
           + (f" · P(neutral) of the input: {sta_input:.2f}" if sta_input is not None else "")
           + " · the address of this page holds the texts and the "
           "preset: copy it to share this example.")
weak_parts_note(preset, [language])
for metric, why in reference_notes(sig).items():  # a reference metric that is n/a, and why
    st.caption(f"{label(metric)}: n/a — " + render.md(why, None) + ".")
if any(who.startswith("LLM") for who in sources.values()) and (info := st.session_state.get("_live_llm_info")):
    st.caption(info)
if usage := both.attrs.get("llm_usage"):  # the LLM judge: what the requests cost, what is missing
    st.caption("LLM judge: " + render.md(Usage(**usage).text(), None))
