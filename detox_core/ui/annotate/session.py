"""Annotate: signing in and out (the join form, a tab's kept token, Leave in every tab), the
annotator's languages, and the messages carried from one run to the next."""

from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st

from detox_core.annotation.instructions import LABELS, UI_LANGUAGES
from detox_core.names import name_key
from detox_core.annotation.store import MIN_SECRET_CHARS, AnnotationStore, Annotator, Project
from detox_core.errors import AnnotationError, StorageError, UnknownCodeError, WrongSecretError
from detox_core.deployment.addresses import UNKNOWN
from detox_core.ui.app import auth, render, tab_session
from detox_core.vocab import language_name


@dataclass(frozen=True)
class Annotating:
    """A signed-in annotator at work.

    Attributes:
        store: the annotation database.
        ann: the annotator.
        project: their project.
        ui: the instructions' language.
        lang: the language of the texts they judge ("" where the project's are unmarked).
    """

    store: AnnotationStore
    ann: Annotator
    project: Project
    ui: str
    lang: str


def flash(kind: str, message: str) -> None:
    st.session_state["ann_flash"] = (kind, message)


def show_flash() -> None:
    kind, message = st.session_state.pop("ann_flash", (None, None))
    if kind == "success":
        st.success(message, icon=":material/check_circle:")
    elif kind == "warning":
        st.warning(message, icon=":material/warning:")
    elif kind == "error":
        st.error(message, icon=":material/block:")


def notify(kind: str, message: str, page: int | None = None) -> None:
    """The outcome of a submit or skip, kept until the next one (or a change of task):
    drawn at the top of the next page, where the annotator is looking. A notice about one
    page (``page``, its assignment id: its answers restored) is drawn on that page only."""
    seq = st.session_state["ann_seq"] = st.session_state.get("ann_seq", 0) + 1
    st.session_state["ann_notice"] = {"kind": kind, "text": message, "seq": seq, "page": page}


def show_notice() -> None:
    """The last outcome as a Streamlit message (where no page is drawn to carry it)."""
    notice = st.session_state.get("ann_notice")
    if notice:
        show = {"success": st.success, "warning": st.warning}.get(notice["kind"], st.error)
        show(render.md(notice["text"], None),
             icon=":material/check_circle:" if notice["kind"] == "success" else ":material/warning:")


#: What a tab says when another tab of the browser left (signed out) as its annotator.
LEFT_ELSEWHERE = ("You left in another tab of this browser, so this tab is signed out too. Join again to go on: "
                  "your submitted pages are kept.")
#: What a tab says when its sign-in no longer holds.
SIGNED_OUT = ("You were signed out: you left in another tab, an organizer set a new password for you, or your "
              "sign-in expired. Join again to go on: your submitted pages are kept.")


def leave(store: AnnotationStore, tell_tabs: bool = True, why: str | None = None) -> None:
    """Sign out: the open pages go back to the pool at once (the answers on them were not
    submitted; they are not kept, drafts included), and, with ``tell_tabs``, every other
    tab of this browser signed in as this annotator signs out too. ``why`` is said on the
    join form."""
    if (ann_id := st.session_state.get("ann_id")) is not None:
        try:
            store.release_pages(int(ann_id))
        except Exception:  # noqa: BLE001 - leaving never fails; the pages expire anyway
            pass
    tab_session.revoke(auth.signin_tokens(), st.session_state.get("ann_token"))
    left = st.session_state.get("ann_who") if tell_tabs else None
    for key in [k for k in st.session_state if k.startswith(("ann_", "tr_", "ex_", "a_", "cur_"))]:
        del st.session_state[key]
    st.session_state["tab_forget"] = {"left": left}  # the tab's token goes too
    if why:
        st.session_state["tab_why"] = why


def unsubmitted(store: AnnotationStore, ann_id: int) -> int:
    """How many answers the annotator gave on their open pages and has not submitted."""
    try:
        drafts = store.open_drafts(ann_id)
    except StorageError:
        drafts = 0
    kept = st.session_state.get("ann_kept")  # a page the database did not take
    return max(drafts, sum(x is not None for x in kept["answers"]) if kept else 0)


