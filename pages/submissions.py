"""Submissions: score a system's outputs for a test set and understand every low score."""

from __future__ import annotations

import hashlib

import plotly.graph_objects as go
import streamlit as st

from detox_core.errors import DetoxInputError, ScorerUnavailableError, StorageError
from detox_core.submissions.explain import FLAGS
from detox_core.metrics.registry import preset_class
from detox_core.submissions.service import (
    filter_sentences,
    language_summary,
    languages_elsewhere,
    missing_reference_columns,
    score_and_store,
    score_and_store_multilingual,
    shipped_outputs,
    split_inputs,
    split_rows,
    stored_references,
    UnsavedScoresError,
    with_language_means,
)
from detox_core.submissions.store import display_names
from detox_core.ui.app.auth import is_organizer, require_page
from detox_core.ui.app import render
from detox_core.judge.runner import Usage
from detox_core.ui.sections.llm_judge import estimate_caption
from detox_core.ui.app.models import shared_pool
from detox_core.ui.sections.agreement import agreement_note
from detox_core.ui.sections.scores import preset_label, preset_picker, preset_ready, score_card, show_scoring_error
from detox_core.ui.app.params import clamp_value
from detox_core.ui.sections.sidebar import current_choice, offer_answered_split, split_languages, split_picker
from detox_core.ui.app.submission_store import (cached_official_chrf, cached_scores, cached_sentence_table, fill_reference_metrics_of,
                                 shared_store)
from detox_core.ui.sections.tables import MISSING
from detox_core import vocab
from detox_core.analysis.leaderboard import is_official, official_chrf
from detox_core.metrics.reference import reference_notes
from detox_core.vocab import MODEL_AXES, SCORE_COLUMNS, language_name

st.title("Submissions")
require_page("submissions")
choice = current_choice()
if not choice.ok:
    st.info(choice.problem or "No corpus loaded.", icon=":material/info:")
    st.stop()
store = shared_store()
dataset = choice.source

top = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
split = split_picker(choice, top, width=180, help="The inputs the submission answers, one output per "
                     "input in this order.")
preset, calibrated = preset_picker("sub_preset", top, languages=choice.languages)
languages = split_languages(choice, split)  # the picked languages this test set has inputs in
if preset is None:
    st.stop()
multilingual = choice.multilingual
# In seconds, before any scoring: a preset whose models are not here says so (stored scores stay browsable).
ready = preset_ready(preset, choice.languages or (choice.edition.languages if choice.edition else ()))
if multilingual:
    rows = split_rows(choice.whole, split)
    inputs, references = rows["toxic_comment"].tolist(), []
    st.caption(f"{len(inputs):,} inputs in `{split}` in {rows['lang'].nunique()} languages · a submission is the "
               "CodaLab TSV `toxic_sentence, neutral_sentence, lang` (or a zip holding it), rows matched by text and "
               "language; a submission that answers only some languages is scored and marked partial.")
else:
    inputs, references = split_inputs(choice.prepared, split)
    st.caption(f"{len(inputs):,} inputs in `{split}` · a submission is a text file with one output per line in this "
               "order, or a TSV with `toxic_sentence` and `neutral_sentence` columns.")


