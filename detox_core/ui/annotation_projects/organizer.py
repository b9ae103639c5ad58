"""Organizer widgets of an annotation project: who is kept out (and letting them back in),
and whether the project's human scores feed the public Leaderboard."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from detox_core.annotation.results import asks_all_tasks, MIN_JUDGED_PER_SYSTEM
from detox_core.annotation.store import AnnotationStore, Project
from detox_core.errors import AnnotationError, DetoxError
from detox_core.ui.app import render
from detox_core.ui.widgets.tables import MISSING

#: Why someone is kept out, and what each log line records, in the organizer's words.
EVENT_WORDS = {"exam_failed": "failed the exam", "banned": "banned by a quality rule",
               "join_refused": "refused at joining (address limit)", "readmitted": "admitted by an organizer",
               "unbanned": "unbanned by an organizer", "address_allowed": "address allowed again",
               "password_set": "password set", "name_refused": "name refused at joining"}


def refused_section(store: AnnotationStore, project: Project) -> None:
    """Who is kept out and why; re-admit, unban or allow an address again, with a reason
    that goes to the project's log."""
    refused = store.refused(project.id)
    st.markdown(f"**Not admitted, banned or refused** · {len(refused)}")
    if refused.empty:
        st.caption("Nobody is kept out of this project.")
    else:
        st.dataframe(refused.assign(kind=refused["kind"].map(EVENT_WORDS)), hide_index=True, placeholder=MISSING,
                     column_order=["name", "kind", "detail", "at"], column_config={
                         "name": "Annotator", "kind": "Why",
                         "detail": st.column_config.TextColumn("Details", width="large"),
                         "at": st.column_config.DatetimeColumn("When (UTC)", format="YYYY-MM-DD HH:mm")})
        choices = list(refused.index)

        def label(k: int) -> str:
            r = refused.loc[k]
            action = {"exam_failed": "admit", "banned": "unban", "join_refused": "allow the address of"}[r["kind"]]
            return f"{action.capitalize()} {r['name']} ({EVENT_WORDS[r['kind']]})"

        with st.form("org_readmit", border=True):
            pick = st.selectbox("Let back in", choices, format_func=label, key="org_readmit_pick")
            reason = st.text_input("Reason (kept in the project's log)", key="org_readmit_reason", max_chars=500,
                                   placeholder="e.g. exam items 3 and 7 are debatable")
            go = st.form_submit_button("Let back in", type="primary")
        if go:
            r = refused.loc[pick]
            try:
                if r["kind"] == "join_refused":
                    store.allow_address(int(r["event_id"]), reason, actor="organizer")
                    done = f"The address of {render.md(r['name'])} is allowed again: they can join now."
                else:
                    store.readmit(int(r["annotator_id"]), reason, actor="organizer")
                    done = f"{render.md(r['name'])} can work again; the quality rules count from now on."
            except AnnotationError as err:
                st.error(f"Nothing changed: {render.md(err, None)}", icon=":material/error:")
            else:
                st.session_state["org_flash"] = ("success", done)
                st.rerun()
    log = store.log(project.id)
    with st.expander(f"Project log · {len(log)}", icon=":material/history:"):
        if log.empty:
            st.caption("Nothing logged yet: failed exams, bans, refused joins and what organizers did about them "
                       "appear here.")
        else:
            st.dataframe(log.assign(kind=log["kind"].map(EVENT_WORDS).fillna(log["kind"]),
                                    actor=log["actor"].replace("", "the project's rules")),
                         hide_index=True, placeholder=MISSING, column_config={
                             "at": st.column_config.DatetimeColumn("When (UTC)", format="YYYY-MM-DD HH:mm"),
                             "kind": "What", "name": "Annotator",
                             "detail": st.column_config.TextColumn("Details and reason", width="large"),
                             "actor": "By"})


def password_section(store: AnnotationStore, project: Project, people: pd.DataFrame) -> None:
    """A new password for an annotator who forgot theirs, or who joined before passwords
    were asked (their name can then be signed in to only from the address they joined
    from): shown once here, for the organizer to hand over; logged."""
    with st.expander("Set an annotator's password", icon=":material/key:"):
        st.caption("For an annotator who forgot their password, or who joined before passwords were asked and "
                   "signs in from another address now. The new password is shown once: hand it to them. Every tab "
                   "signed in under their name is signed out (someone else may have had the old password).")
        ids = [int(i) for i in people["id"]]
        names = dict(zip(ids, people["name"]))
        with st.form("org_set_password", border=False):
            st.selectbox("Annotator", ids, format_func=lambda i: names[i], key="org_pw_pick")
            # Set in the button's callback, which runs once per press even when Streamlit
            # merges the press with another rerun of the page (the button's value is then
            # False in the run it caused); the password waits in the session for that run.
            st.form_submit_button("Set a new password", on_click=_set_password, args=(store, names))
        if made := st.session_state.pop(_NEW_PASSWORD, None):
            who, secret, problem = made
            if problem:
                st.error(f"Nothing changed: {render.md(problem, None)}", icon=":material/error:")
            else:
                st.success(f"New password of {render.md(who)}:", icon=":material/key:")
                st.code(secret, language=None)


_NEW_PASSWORD = "org_new_password"


def _set_password(store: AnnotationStore, names: dict[int, str]) -> None:
    pick = st.session_state.get("org_pw_pick")
    if pick is None:
        return
    try:
        secret, problem = store.set_secret(int(pick), actor="organizer"), None
    except DetoxError as err:
        secret, problem = "", str(err)
    st.session_state[_NEW_PASSWORD] = (names.get(int(pick), ""), secret, problem)


def public_leaderboard_control(store: AnnotationStore, project: Project, complete: pd.DataFrame) -> None:
    """Whether this project's human scores are the public Leaderboard's human columns."""
    if not asks_all_tasks(project):
        st.caption("This project does not ask all three tasks: its pairs have no human J, so it cannot feed the "
                   "Leaderboard's human columns. Its labels appear on **Human vs automatic**.")
        return
    counts = complete.groupby("participant_name").size() if len(complete) else None
    few = [] if counts is None else [f"{render.md(name, None)} ({n})" for name, n in counts.items()
                                     if n < MIN_JUDGED_PER_SYSTEM]
    public = st.toggle(
        "Feed the public Leaderboard's human columns", value=project.settings.public_leaderboard,
        key=f"org_public_{project.id}",
        help=f"Off by default: a pilot never becomes the public human score. One project at a time: turning it on "
             f"here turns it off for the others. Systems with fewer than {MIN_JUDGED_PER_SYSTEM} judged pairs are not "
             "shown as human scores even then (their 95% interval is too wide to order systems).")
    if public != project.settings.public_leaderboard:
        store.set_public_leaderboard(project.id if public else None)
        st.rerun()
    where = ("Its human scores are the Leaderboard's human columns" if public
             else "The Leaderboard shows no human scores of this project")
    note = f"{where}; every project's complete pairs appear on **Human vs automatic**."
    if few:
        note += (f" Below the minimum of {MIN_JUDGED_PER_SYSTEM} judged pairs, not shown on the Leaderboard: "
                 + ", ".join(few) + ".")
    st.caption(note)