def ask_leave() -> None:
    """Leave pressed: decided by :func:`leave_question` in the run, once the answers the
    page sent with the click are stored (callbacks run in the page's order, Leave first)."""
    st.session_state["ann_leave_ask"] = "new"


def leave_question(store: AnnotationStore, ann_id: int) -> None:
    """Leave pressed: at once without answers not submitted, else how many would be lost,
    Leave or Stay."""
    asked = st.session_state.get("ann_leave_ask")
    if not asked:
        return
    n = unsubmitted(store, ann_id)
    if not n and asked == "new":
        leave(store)
        st.rerun()
    if not n:  # the page was submitted meanwhile: nothing to ask about (the annotator went on)
        st.session_state.pop("ann_leave_ask", None)
        return
    st.session_state["ann_leave_ask"] = "asked"
    with st.container(border=True, key="ann_leave_box"):
        them = "it" if n == 1 else "them"
        st.warning(f"**{n} answer{'' if n == 1 else 's'} not submitted yet.** Leaving now loses {them}, and the page "
                   f"goes back to the others. Submit the page first to keep {them}.", icon=":material/warning:")
        c1, c2 = st.columns(2)
        c1.button("Stay and go on", type="primary", key="ann_leave_no", icon=":material/undo:",
                  on_click=lambda: st.session_state.pop("ann_leave_ask", None))
        c2.button(f"Leave and lose {them}", key="ann_leave_yes", on_click=leave, args=(store,),
                  icon=":material/logout:")


def restore(token: str) -> None:
    """A new session of a tab that holds an annotator's token (a reload, or another app
    process after this one stopped): that annotator, where they were."""
    found = tab_session.claimed(auth.signin_tokens(), token)
    if found is not None:  # checked against the annotator below, once the store has them
        st.session_state["ann_id"], st.session_state["ann_token"] = found, token


def join_section(store: AnnotationStore) -> None:
    """Nobody signed in in this tab: a kept token signs them back in, else the join form."""
    forget = st.session_state.pop("tab_forget", None)
    tab_session.tab_session("tab_restore", forget=forget is not None, left=(forget or {}).get("left"),
                            on_token=None if forget is not None else restore)
    if why := st.session_state.pop("tab_why", None):
        st.info(why, icon=":material/logout:")
    st.markdown("Join an annotation project with the **access code** its organizer gave you, your name and a "
                "password you choose now. Come back later with the same name, code and password to go on where "
                "you stopped: nobody else can answer under your name.")
    with st.form("ann_join"):
        code = st.text_input("Access code", key="ann_code", max_chars=100)
        name = st.text_input("Your name", key="ann_name", max_chars=200)
        secret = st.text_input("Your password", key="ann_secret", type="password", max_chars=200,
                               help=f"At least {MIN_SECRET_CHARS} characters. Chosen when you join for the first "
                                    "time; asked whenever you come back.")
        joined = st.form_submit_button("Join", type="primary")
    if joined:
        guard, client, key = auth.join_guard(), auth.client_id(), name_key(name)  # look-alikes are one name
        # Reserved before the password is checked, so simultaneous tries are counted together.
        # (An unknown client, a test harness or a script, adds names unthrottled: served, every client is known.)
        wait, what, attempt = guard.reserve(client, code, key,
                                            new_name=client != UNKNOWN and not store.knows_name(code, name))
        if attempt is None:
            st.error({"name": auth.retry_text(wait, "wrong passwords for this name", "this name")
                              + " Others at your connection can join meanwhile.",
                      "new names": f"Many new names joined from your connection or this project just now: try "
                                   f"again in {math.ceil(wait)} s."}.get(what,
                     f"Too many failed joins from your connection (wrong passwords or unknown access codes): try "
                     f"again in {math.ceil(wait)} s."), icon=":material/timer:")
            st.stop()
        try:
            known = client if client != UNKNOWN else None
            joined = store.join(code, name, secret, client=known)  # with the password just stored
            st.session_state["ann_id"] = joined.id
            st.session_state["ann_token"] = tab_session.issue(auth.signin_tokens(), joined)
        except AnnotationError as err:
            # Guessing is counted (a wrong password for a name, a code no project has); a typo
            # in a new name or a short password is said and costs nothing.
            guard.settle(attempt, "password" if isinstance(err, WrongSecretError) else
                         "code" if isinstance(err, UnknownCodeError) else "other")
            st.error(render.md(err, None), icon=":material/error:")
        except BaseException:
            guard.settle(attempt, "other")  # a storage error (said by the page) or a rerun
            raise
        else:
            guard.settle(attempt, "joined")
            st.rerun()


