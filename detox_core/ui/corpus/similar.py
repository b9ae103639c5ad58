"""Corpus page: "Find similar", the nearest sentences by meaning in every edition and
language (:mod:`detox_core.analysis.similar`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from detox_core import editions
from detox_core.analysis import similar
from detox_core.models import meaning
from detox_core.errors import DataMissingError, DetoxInputError
from detox_core.deployment.budget import TimeBudget
from detox_core.ui.app import auth, render
from detox_core.ui.app.auth import is_organizer
from detox_core.ui.app.params import clamp_value, keep_options
from detox_core.ui.widgets.tables import MISSING
from detox_core.vocab import in_language_order, language_name

KIND_LABEL = {similar.KIND_INPUT: "toxic inputs", similar.KIND_OUTPUT: "system outputs"}
#: Seconds of the embedding engine one visitor's address may use in an hour (about 3,000
#: new texts on an idle two-core machine); organizers are not limited.
VISITOR_ENGINE_S_PER_HOUR = 120.0
#: A visitor's scope holds at most this many distinct texts (a few minutes of the engine);
#: organizers (and everyone on an open app) may build any scope.
VISITOR_MAX_TEXTS = 3000
#: Where the cosine bar starts (see the column's help).
COSINE_FLOOR = 0.7
FROM_PAIR, TYPED = "the selected pair's toxic sentence", "a sentence I type"
#: The query and the scope live in the address: a reload or a shared link finds them again.
BIND = {"bind": "query-params"}


def _fetched() -> dict[str, editions.Edition]:
    return {e.name: e for e in editions.editions() if e.available_splits()}


def _multiselect(container, label: str, options: list, default: list, key: str, **kwargs) -> list:
    """A multiselect whose remembered value is kept valid when its options change, starting
    from ``default`` (the sidebar's choice) on the first visit."""
    first = keep_options(key, options) is not None
    return container.multiselect(label, options, default=[d for d in default if d in options] if first else None,
                                 key=key, wrap=True, **BIND, **kwargs)


def _fitting_defaults(choice, picked: list[str], split_options: list, lang_options: list) -> tuple[list, list]:
    """The splits and languages a first visit starts from: the sidebar's, narrowed to a
    scope a visitor may build (at most :data:`VISITOR_MAX_TEXTS` distinct texts), so that the
    button is ready at once (RUSSE-2022's dev and test splits, not its 8,623 inputs)."""
    splits = [s for s in choice.splits if s in split_options]
    langs = [c for c in choice.languages if c in lang_options] or lang_options
    if not (picked and splits and langs) or ("sim_splits" in st.session_state and "sim_langs" in st.session_state):
        return splits, langs
    try:
        fit = similar.fitting_scope(similar.Scope(tuple(picked), tuple(splits), tuple(langs)), VISITOR_MAX_TEXTS)
    except (DetoxInputError, DataMissingError):  # the scope's own error is said below, with the pickers drawn
        return splits, langs
    return list(fit.splits), list(fit.languages) or langs


def _chosen() -> None:
    st.session_state["_sim_scope_chosen"] = True


def _follow_editions(picked: list[str]) -> None:
    """Splits and languages nobody chose follow the editions: when the editions change, they
    start again from the fitted default of the editions now picked, which a reload of the
    address computes the same way (Streamlit leaves a value equal to its default out of the
    address). Chosen ones (here, or from the address) stay."""
    before = st.session_state.get("_sim_picked")
    if before is None and ("sim_splits" in st.query_params or "sim_langs" in st.query_params):
        st.session_state["_sim_scope_chosen"] = True  # opened from an address that names them
    st.session_state["_sim_picked"] = list(picked)
    if before is not None and before != list(picked) and not st.session_state.get("_sim_scope_chosen"):
        for key in ("sim_splits", "sim_langs"):
            st.session_state.pop(key, None)


def _scope(choice) -> similar.Scope | None:
    """The scope pickers, defaulting to the sidebar's edition, splits and languages."""
    fetched = _fetched()
    row = st.container(horizontal=True, wrap=True, gap="small", vertical_alignment="top")
    picked = _multiselect(row, "Editions", list(fetched), [choice.source], "sim_editions", width=300,
                          format_func=lambda n: fetched[n].short, placeholder="pick editions",
                          help="Editions whose texts are searched (fetched ones).")
    chosen = [fetched[n] for n in picked]
    _follow_editions(picked)
    split_options = list(dict.fromkeys(s for e in chosen for s in e.available_splits()))
    lang_options = list(in_language_order(c for e in chosen for c in e.languages))
    default_splits, default_langs = _fitting_defaults(choice, picked, split_options, lang_options)
    splits = _multiselect(row, "Splits", split_options, default_splits, "sim_splits", width=260, on_change=_chosen,
                          placeholder="pick splits", help="A split an edition does not have is skipped for it.")
    kinds = row.pills("Texts", list(similar.KINDS), selection_mode="multi", default=[similar.KIND_INPUT],
                      key="sim_kinds", format_func=KIND_LABEL.get, **BIND,
                      help="Toxic inputs of the corpus, and the shipped system outputs (an output that copies its "
                           "input is left out).")
    # A row of its own: fifteen languages' chips wrap over the width instead of pushing the
    # other pickers down.
    langs = _multiselect(st, "Languages", lang_options, default_langs, "sim_langs", on_change=_chosen,
                         format_func=lambda c: f"{language_name(c)} ({c})", placeholder="pick languages")
    if not (picked and splits and langs and kinds):
        st.info("Pick at least one edition, split, language and kind of text to search.", icon=":material/info:")
        return None
    return similar.Scope(tuple(picked), tuple(splits), tuple(langs), tuple(k for k in similar.KINDS if k in kinds))


@st.cache_resource(show_spinner=False)
def engine_budget() -> TimeBudget:
    """Each visitor address's hour of the embedding engine, in this process."""
    return TimeBudget(VISITOR_ENGINE_S_PER_HOUR)


def _build(scope: similar.Scope, cost: similar.BuildEstimate) -> similar.SimilarityIndex | None:
    visitor = not is_organizer()
    if visitor:
        # Checked again at the click, and the estimate booked before the build (settled after):
        # tabs of one address building at once cannot each spend the whole hour.
        budget, client = engine_budget(), auth.client_id()  # looked up at the call, not bound at import
        if cost.new and cost.seconds > budget.left(client):
            st.warning("Your address has used its time of the embedding engine for this hour meanwhile: come back "
                       "later.", icon=":material/timer:")
            return None
        budget.charge(client, cost.seconds)
    bar = st.progress(0.0, text="Reading the texts…")

    def progress(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"Embedding new texts: {done:,} of {total:,}")

    before = meaning.engine_seconds()
    try:
        return similar.index_for(scope, progress=progress)
    except meaning.MeaningUnavailableError as err:
        st.warning(f"The model of meaning cannot run: {render.md(err, None)}", icon=":material/warning:")
        return None
    finally:
        bar.empty()
        if visitor:  # the estimate was booked: the difference to what the build took
            budget.charge(client, meaning.engine_seconds() - before - cost.seconds)


def _duration(seconds: float) -> str:
    if seconds < 10:
        return "a few seconds"
    if seconds < 90:
        return f"about {round(seconds / 10) * 10:.0f} s"
    return f"about {seconds / 60:.0f} min"


def _edition_labels(names: str) -> str:
    known = editions.EDITIONS
    return ", ".join(known[n].short if n in known else n for n in names.split(", ") if n)


def _results(index: similar.SimilarityIndex, pair_text: str | None) -> None:
    row = st.container(horizontal=True, wrap=True, gap="small", vertical_alignment="bottom")
    source = TYPED
    if pair_text:
        source = row.segmented_control("Search for", [FROM_PAIR, TYPED], default=FROM_PAIR, required=True,
                                       key="sim_from", **BIND) or FROM_PAIR
    clamp_value("sim_k", 1, similar.MAX_K)
    k = int(row.number_input("Results", 1, similar.MAX_K, 10, step=5, key="sim_k", width=140))
    if source == FROM_PAIR and pair_text:
        query = pair_text
        st.caption(f"Query: {render.md(pair_text, 200)}")
    else:
        query = st.text_area("Sentence", key="sim_query", max_chars=similar.MAX_QUERY_CHARS, height=80, **BIND,
                             placeholder="a sentence in any language") or ""
        if not query.strip():
            st.caption("Type a sentence in any language and press Ctrl+Enter"
                       + ("." if pair_text else ", or select a row of the table to search for its toxic sentence."))
            return
    try:
        found = index.nearest(query, k, exclude_text=query)
    except DetoxInputError as err:
        st.error(render.md(err, None), icon=":material/error:")
        return
    if found.empty:
        st.caption("Nothing else is in the chosen texts.")
        return
    view = pd.DataFrame({
        "cosine": found["cosine"],
        "lang": found["lang"],  # before the text: what a narrow window shows beside it
        "text": found["text"],
        "kind": [f"output · {system}" if kind == similar.KIND_OUTPUT else "input"
                 for kind, system in zip(found["kind"], found["system"])],
        "edition": found["edition"].map(_edition_labels),
        "split": found["split"],
    })
    st.dataframe(view, hide_index=True, placeholder=MISSING, key="sim_results", column_config={
        # The bar starts at 0.7: this model puts unrelated sentences at about 0.7-0.8, so a bar
        # from 0 would look full for every row.
        "cosine": st.column_config.ProgressColumn("Cosine", min_value=COSINE_FLOOR, max_value=1.0, format="%.3f",
                                                  width=130,
                                                  help="Cosine of the two sentences' embeddings "
                                                       "(multilingual-e5-small): "
                                                       "1 = same meaning; unrelated sentences still score about "
                                                       f"0.7-0.8, so the bar runs from {COSINE_FLOOR} to 1."),
        "text": st.column_config.TextColumn("Text", width="large"),
        "kind": st.column_config.TextColumn("Kind", width="medium",
                                            help="A toxic input, or an output with the systems that wrote it."),
        "edition": st.column_config.TextColumn("Edition"),
        "lang": st.column_config.TextColumn("Lang", width="small", help="Language (ISO code)"),
        "split": st.column_config.TextColumn("Split", width="small"),
    })
    st.caption("Most similar first. A text found in several editions or splits, or written by several systems, is one "
               "row; the query's own text is left out.")


def find_similar_section(choice, pair_text: str | None) -> None:
    """The "Find similar" expander: scope pickers, the cost of the scope, the index built
    on request (with a progress bar), a query (the selected pair's toxic sentence or a typed
    one) and its nearest neighbours. Its content runs only while it is open."""
    box = st.expander("Find similar sentences by meaning, in every language", key="sim_open", on_change="rerun",
                      icon=":material/travel_explore:", **BIND)
    if box.open is not True:
        return
    with box:
        reason = meaning.unavailable_reason()
        if reason is not None:
            st.info(f"Search by meaning is not available here: {render.md(reason, None)}", icon=":material/info:")
            return
        st.caption("Nearest neighbours by meaning (multilingual-e5-small, cross-lingual: a sentence and its "
                   "translation are close) among the toxic inputs and the shipped system outputs you choose.")
        scope = _scope(choice)
        if scope is None:
            return
        try:
            texts = similar.cached_scope_texts(scope)
        except (DetoxInputError, DataMissingError) as err:  # a file changed or removed since the fetch
            st.error(f"The texts could not be read: {render.md(err, None)}", icon=":material/error:")
            return
        if texts.empty:
            st.info("The chosen editions have no text in these splits and languages.", icon=":material/info:")
            return
        cost = similar.estimate(scope)
        distinct = cost.distinct
        index = similar.built_index(scope)
        if index is None:
            offer = st.empty()  # the offer goes once the index is built
            with offer.container():
                cached = distinct - cost.new
                st.caption(f"{len(texts):,} texts ({distinct:,} distinct) in the chosen scope"
                           + (f", {cached:,} of them embedded before (read from the cache)" if cached else "")
                           + (f". Embedding the {cost.new:,} new ones takes {_duration(cost.seconds)} now (the engine "
                              f"embeds ~{meaning.texts_per_second():.0f} texts a second here"
                              + (", shared with the searches being built" if similar.building() else "") + ")."
                              if cost.new else ": searching them takes a few seconds."))
                too_many = distinct > VISITOR_MAX_TEXTS and not is_organizer()
                left = engine_budget().left(auth.client_id()) if not is_organizer() else float("inf")
                over_budget = not too_many and cost.new and cost.seconds > left
                if too_many:
                    st.warning(f"A visitor's search covers at most {VISITOR_MAX_TEXTS:,} distinct texts (embedding "
                               "more would hold the server for everyone): choose fewer editions, splits or "
                               "languages.", icon=":material/block:")
                elif over_budget:
                    st.warning(f"Your address has {left:.0f} s of the embedding engine left this hour "
                               f"(of {VISITOR_ENGINE_S_PER_HOUR:.0f} s, shared by everyone here), and these texts need "
                               f"{_duration(cost.seconds)}: choose fewer editions, splits or languages, or come "
                               "back later.", icon=":material/timer:")
                clicked = st.button(f"Embed {distinct:,} texts and search", key="sim_build",
                                    icon=":material/play_arrow:", disabled=bool(too_many or over_budget))
            if not clicked:
                return
            offer.empty()
            index = _build(scope, cost)
            if index is None:
                return
        st.caption(f"Searching {len(index):,} texts ({distinct:,} distinct).")
        _results(index, pair_text)
