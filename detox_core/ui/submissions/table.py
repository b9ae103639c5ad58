"""Submissions: the stored submissions of a test set and preset, their management
(organizers rename, hide or delete), the missing reference metrics, and the "Show" picker."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from detox_core import vocab
from detox_core.analysis.leaderboard import is_official, official_chrf
from detox_core.errors import DetoxInputError
from detox_core.metrics.reference import reference_notes
from detox_core.submissions.service import missing_reference_columns, stored_references, with_language_means
from detox_core.submissions.store import display_names, short_name
from detox_core.ui.app import render
from detox_core.ui.app.models import shared_pool
from detox_core.ui.app.submission_store import (cached_official_chrf, cached_scores, fill_reference_metrics_of,
                                                shared_store)
from detox_core.ui.widgets.preset_agreement import agreement_note
from detox_core.ui.widgets.scores import preset_label
from detox_core.ui.submissions.scoring import SubmissionTarget
from detox_core.ui.widgets.tables import MISSING
from detox_core.vocab import MODEL_AXES, SCORE_COLUMNS


def listed_submissions(target: SubmissionTarget, include_hidden: bool) -> pd.DataFrame:
    """The stored submissions of the target's test set, preset and calibration; for a
    multilingual corpus with their means over the picked languages (each counting once)."""
    listed = shared_store().list(dataset=target.dataset, split=target.split, preset=target.preset,
                                 include_hidden=include_hidden)
    listed = listed[listed["calibrated"] == target.calibrated]
    if target.multilingual and not listed.empty:
        # The task's numbers: each language's mean counts once, over the languages picked in the sidebar.
        listed = with_language_means(listed, {int(i): cached_scores(int(i)) for i in listed["id"]}, target.languages)
    return listed


def manage(listed: pd.DataFrame) -> None:
    """Organizers rename, hide (from rankings, comparisons and new projects) or delete."""
    store = shared_store()
    names = display_names(listed)
    with st.expander("Manage stored submissions", icon=":material/settings:"):
        sid = st.selectbox("Submission", listed["id"].tolist(), format_func=names.get, key="sub_manage_id")
        row = listed.set_index("id").loc[sid]
        m1, m2 = st.columns([3, 1], vertical_alignment="bottom")
        new_name = m1.text_input("Name", value=row["name"], key=f"sub_manage_name_{sid}", max_chars=200)
        if m2.button("Rename", key="sub_manage_rename", disabled=new_name.strip() in ("", row["name"])):
            try:
                st.session_state["sub_flash"] = f"Renamed to {render.md(store.rename(int(sid), new_name))}."
            except DetoxInputError as err:
                st.error(f"Not renamed: {render.md(err, None)}", icon=":material/error:")
            else:
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


def sentence_references(target: SubmissionTarget, sid: int) -> list[list[str]]:
    """The references of a stored submission's sentences, in their order."""
    if target.multilingual:
        return stored_references(cached_scores(sid), target.rows)
    return [list(r) for r in target.references]


def _multilingual_caption(target: SubmissionTarget) -> None:
    edition, preset, calibrated = target.choice.edition, target.preset, target.calibrated
    own_preset = edition.official_preset if edition else None
    if own_preset and is_official(edition, preset, calibrated):
        whose = "the edition's official average when every language is scored: see the Languages column"
    else:
        whose = (f"by {preset_label(preset, calibrated)}: not the official average"
                 + (f", which is the mean J by {preset_label(own_preset)}" if own_preset else ""))
    st.caption(f"Scores are means over the {len(target.languages)} language(s) picked in the sidebar, each language "
               f"counting once ({whose}); an empty cell is an axis no picked language could be scored on (a "
               "submission's By language section says why).")


