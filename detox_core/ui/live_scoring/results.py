"""Live scoring: the typed request checked, the candidates scored, and one card per
candidate with the best J marked (when the ranking can be trusted) and the run's notes."""

from __future__ import annotations

from contextlib import nullcontext

import pandas as pd
import streamlit as st

from detox_core.languages.detect import SCRIPT_NAMES, languages_in_script, script_mismatch
from detox_core.errors import DetoxInputError, ScorerUnavailableError
from detox_core.llm.runner import Usage
from detox_core.metrics import preset_class, score_frame
from detox_core.metrics.reference import reference_notes
from detox_core.live.best import ceilings_at_hand, choose_best
from detox_core.live.request import parse_request
from detox_core.ui.app import render
from detox_core.ui.app.models import shared_pool
from detox_core.ui.app.warming import warming_notice
from detox_core.ui.live_scoring.boxes import follow_typed_language, picked_language_note, suggestions, text_boxes
from detox_core.ui.widgets.preset_agreement import ranking_trust, weak_parts_note
from detox_core.ui.widgets.scores import score_card, show_scoring_error
from detox_core.vocab import label, language_label, language_name


def live_request(language: str) -> tuple[str, list[str], list[str], dict[str, str]]:
    """The typed input, candidates and references, checked (a bad request stops the page
    with its error), and who suggested each candidate still as suggested."""
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
    return source, candidates, references, sources


def live_scores(source: str, candidates: list[str], references: list[str], preset: str, calibrated: bool,
                language: str) -> tuple[pd.DataFrame, pd.DataFrame, float | None]:
    """Every candidate scored (a scorer that cannot run stops the page with its error): the
    whole frame, the candidates' rows and the input's P(neutral) where the preset needs it."""
    try:
        with warming_notice(preset), st.spinner("Scoring…"):  # models still warming: said, and waited for
            # Where STA is P(neutral) of a text alone, the input rides along as a last row: its P(neutral)
            # tells whether a rewrite is more toxic (a comparative STA says that itself).
            alone = preset_class(preset).sta_of_text_alone
            extra = [source] if alone else []
            both = score_frame([source] * (len(candidates) + len(extra)), [*candidates, *extra],
                         [references] * len(candidates) + [[]] * len(extra), preset=preset, calibrated=calibrated,
                         pool=shared_pool(), langs=[language] * (len(candidates) + len(extra)))
            frame = both.iloc[:len(candidates)]
            sta_input = float(both["sta_raw"].iloc[-1]) if alone else None
    except ScorerUnavailableError as err:
        show_scoring_error(err, [language])
        st.stop()
    return both, frame, sta_input


def score_cards(source: str, candidates: list[str], frame: pd.DataFrame, sources: dict[str, str],
                language_lexicon: frozenset[str], sta_input: float | None, preset: str, calibrated: bool,
                language: str) -> None:
    """One card per candidate in the user's order, the best J marked, and why others are not ranked."""
    # The cards keep the user's order; the best J is marked, not moved to the top, and only among
    # the candidates that are rewrites at all (a copy, another language or an unrelated sentence never is).
    sta = frame["sta_raw"].tolist() if "sta_raw" in frame else None
    choice_ = None
    if len(candidates) > 1:
        # The "unrelated" check's ceilings ship for the editions' languages; another language's are
        # measured once per process (hundreds of inputs embedded: seconds), said while it runs.
        with st.spinner(f"Measuring how far apart two different toxic texts in {language_name(language)} are "
                        "(once per language)…") if not ceilings_at_hand(language) else nullcontext():
            choice_ = choose_best(source, candidates, frame["j"].tolist(), language, sta=sta, sta_input=sta_input,
                                  lexicon=language_lexicon)
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
        out = [f"rewrite {k + 1} " + ("" if choice_.excluded[k] == "zero" else "is ") + choice_.reason(k).split(" (")[0]
               for k in sorted(choice_.excluded)]
        text = ("★ marks the highest J among the rewrites" + (f"; not ranked: {'; '.join(out)}" if out else "") + ".")
        if choice_.best is None:
            text = "No rewrite is marked best: " + "; ".join(out) + "."
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


def score_notes(both: pd.DataFrame, frame: pd.DataFrame, sources: dict[str, str], sta_input: float | None,
                preset: str, language: str) -> None:
    """The scores' signature, the preset's weak parts, the n/a metrics and what the LLMs cost."""
    sig = frame.attrs["signature"]
    st.caption(f"Preset `{sig['preset']}` v{sig['preset_version']} · "
               + ("calibrated" if sig["calibrated"] and sig.get("calibration") else "uncalibrated")
               + (f" · P(neutral) of the input: {sta_input:.2f}" if sta_input is not None else "")
               + " · the address of this page holds the texts and the "
               "preset: copy it to share this example.")
    weak_parts_note(preset, [language])
    by_reason: dict[str, list[str]] = {}  # the reference metrics that are n/a, one line per reason
    for metric, why in reference_notes(sig).items():
        by_reason.setdefault(why, []).append(label(metric))
    for why, metrics in by_reason.items():
        st.caption(f"{', '.join(metrics)}: n/a — " + render.md(why, None) + ".")
    if any(who.startswith("LLM") for who in sources.values()) and (info := st.session_state.get("_live_llm_info")):
        st.caption(info)
    if usage := both.attrs.get("llm_usage"):  # the LLM judge: what the requests cost, what is missing
        st.caption("LLM judge: " + render.md(Usage(**usage).text(), None))


@st.fragment
def live_body(choice, language: str, preset: str | None, calibrated: bool, ready: bool) -> None:
    """The boxes, their buttons and the cards. A fragment: typing a rewrite or pressing a
    button reruns only this part (not the navigation, the sidebar or the pickers above), so a
    warm re-score redraws only what changed (``benchmarks/bench_live_browser.py``)."""
    text_boxes()
    follow_typed_language(choice, language)
    picked_language_note(choice, language)
    language_lexicon, has_examples = suggestions(choice, language)
    source, candidates, references, sources = live_request(language)
    if not ready or preset is None or preset_class(preset).unavailable():  # no preset covers the language, its
        return                                                            # models are not here: said above
    if not source or not candidates:
        st.info("Type a toxic sentence and at least one rewrite"
                + (" (or press **Example from the corpus**)." if has_examples else "."), icon=":material/keyboard:")
        return
    both, frame, sta_input = live_scores(source, candidates, references, preset, calibrated, language)
    score_cards(source, candidates, frame, sources, language_lexicon, sta_input, preset, calibrated, language)
    score_notes(both, frame, sources, sta_input, preset, language)