def run_scoring(content: bytes, name: str, source: str, summary: tuple[list, dict] | None = None) -> None:
    """Score and store one file and say how it went; with ``summary`` (names stored,
    notes), the outcome and the notes are collected there instead (one message for many
    files). Errors are always shown at once."""
    bar = st.progress(0.0, text="Checking the file…")

    def progress(step: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{step}: {done:,} / {total:,}")

    notes = []
    usages: list[dict] = []  # what an LLM judge's run cost, read from its score frame

    def on_scored(frame) -> None:
        if frame.attrs.get("llm_usage"):
            usages.append(frame.attrs["llm_usage"])

    try:
        if multilingual:
            result = score_and_store_multilingual(
                store, content, name, dataset=dataset, split=split, rows=rows, preset=preset, calibrated=calibrated,
                source=source, pool=shared_pool(), progress=progress, on_scored=on_scored,
                elsewhere=languages_elsewhere(dataset, split, choice.whole))
            stored, already = result.stored, result.already
            if result.submission.partial:
                notes.append(f"Partial submission: {result.submission.describe()}." if summary is None else
                             "Partial submissions: they do not answer every language of the split.")
            if result.not_covered:
                notes.append(f"Not scored: {', '.join(language_name(c) for c in result.not_covered)} (the "
                             f"{preset_label(preset)} preset covers {preset_class(preset).coverage()}).")
        else:
            stored, already = score_and_store(
                store, content, name, dataset=dataset, split=split, inputs=inputs, references=references,
                preset=preset, calibrated=calibrated, source=source, pool=shared_pool(), progress=progress,
                on_scored=on_scored,
            )
    except DetoxInputError as err:
        bar.empty()
        st.error(f"Not scored, nothing stored. {render.md(err, None)}", icon=":material/error:")
        return
    except ScorerUnavailableError as err:
        bar.empty()
        show_scoring_error(err, choice.languages)
        return
    except UnsavedScoresError as err:
        bar.empty()
        st.session_state[PENDING_KEY] = err.pending
        return
    except StorageError as err:
        bar.empty()
        st.error(f"Not scored. {render.md(err, None)}", icon=":material/error:")
        return
    bar.empty()
    show_submission(stored.id)
    if summary is not None:
        summary[0].append(stored.name + (" (stored before)" if already else ""))
        for note in notes:
            summary[1][note] = None
        return
    if already:
        st.info(f"{render.md(stored.name)} was scored before with this preset "
                f"({stored.created_at:%Y-%m-%d %H:%M} UTC): showing the stored scores.", icon=":material/history:")
    else:
        st.success(f"{render.md(stored.name)} scored and stored.", icon=":material/check_circle:")
    for usage in usages:  # the LLM judge: what the requests cost, what is missing
        st.caption("LLM judge: " + render.md(Usage(**usage).text(), None))
    for note in notes:
        st.warning(note, icon=":material/translate:")


PENDING_KEY = "sub_pending"


def show_submission(sid: int) -> None:
    """Show ``sid`` in the sentence table below (the "Show" box follows it)."""
    st.session_state["sub_view"] = sid
    st.session_state["sub_view_select"] = sid


def show_pending() -> None:
    """Scores whose storing failed stay in the session: retry, or download them."""
    pending = st.session_state.get(PENDING_KEY)
    if pending is None:
        return
    name = pending.fields["name"]
    with st.container(border=True):
        st.error(f"{render.md(name)} was scored, but the database could not store it. The scores are kept in "
                 "this session: store them again once the database is back, or download them.",
                 icon=":material/cloud_off:")
        r1, r2 = st.columns(2)
        if r1.button("Store the scores again", icon=":material/refresh:", key="sub_pending_retry"):
            try:
                stored = pending.store(store)
            except StorageError as err:
                st.error(render.md(err, None), icon=":material/error:")
            else:
                del st.session_state[PENDING_KEY]
                show_submission(stored.id)
                st.success(f"{render.md(stored.name)} stored.", icon=":material/check_circle:")
                return
        r2.download_button("Download the scores (CSV)", pending.scores.to_csv(index=False).encode("utf-8"),
                           file_name="scores.csv", mime="text/csv", icon=":material/download:",
                           key="sub_pending_download")


with st.container(border=True):
    st.markdown("**Add a submission**")
    u1, u2 = st.columns(2)
    with u1:
        upload = st.file_uploader("Upload outputs", type=["txt", "tsv", "zip"], key="sub_upload",
                                  help="One output per line (.txt), a TSV with toxic_sentence, neutral_sentence "
                                       "and lang, or a zip holding one of them, as uploaded to CodaLab.")
        if upload is not None and multilingual:
            offer_answered_split(upload, choice, split)
        if upload is not None and preset == "llm-judge" and (estimate := estimate_caption(inputs)):
            st.caption(estimate)
        if upload is not None and st.button("Score the upload", type="primary", icon=":material/play_arrow:",
                                            disabled=not ready):
            run_scoring(upload.getvalue(), upload.name, "upload")
    with u2:
        shipped = shipped_outputs(dataset, split) if dataset != "upload" else {}
        if shipped:
            name = st.selectbox("Or a shipped system output", list(shipped), key="sub_shipped",
                                help="Baselines and participants of the shared task, fetched with the data.")
            b1 = b2 = st.container(horizontal=True, wrap=True)  # the buttons wrap instead of being cut
            if b1.button("Score this output", icon=":material/play_arrow:", disabled=not ready):
                path = shipped[name]
                run_scoring(path.read_bytes(), path.name, "shipped")
            if len(shipped) > 1 and b2.button(f"Score all {len(shipped)}", icon=":material/playlist_play:", disabled=not ready,
                                              help="Every shipped output of this test set, one after the other "
                                              "(those stored before are not scored again)."):
                summary: tuple[list, dict] = ([], {})
                overall = st.progress(0.0, text="Scoring every shipped output…")
                for k, path in enumerate(shipped.values(), 1):
                    overall.progress((k - 1) / len(shipped), text=f"{k} / {len(shipped)}: {path.name}")
                    run_scoring(path.read_bytes(), path.name, "shipped", summary)
                overall.empty()
                if summary[0]:
                    st.success(f"{len(summary[0])} of {len(shipped)} stored: "
                               + ", ".join(render.md(n, 80) for n in summary[0]) + ".", icon=":material/check_circle:")
                for note in summary[1]:
                    st.warning(note, icon=":material/translate:")
        else:
            st.caption(f"No shipped outputs for `{split}`.")

show_pending()
organizer = is_organizer()
listed = store.list(dataset=dataset, split=split, preset=preset, include_hidden=organizer)
listed = listed[listed["calibrated"] == calibrated]
if listed.empty:
    st.info("No submission scored for this test set and preset yet.", icon=":material/info:")
    st.stop()


def show_languages(scores, languages, answered=None) -> None:
    """The viewed submission language by language, with what is missing said in words:
    languages its file does not answer apart from those the preset does not cover."""
    summary = language_summary(scores, languages)
    answered = set(answered or ()) | set(summary.table["lang"])
    not_answered = [c for c in summary.missing if c not in answered]
    not_covered = [c for c in summary.missing if c in answered]
    st.subheader("By language")
    first = ["lang", "language", "n", "j", *MODEL_AXES]  # J first among the scores, as in the stored table
    st.dataframe(summary.table, hide_index=True, placeholder=MISSING,
                 column_order=[*first, *(c for c in summary.table if c not in first)], column_config={
        "lang": st.column_config.TextColumn("Code", width="small"),
        "language": st.column_config.TextColumn("Language"),
        "n": st.column_config.NumberColumn("Sentences"),
        **{c: st.column_config.ProgressColumn(vocab.label(c), min_value=0.0, max_value=1.0, format="%.3f",
                                              help=vocab.axis_help(c)) for c in SCORE_COLUMNS},
    })
    mean = summary.means.get("j")
    scored = summary.scored_count("j")
    value = f"**{mean:.3f}**" if mean == mean else "n/a"
    official = choice.edition.official_preset if choice.edition else None
    if scored == len(languages) and choice.edition and is_official(choice.edition, preset, calibrated):
        st.caption(f"Official average (mean J over the {scored} languages): {value}")
    elif scored == len(languages):
        st.caption(f"Mean J over the {scored} languages, each counting once: {value}."
                   + (f" The official average is this with {preset_label(official)}, not {preset_label(preset)}."
                      if official else ""))
    else:
        st.caption(f"Mean J over {scored} of {len(languages)} languages: {value}. Not the official average, which "
                   "needs every language scored; not comparable with means over every language.")
    if not_answered:
        st.warning(f"Partial: the file does not answer {', '.join(language_name(c) for c in not_answered)}.",
                   icon=":material/translate:")
    if not_covered:
        st.info(f"Answered but not scored: {', '.join(language_name(c) for c in not_covered)}. The "
                f"{preset_label(preset)} preset covers {preset_class(preset).coverage()}; pick a preset that covers "
                "them to score them (n/a here, never zero).", icon=":material/translate:")
    if summary.unscored.get("j"):
        st.info(f"FL and J are n/a for {', '.join(language_name(c) for c in summary.unscored['j'])}: this split has "
                "no references for them (the recipe's fluency compares the rewrite with references). STA and SIM "
                "are scored." + (f" {choice.edition.references_hint()}" if choice.edition else ""),
                icon=":material/info:")


def manage(listed) -> None:
    """Organizers rename, hide (from rankings, comparisons and new projects) or delete."""
    names = display_names(listed)
    with st.expander("Manage stored submissions", icon=":material/settings:"):
        sid = st.selectbox("Submission", listed["id"].tolist(), format_func=names.get, key="sub_manage_id")
        row = listed.set_index("id").loc[sid]
        m1, m2 = st.columns([3, 1], vertical_alignment="bottom")
        new_name = m1.text_input("Name", value=row["name"], key=f"sub_manage_name_{sid}", max_chars=200)
        if m2.button("Rename", key="sub_manage_rename", disabled=new_name.strip() in ("", row["name"])):
            st.session_state["sub_flash"] = f"Renamed to {render.md(store.rename(int(sid), new_name))}."
            st.rerun()
        h1, h2 = st.columns([3, 1], vertical_alignment="bottom")
        h1.caption("Hidden submissions stay stored and listed here, but leave the Leaderboard, Compare systems "
                   "and new annotation projects." if not row["hidden"] else "Hidden: not on the Leaderboard, in "
                   "Compare systems or new annotation projects.")
        if h2.button("Show again" if row["hidden"] else "Hide", key="sub_manage_hide"):
            store.set_hidden(int(sid), not row["hidden"])
            st.rerun()
        d1, d2 = st.columns([3, 1], vertical_alignment="bottom")
        confirm = d1.text_input("Type the submission's name to delete it with its scores", key=f"sub_manage_del_{sid}")
        if d2.button("Delete", key="sub_manage_delete", type="primary", disabled=confirm != row["name"]):
            store.remove(int(sid))
            st.session_state.pop("sub_view", None)
            st.session_state["sub_flash"] = f"Deleted {render.md(row['name'])}."
            st.rerun()


if multilingual:
    # The task's numbers: each language's mean counts once, over the languages picked in the sidebar.
    listed = with_language_means(listed, {int(i): cached_scores(int(i)) for i in listed["id"]}, languages)

if flash := st.session_state.pop("sub_flash", None):
    st.success(flash, icon=":material/check_circle:")
st.subheader("Stored submissions")
agreement_note(preset, calibrated, languages, key="sub_agr")
if organizer:
    manage(listed)
if multilingual:
    own_preset = choice.edition.official_preset if choice.edition else None
    if own_preset and is_official(choice.edition, preset, calibrated):
        whose = "the edition's official average when every language is scored: see the Languages column"
    else:
        whose = (f"by {preset_label(preset, calibrated)}: not the official average"
                 + (f", which is the mean J by {preset_label(own_preset)}" if own_preset else ""))
    st.caption(f"Scores are means over the {len(languages)} language(s) picked in the sidebar, each language "
               f"counting once ({whose}); an empty cell is an axis no picked language could be scored on (a "
               "submission's By language section says why).")
lang_cols = ["languages"] if multilingual else []
# The edition's official system-level chrF (the published table's), beside the mean sentence chrF.
official = official_chrf(dataset) if not multilingual and any(references) else None
# J, the ranking score, right after the (pinned) name and before the axes it multiplies, then
# the languages a mean is over, the reference metrics and where the file came from: the name and
# J on screen at any width.
axis_cols = ["j", *MODEL_AXES]
score_cols = [c for c in SCORE_COLUMNS if c not in axis_cols]
if official:
    listed = listed.assign(chrf_official=[cached_official_chrf(int(i), dataset, references) for i in listed["id"]])
    score_cols.insert(score_cols.index("chrf") + 1, "chrf_official")
stored_cols = ["name", *axis_cols, *lang_cols, *score_cols, "source", "n", "created_at"]
st.dataframe(
    listed[[*stored_cols, "hidden"]], hide_index=True, placeholder=MISSING,
    column_order=None if organizer else stored_cols,
    column_config={
        "languages": st.column_config.TextColumn("Languages", help="Picked languages the file answers, and how "
                                                 "many of them the preset scored when fewer (a preset that covers "
                                                 "fewer languages): fewer answered than picked = partial"),
        "hidden": st.column_config.CheckboxColumn("Hidden"),
        "name": st.column_config.TextColumn("Submission", pinned=True), "source": st.column_config.TextColumn("From"),
        "n": st.column_config.NumberColumn("Sentences"),
        **{c: st.column_config.ProgressColumn(vocab.label(c), min_value=0.0, max_value=1.0, format="%.3f",
                                              help=vocab.axis_help(c)) for c in SCORE_COLUMNS},
        **({"chrf_official": st.column_config.ProgressColumn(official[0], min_value=0.0, max_value=1.0, format="%.3f",
                                                             help=official[1].help)} if official else {}),
        "created_at": st.column_config.DatetimeColumn("Scored", format="YYYY-MM-DD HH:mm"),
    },
)


def sentence_references(sid: int) -> list[list[str]]:
    """The references of a stored submission's sentences, in their order."""
    return stored_references(cached_scores(sid), rows) if multilingual else [list(r) for r in references]


stale = [int(i) for i in listed["id"] if organizer
         and missing_reference_columns(listed[listed["id"] == i], sentence_references(i))]
if stale and st.button(f"Compute the missing reference metrics ({len(stale)} submission(s))", key="sub_fill_refs",
                       icon=":material/calculate:",
                       help="Submissions stored before BLEU and ROUGE-L (or BERTScore, once turned on) were computed: "
                            "their columns read n/a until then. The other scores stay as they are."):
    with st.spinner("Computing the reference metrics…"):
        filled = fill_reference_metrics_of({i: sentence_references(i) for i in stale}, shared_pool())
    st.session_state["sub_flash"] = (f"Reference metrics computed for {sum(1 for v in filled.values() if v)} "
                                     "submission(s).")
    st.rerun()
notes = reference_notes(store.get(int(listed["id"].iloc[-1])).signature) if len(listed) else {}
if notes.get("bertscore") or listed["bertscore"].isna().all():
    st.caption("BERTScore: n/a — " + render.md(notes.get("bertscore") or "not computed when these submissions were "
                                               "scored (organizers turn it on under Metric models)", None) + ".")
ids = listed["id"].tolist()
names = display_names(listed)
current = st.session_state.get("sub_view")
if st.session_state.get("sub_view_select") not in ids:
    st.session_state["sub_view_select"] = current if current in ids else ids[-1]
view_id = st.selectbox("Show", ids, format_func=lambda i: names[i], key="sub_view_select")
st.session_state["sub_view"] = view_id

if multilingual:
    view_scores = cached_scores(view_id)
    references = stored_references(view_scores, rows)
refs_key = hashlib.sha1(repr(references).encode()).hexdigest()
table = cached_sentence_table(view_id, f"{choice.source}|{refs_key}", references, choice.lexicon)
if multilingual:
    show_languages(view_scores, languages, listed.set_index("id").at[view_id, "answered"])
    table = table[table["lang"].isin(languages)]
st.subheader(f"Sentences of {render.md(names[view_id])}")
filters = st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")
text = filters.text_input("Search input or output", key="sub_q", width=260)
clamp_value("sub_j", 0.0, 1.0)
j_max = filters.slider("Only J below", 0.0, 1.0, 1.0, 0.01, key="sub_j", width=180,
                       help="Sentences whose J is below this value; at 1.00 every sentence is shown.")
flag_filter = filters.multiselect("Flags", list(FLAGS.values()), key="sub_flags", width=220, placeholder="any")
limit_filter = filters.multiselect("Limited by", list(MODEL_AXES), key="sub_limit", width=160, placeholder="any",
                                   format_func=str.upper, help="The axis with the lowest score (it caps J)")
shown = filter_sentences(table, text, j_max if j_max < 1.0 else None, flag_filter, limit_filter)
st.caption(f"{len(shown):,} of {len(table):,} sentences · sort by any column by clicking its header")
if unanswered := int(table[["sta", "sim"]].isna().any(axis=1).sum()):  # an LLM judge's missing answers
    st.caption(f"{unanswered:,} of {len(table):,} sentences have no STA or SIM (an answer could not be had): their J "
               "is n/a, and the means skip them.")
event = st.dataframe(
    shown[["line", *(["lang"] if multilingual else []), "input", "output", *SCORE_COLUMNS, "limiting", "flags"]],
    key=f"sub_table_{view_id}", on_select="rerun", selection_mode="single-row", hide_index=True, placeholder=MISSING, height=360,
    column_config={
        "line": st.column_config.NumberColumn(
            "#" if multilingual else "Line", width="small",
            help="Sentence number, in the split's order of inputs" if multilingual else "Line of the submission"),
        "lang": st.column_config.TextColumn("Lang", width="small"),
        "input": st.column_config.TextColumn("Input", width="large"),
        "output": st.column_config.TextColumn("Output", width="large"),
        **{c: st.column_config.NumberColumn(vocab.label(c), format="%.2f", width="small", help=vocab.axis_help(c))
           for c in SCORE_COLUMNS},
        "limiting": st.column_config.TextColumn("Limit", help="The axis with the lowest score (it caps J)",
                                                 width="small"),
        "flags": st.column_config.TextColumn("Flags"),
    },
)
st.download_button("Export CSV", lambda: shown.to_csv(index=False).encode("utf-8"),
                   file_name=f"{names[view_id]}.scores.csv", mime="text/csv", icon=":material/download:")
rows = list(event.selection.rows) if event is not None else []
if rows:
    row = shown.iloc[rows[0]]
    refs = references[int(row["idx"])]
    score_card(row["input"], row["output"], row.to_dict(), choice.lexicon, preset=preset, lang=row.get("lang"),
               title=f"Sentence {int(row['idx']) + 1}" + (f" · references: {' | '.join(refs)}" if refs else ""))
else:
    st.caption("Select a row to see the pair, its references, the diff and why J is what it is.")

st.subheader("Distributions")
fig = go.Figure()
for col, color in (("sta", "#2e7d5b"), ("sim", "#2c7fb8"), ("fl", "#e67e22"), ("j", "#6a1b9a")):
    fig.add_trace(go.Histogram(x=table[col], name=col.upper(), marker_color=color, opacity=0.6,
                               xbins=dict(start=0, end=1.0001, size=0.05)))
fig.update_layout(barmode="overlay", height=320, margin=dict(t=10, b=10), xaxis_title="score", yaxis_title="sentences")
st.plotly_chart(fig, width="stretch")