def stored_submissions(target: SubmissionTarget, listed: pd.DataFrame, organizer: bool) -> None:
    """The table of stored submissions (organizers: with the hidden ones and their
    management), and the reference metrics that stored submissions lack."""
    if flash := st.session_state.pop("sub_flash", None):
        st.success(flash, icon=":material/check_circle:")
    st.subheader("Stored submissions")
    agreement_note(target.preset, target.calibrated, target.languages, key="sub_agr")
    if organizer:
        manage(listed)
    if target.multilingual:
        _multilingual_caption(target)
    lang_cols = ["languages"] if target.multilingual else []
    # The edition's official system-level chrF (the published table's), beside the mean sentence chrF.
    official = official_chrf(target.dataset) if not target.multilingual and any(target.references) else None
    # J, the ranking score, right after the (pinned) name and before the axes it multiplies, then
    # the languages a mean is over, the reference metrics and where the file came from: the name and
    # J on screen at any width.
    axis_cols = ["j", *MODEL_AXES]
    score_cols = [c for c in SCORE_COLUMNS if c not in axis_cols]
    if official:
        listed = listed.assign(chrf_official=[cached_official_chrf(int(i), target.dataset, target.references)
                                              for i in listed["id"]])
        score_cols.insert(score_cols.index("chrf") + 1, "chrf_official")
    stored_cols = ["name", *axis_cols, *lang_cols, *score_cols, "source", "n", "created_at"]
    # Long names cut in the middle, so that J and STA stay on screen at 800 px and the ends of the
    # names, where versions differ, stay readable; the whole name is in the "Show" box below.
    shown = listed.assign(name=[short_name(n) for n in display_names(listed).values()])
    st.dataframe(
        shown[[*stored_cols, "hidden"]], hide_index=True, placeholder=MISSING,
        column_order=None if organizer else stored_cols,
        column_config={
            "languages": st.column_config.TextColumn("Languages", help="Picked languages the file answers, and how "
                                                     "many of them the preset scored when fewer (a preset that covers "
                                                     "fewer languages): fewer answered than picked = partial"),
            "hidden": st.column_config.CheckboxColumn("Hidden"),
            "name": st.column_config.TextColumn("Submission", pinned=True, help="Long names are cut in the middle "
                                                "(…); the whole name is in the Show box below"),
            "source": st.column_config.TextColumn("From"),
            "n": st.column_config.NumberColumn("Sentences"),
            **{c: st.column_config.ProgressColumn(vocab.label(c), min_value=0.0, max_value=1.0, format="%.3f",
                                                  help=vocab.axis_help(c)) for c in SCORE_COLUMNS},
            **({"chrf_official": st.column_config.ProgressColumn(official[0], min_value=0.0, max_value=1.0,
                                                                 format="%.3f", help=official[1].help)}
               if official else {}),
            "created_at": st.column_config.DatetimeColumn("Scored", format="YYYY-MM-DD HH:mm"),
        },
    )
    _reference_metrics(target, listed, organizer)


def _reference_metrics(target: SubmissionTarget, listed: pd.DataFrame, organizer: bool) -> None:
    """Organizers compute the reference metrics stored submissions lack; BERTScore's state."""
    stale = [int(i) for i in listed["id"] if organizer
             and missing_reference_columns(listed[listed["id"] == i], sentence_references(target, i))]
    if stale and st.button(f"Compute the missing reference metrics ({len(stale)} submission(s))",
                           key="sub_fill_refs", icon=":material/calculate:",
                           help="Submissions stored before BLEU and ROUGE-L (or BERTScore, once turned on) were "
                                "computed: their columns read n/a until then. The other scores stay as they are."):
        with st.spinner("Computing the reference metrics…"):
            filled = fill_reference_metrics_of({i: sentence_references(target, i) for i in stale}, shared_pool())
        st.session_state["sub_flash"] = (f"Reference metrics computed for {sum(1 for v in filled.values() if v)} "
                                         "submission(s).")
        st.rerun()
    notes = reference_notes(shared_store().get(int(listed["id"].iloc[-1])).signature) if len(listed) else {}
    if notes.get("bertscore") or listed["bertscore"].isna().all():
        st.caption("BERTScore: n/a — " + render.md(notes.get("bertscore") or "not computed when these submissions "
                                                   "were scored (organizers turn it on under Metric models)", None)
                   + ".")


def submission_picker(listed: pd.DataFrame) -> tuple[int, str]:
    """The "Show" box: the submission whose sentences are shown (the one scored last by
    default, or the one just scored); returns its id and its name as listed."""
    ids = listed["id"].tolist()
    names = display_names(listed)
    current = st.session_state.get("sub_view")
    if st.session_state.get("sub_view_select") not in ids:
        st.session_state["sub_view_select"] = current if current in ids else ids[-1]
    view_id = st.selectbox("Show", ids, format_func=lambda i: names[i], key="sub_view_select")
    st.session_state["sub_view"] = view_id
    return view_id, names[view_id]
