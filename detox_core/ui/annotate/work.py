"""Annotate: the work pages. The annotator's progress, the task, and the page of items
answered with the keyboard: submitted or skipped in one message, its answers so far kept
as drafts on the way."""

from __future__ import annotations

import streamlit as st

from detox_core.annotation.annotator_view import drafts_of
from detox_core.annotation.instructions import localized
from detox_core.annotation.store import Page
from detox_core.annotation.submit import draft_answers, page_answers
from detox_core.annotation.tasks import TaskSpec
from detox_core.errors import AnnotationError, StorageError
from detox_core.ui.app import render
from detox_core.ui.annotate.page import annotate_page, restored_text
from detox_core.ui.annotate.session import Annotating, flash, notify, show_notice, still_signed_in

#: What the annotator reads when the database does not answer (nothing about where it is).
NOT_STORED = ("Not saved: the annotation database cannot be reached right now. Your answers are still on the "
              "page: submit it again in a minute.")


def progress_caption(a: Annotating) -> None:
    done_so_far = a.store.annotator_progress(a.ann.id)
    st.caption(f"So far: {done_so_far['answers']:,} answers on {done_so_far['submitted']:,} "
               f"page{'' if done_so_far['submitted'] == 1 else 's'}"
               + (f" · {done_so_far['skipped']} skipped (at {a.project.settings.max_skipped_pages} your work ends)"
                  if done_so_far["skipped"] else ""))


def task_picker(a: Annotating) -> tuple[str, TaskSpec]:
    """The task the pages are of, with its spec in the instructions' language."""
    tasks = list(a.project.tasks)
    # A task is always chosen (clicking the chosen one again does not clear it), and it stays
    # chosen across pages: the page's keys never reach this control (see annotate_page).
    task = st.segmented_control("Task", tasks, format_func=lambda t: localized(t, a.ui).title, key="ann_task",
                                default=tasks[0], required=True, bind="query-params",  # a reload keeps it
                                on_change=lambda: st.session_state.pop("ann_notice", None)) or tasks[0]
    return task, localized(task, a.ui)


def next_page(a: Annotating, task: str, sp: TaskSpec) -> Page:
    """The annotator's open page of ``task``; where there is none, why (the page stops)."""
    try:
        page = a.store.next_page(a.ann.id, task)
    except AnnotationError as err:
        show_notice()
        st.error(render.md(err, None), icon=":material/block:")
        st.stop()
    if page is None:
        show_notice()
        st.success(f"No {sp.title.lower()} items are left for you. Thank you!", icon=":material/celebration:")
        st.stop()
    return page


def submit(a: Annotating, p: Page, answers: dict[int, float]) -> None:
    store, ann = a.store, a.ann
    try:
        result = store.submit_page(ann.id, p.assignment_id, answers)
    except AnnotationError as err:
        notify("error", f"Not saved: {err}.")
        return
    except StorageError:
        # The page comes back with the annotator's answers on it (logged for the organizers).
        st.session_state["ann_kept"] = {"page": p.assignment_id, "answers": [answers.get(i.id) for i in p.items]}
        notify("error", NOT_STORED)
        return
    st.session_state.pop("ann_kept", None)
    pages = store.annotator_progress(ann.id)["submitted"]
    if result.banned:
        flash("error", f"Page stored, but your answers are no longer accepted: {result.reason}.")
    else:
        notify("success", f"Page {pages} saved: {result.accepted} answers in {result.seconds:.0f} s.")


def skip(a: Annotating, p: Page) -> None:
    try:
        result = a.store.skip_page(a.ann.id, p.assignment_id)
    except AnnotationError as err:
        notify("error", f"Not skipped: {err}.")
        return
    except StorageError:
        notify("error", "Not skipped: the annotation database cannot be reached right now. Try again in a minute.")
        return
    if result.banned:
        flash("error", f"Page skipped: {result.reason}.")
    else:
        notify("warning", "Page skipped: its items go to other annotators.")


def on_sent(a: Annotating, p: Page, key: str) -> None:
    """The browser sent page ``p`` (submit or skip): stored before the next run draws
    anything, against the page the annotator answered, whichever page would be open by
    then (another tab, an expired page); the outcome is the next page's notice."""
    sent = (st.session_state.get(key) or {}).get("sent")
    if sent is None or not still_signed_in(a):  # signed out meanwhile (Leave in another tab): nothing stored
        return
    try:
        action, answers = page_answers(p, sent)
    except AnnotationError as err:
        notify("error", f"Not saved: {err}.")
        return
    if action == "skip":
        skip(a, p)
    else:
        submit(a, p, answers)


def on_draft(a: Annotating, p: Page, key: str) -> None:
    """The answers given so far on page ``p``: kept as its drafts (never as answers), so
    that a reload, a new tab or another app process draws the page as it was left."""
    draft = (st.session_state.get(key) or {}).get("draft")
    if draft is None or not still_signed_in(a):
        return
    try:
        a.store.save_drafts(a.ann.id, p.assignment_id, draft_answers(p, draft))
    except AnnotationError as err:
        # The page is no longer open (submitted in another tab, expired): this run draws the
        # next one in its place, so the tab says why rather than swapping pages silently.
        notify("error", f"Not saved: {err}.")
    except StorageError:
        # Not kept (the database is away): the answers are still on the page in the browser,
        # and the submit carries them; it says what went wrong.
        pass


def work_page(a: Annotating, page: Page, sp: TaskSpec) -> None:
    """The page of items, with its kept drafts or the answers the database did not take."""
    ui = a.ui
    # The first time this session draws the page (a reload, a new tab, another app process),
    # the answers given on it before are drawn as answered, and the page says so.
    drawn = st.session_state.setdefault("ann_pages_drawn", [])
    restored = None
    if page.assignment_id not in drawn:
        drawn.append(page.assignment_id)
        restored = drafts_of(a.store, a.ann.id, page)
        if n_restored := sum(x is not None for x in restored):
            notify("success", restored_text(n_restored, ui), page=page.assignment_id)

    # The whole page is answered in the browser (keys register at once) and arrives in one
    # message on submit or skip; it is checked, then stored in one transaction. Each outcome
    # draws the page afresh (the notice's number is in the key). The answers given so far
    # reach the server as drafts on the way.
    notice = st.session_state.get("ann_notice")
    if notice and notice.get("page") not in (None, page.assignment_id):
        # Restored answers of another page (this tab's page was submitted elsewhere since):
        # not a word about this one.
        notice = st.session_state["ann_notice"] = None
    page_key = f"ann_page_{page.assignment_id}_{ui}_{notice['seq'] if notice else 0}"
    base = st.session_state.get("ann_draft_base")
    if base is None or base["key"] != page_key:
        # The page is drawn anew (another task and back, another language): with its drafts
        # as of now. Runs for a draft draw it with the same data, so the browser keeps it.
        base = st.session_state["ann_draft_base"] = {
            "key": page_key, "answers": restored if restored is not None else drafts_of(a.store, a.ann.id, page)}
    kept = st.session_state.get("ann_kept")
    annotate_page(page, sp, key=page_key, ui=ui, notice=notice, on_sent=lambda: on_sent(a, page, page_key),
                  answers=kept["answers"] if kept and kept["page"] == page.assignment_id else base["answers"],
                  on_draft=lambda: on_draft(a, page, page_key))