def signed_in(store: AnnotationStore, ann_id: int) -> tuple[Annotator, Project]:
    """The annotator of this tab and their project, with the header and Leave (signed out
    and run again where the annotator or the tab's token no longer holds)."""
    try:
        ann = store.annotator(ann_id)
        project = store.project(ann.project_id)
    except AnnotationError:
        leave(store, tell_tabs=False, why=SIGNED_OUT)
        st.rerun()
    if (token := st.session_state.get("ann_token")) and not tab_session.holds(auth.signin_tokens(), token, ann):
        leave(store, tell_tabs=False, why=SIGNED_OUT)  # left in another tab, expired, or not this annotator
        st.rerun()
    who = st.session_state["ann_who"] = tab_session.who(ann)
    c1, c2 = st.columns([4, 1], vertical_alignment="center")
    c1.caption(f"Project **{render.md(project.name)}** · signed in as **{render.md(ann.name)}**")
    c2.button("Leave", key="ann_leave", on_click=ask_leave, icon=":material/logout:",
              help="Sign out, in every tab of this browser (a reload, another tab or a reconnect keeps you signed "
                   "in until then).")
    leave_question(store, ann.id)
    if token := st.session_state.get("ann_token"):
        tab_session.tab_session("tab_keep", keep=token, keep_who=who,
                                on_left=lambda: leave(store, tell_tabs=False, why=LEFT_ELSEWHERE))
    return ann, project


def still_signed_in(a: Annotating) -> bool:
    """Whether this tab is still signed in as ``a``'s annotator (checked before a page
    message is stored: a tab signed out elsewhere stores nothing more)."""
    token = st.session_state.get("ann_token")
    return st.session_state.get("ann_id") == a.ann.id and (
        token is None or tab_session.holds(auth.signin_tokens(), token, a.ann))


def instructions_language(project: Project) -> str:
    """The instructions' language: the project's choice first, each annotator can switch."""
    return st.segmented_control("Instructions in", list(UI_LANGUAGES), format_func=UI_LANGUAGES.get, key="ann_ui",
                                default=project.settings.ui_language) or project.settings.ui_language


def text_language(store: AnnotationStore, ann: Annotator, project: Project, ui: str) -> str:
    """The language of the texts the annotator judges; one not chosen yet in a project of
    several is asked for first (the page stops there)."""
    languages = store.languages(project.id)
    if ann.lang is None and len(languages) > 1 and ann.status not in ("banned", "failed"):
        # One language per annotator: pages, control questions and the exam are in it.
        st.markdown("This project judges texts in several languages. Choose the one you read fluently: your "
                    "examples, exam and pages are in it.")
        with st.form("ann_language"):
            picked = st.selectbox("Language of the texts", languages,
                                  format_func=lambda c: f"{language_name(c)} ({c})", key="ann_lang_pick")
            chosen = st.form_submit_button("Judge texts in this language", type="primary")
        if chosen:
            try:
                store.choose_language(ann.id, picked)
            except AnnotationError as err:
                st.error(render.md(err, None), icon=":material/error:")
            else:
                st.rerun()
        st.stop()
    lang = ann.lang if ann.lang is not None else (languages[0] if len(languages) == 1 else "")
    if lang:
        st.caption(f"{LABELS[ui]['language']}: **{language_name(lang)}**")
    return lang
