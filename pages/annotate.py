"""Annotate: the annotator's side of an annotation project.

Join with a name and the project's access code, read the instructions, do the
training round, pass the exam, then answer pages of items with the keyboard.
"""

from __future__ import annotations

import math

import streamlit as st

from detox_core.annotation.store import MIN_SECRET_CHARS, Page
from detox_core.errors import AnnotationError, StorageError, WrongSecretError
from detox_core.annotation.instructions import BUILTIN_EXAMPLE_LANGUAGES, LABELS, UI_LANGUAGES, localized
from detox_core.annotation.names import name_key
from detox_core.annotation.tasks import Example
from detox_core.ui.app.auth import require_page
from detox_core.ui.app import render
from detox_core.annotation.submit import draft_answers, page_answers
from detox_core.ui.sections.annotate_page import annotate_page, restored_text
from detox_core.ui.app.annotation_store import annotation_store
from detox_core.ui.sections.annotation import item_html
from detox_core.server.addresses import UNKNOWN
from detox_core.ui.app.auth import client_id, login_throttle, session_tokens
from detox_core.ui.app import tab_session
from detox_core.ui.app.navigation import ensure_app_navigation
from detox_core.vocab import language_name

ensure_app_navigation()
st.title("Annotate")
require_page("annotate")
store = annotation_store()


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


def notify(kind: str, message: str) -> None:
    """The outcome of a submit or skip, kept until the next one (or a change of task):
    drawn at the top of the next page, where the annotator is looking."""
    seq = st.session_state["ann_seq"] = st.session_state.get("ann_seq", 0) + 1
    st.session_state["ann_notice"] = {"kind": kind, "text": message, "seq": seq}


def show_notice() -> None:
    """The last outcome as a Streamlit message (where no page is drawn to carry it)."""
    notice = st.session_state.get("ann_notice")
    if notice:
        show = {"success": st.success, "warning": st.warning}.get(notice["kind"], st.error)
        show(render.md(notice["text"], None),
             icon=":material/check_circle:" if notice["kind"] == "success" else ":material/warning:")


def leave() -> None:
    """Sign out: the open pages go back to the others at once (the answers on them were
    not submitted; they are not kept, drafts included)."""
    if (ann_id := st.session_state.get("ann_id")) is not None:
        try:
            store.release_pages(int(ann_id))
        except Exception:  # noqa: BLE001 - leaving never fails; the pages expire anyway
            pass
    tab_session.revoke(session_tokens(), st.session_state.get("ann_token"))
    for key in [k for k in st.session_state if k.startswith(("ann_", "tr_", "ex_", "a_", "cur_"))]:
        del st.session_state[key]
    st.session_state["tab_forget"] = True  # the tab's token goes too


def restore(token: str) -> None:
    """A new session of a tab that holds an annotator's token (a reload, or another app
    process after this one stopped): that annotator, where they were."""
    found = tab_session.claimed(session_tokens(), token)
    if found is not None:  # checked against the annotator below, once the store has them
        st.session_state["ann_id"], st.session_state["ann_token"] = found, token


# ----------------------------------------------------------------------------- join

ann_id = st.session_state.get("ann_id")
if ann_id is None:
    forget = st.session_state.pop("tab_forget", False)
    tab_session.tab_session("tab_restore", forget=forget, on_token=None if forget else restore)
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
        throttle, client = login_throttle(), client_id()
        # Throttled per address, and per name where a password did not match it.
        account = f"annotator:{code.strip()}:{name_key(name)}"  # look-alikes of a name are that name
        wait = throttle.wait_s(f"annotator:{client}", account)
        if wait > 0:
            st.error(f"Too many wrong tries: try again in {math.ceil(wait)} s.", icon=":material/timer:")
            st.stop()
        try:
            known = client if client != UNKNOWN else None
            joined = store.join(code, name, secret, client=known)  # with the password just stored
            st.session_state["ann_id"] = joined.id
            st.session_state["ann_token"] = tab_session.issue(session_tokens(), joined)
        except AnnotationError as err:
            throttle.failed(f"annotator:{client}", account if isinstance(err, WrongSecretError) else None)
            st.error(render.md(err, None), icon=":material/error:")
        else:
            throttle.succeeded(f"annotator:{client}", account)
            st.rerun()
    st.stop()

try:
    ann = store.annotator(ann_id)
    project = store.project(ann.project_id)
except AnnotationError:
    leave()
    st.rerun()
if (token := st.session_state.get("ann_token")) and not tab_session.holds(session_tokens(), token, ann):
    leave()  # signed out elsewhere (Leave in a copy of this tab), expired, or not this annotator
    st.rerun()
c1, c2 = st.columns([4, 1], vertical_alignment="center")
c1.caption(f"Project **{render.md(project.name)}** · signed in as **{render.md(ann.name)}**")
c2.button("Leave", key="ann_leave", on_click=leave, icon=":material/logout:",
          help="Sign out of this tab (a reload or a reconnect keeps you signed in until then).")
if token := st.session_state.get("ann_token"):
    tab_session.tab_session("tab_keep", keep=token)
# The instructions' language: the project's choice first, each annotator can switch.
ui = st.segmented_control("Instructions in", list(UI_LANGUAGES), format_func=UI_LANGUAGES.get, key="ann_ui",
                          default=project.settings.ui_language) or project.settings.ui_language
show_flash()
languages = store.languages(project.id)
if ann.lang is None and len(languages) > 1 and ann.status not in ("banned", "failed"):
    # One language per annotator: pages, control questions and the exam are in it.
    st.markdown("This project judges texts in several languages. Choose the one you read fluently: your "
                "examples, exam and pages are in it.")
    with st.form("ann_language"):
        picked = st.selectbox("Language of the texts", languages, format_func=lambda c: f"{language_name(c)} ({c})",
                              key="ann_lang_pick")
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


def examples_of(task: str, training: bool = False) -> list[Example]:
    """Worked examples of ``task`` for the annotator's language: the built-in (Russian)
    ones for Russian and monolingual projects, then the organizer's uploads."""
    sp = localized(task, ui)
    builtin = list(sp.training if training else sp.examples) if lang in BUILTIN_EXAMPLE_LANGUAGES else []
    return builtin + [ex for ex in store.examples(project.id, lang) if ex.task == task]


def instructions(tasks: tuple[str, ...]) -> None:
    tabs = st.tabs([localized(t, ui).title for t in tasks])
    for tab, task in zip(tabs, tasks):
        sp = localized(task, ui)
        with tab:
            st.markdown(f"**{sp.question}**")
            st.markdown(sp.instructions)
            shown = examples_of(task)
            st.markdown(f"{LABELS[ui]['examples']}:")
            if not shown:
                st.caption(LABELS[ui]["no_examples"])
            for ex in shown:
                with st.container(border=True):
                    st.html(item_html(None, sp, text=ex.text, input=ex.input, lang=ex.lang or lang, ui=ui))
                    # An uploaded explanation is the organizer's text: shown as text, never markup.
                    st.markdown(f"**{sp.answer_text(ex.label)}**: {render.md(ex.explanation, None)}")


if ann.status == "banned":
    st.error(f"**Your answers are no longer accepted.** {ann.ban_reason}. Your earlier answers stay with the "
             "organizer.", icon=":material/block:")
    st.stop()
if ann.status == "failed":
    st.error(f"**Not admitted.** Fewer than {project.settings.exam_pass:.0%} of your exam answers were right.",
             icon=":material/block:")
    # Neither an answer key nor the score: which items were missed would pass the exam for
    # the next name, and so would the score, tried again under other names with one answer
    # changed each time. The organizer sees the score. The instructions and their worked
    # examples say how to judge.
    st.markdown("Read the instructions and their examples again: they explain how each answer is chosen. If you "
                "think an exam item was debatable, tell the organizer: they can admit you.")
    instructions(project.tasks)
    st.stop()


# ----------------------------------------------------------------------------- training

if ann.status == "training":
    st.subheader("1 · Instructions")
    instructions(project.tasks)
    st.subheader("2 · Training")
    st.caption("Answer these as you would in the real task; you see the right answers and why when you check. The "
               "training does not count.")
    examples = [(task, j, ex) for task in project.tasks for j, ex in enumerate(examples_of(task, training=True))]
    if not examples:
        st.caption(f"No training items in {language_name(lang)} yet: go on to the exam.")
    with st.form("ann_training"):
        for task, j, ex in examples:
            sp = localized(task, ui)
            with st.container(border=True):
                st.html(item_html(None, sp, text=ex.text, input=ex.input, lang=ex.lang or lang, ui=ui))
                st.radio(sp.question, [v for v, _ in sp.options], format_func=sp.answer_text, index=None,
                         horizontal=True, key=f"tr_{task}_{j}")
        checked = st.form_submit_button("Check my answers")
    if checked:
        missing = [1 for task, j, _ in examples if st.session_state.get(f"tr_{task}_{j}") is None]
        if missing:
            st.warning(f"{len(missing)} training items have no answer yet.", icon=":material/warning:")
        else:
            st.session_state["ann_training_checked"] = True
    if st.session_state.get("ann_training_checked"):
        right = 0
        for task, j, ex in examples:
            sp = localized(task, ui)
            given = st.session_state.get(f"tr_{task}_{j}")
            if given == ex.label:
                right += 1
            else:
                st.markdown(f"- *{render.md(ex.text, None)}*: you answered "
                            f"**{sp.answer_text(given) if given is not None else '—'}**, "
                            f"the answer is **{sp.answer_text(ex.label)}**. {render.md(ex.explanation, None)}")
        st.info(f"{right} of {len(examples)} right.", icon=":material/school:")

        def done() -> None:
            store.finish_training(ann.id)

        st.button("Go to the exam", type="primary", key="ann_to_exam", on_click=done)
    st.stop()

# ----------------------------------------------------------------------------- exam

if ann.status == "exam":
    page = store.exam(ann.id)
    st.subheader("Exam")
    st.markdown(f"{len(page.items)} items with known answers. You are admitted at **{project.settings.exam_pass:.0%}** "
                "correct; there is one attempt.")
    with st.expander("Instructions", icon=":material/help:"):
        instructions(project.tasks)
    with st.form("ann_exam"):
        for k, item in enumerate(page.items):
            sp = localized(item.task, ui)
            with st.container(border=True):
                st.markdown(f"**{k + 1}.** {sp.question}")
                st.html(item_html(item, sp, ui=ui))
                st.radio(sp.question, [v for v, _ in sp.options], format_func=sp.answer_text, index=None,
                         horizontal=True, key=f"ex_{item.id}", label_visibility="collapsed")
        sent = st.form_submit_button("Submit the exam", type="primary")
    if sent:
        answers = {item.id: st.session_state.get(f"ex_{item.id}") for item in page.items}
        missing = sum(v is None for v in answers.values())
        if missing:
            st.warning(f"{missing} exam items have no answer yet.", icon=":material/warning:")
        else:
            result = store.submit_exam(ann.id, answers)
            st.session_state["ann_exam_result"] = result
            if result.passed:
                flash("success", "Admitted: you passed the exam.")  # no score: see the failed case above
            st.rerun()
    st.stop()

# ----------------------------------------------------------------------------- work pages

done_so_far = store.annotator_progress(ann.id)
st.caption(f"So far: {done_so_far['answers']:,} answers on {done_so_far['submitted']:,} "
           f"page{'' if done_so_far['submitted'] == 1 else 's'}"
           + (f" · {done_so_far['skipped']} skipped (at {project.settings.max_skipped_pages} your work ends)"
              if done_so_far["skipped"] else ""))
tasks = list(project.tasks)
# A task is always chosen (clicking the chosen one again does not clear it), and it stays
# chosen across pages: the page's keys never reach this control (see annotate_page).
task = st.segmented_control("Task", tasks, format_func=lambda t: localized(t, ui).title, key="ann_task",
                            default=tasks[0], required=True, bind="query-params",  # a reload keeps it
                            on_change=lambda: st.session_state.pop("ann_notice", None)) or tasks[0]
sp = localized(task, ui)
try:
    page = store.next_page(ann.id, task)
except AnnotationError as err:
    show_notice()
    st.error(render.md(err, None), icon=":material/block:")
    st.stop()
if page is None:
    show_notice()
    st.success(f"No {sp.title.lower()} items are left for you. Thank you!", icon=":material/celebration:")
    st.stop()


#: What the annotator reads when the database does not answer (nothing about where it is).
NOT_STORED = ("Not saved: the annotation database cannot be reached right now. Your answers are still on the "
              "page: submit it again in a minute.")


def submit(p: Page, answers: dict[int, float]) -> None:
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


def skip(p: Page) -> None:
    try:
        result = store.skip_page(ann.id, p.assignment_id)
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


with st.expander(f"Instructions: {sp.title.lower()}", icon=":material/help:"):
    instructions((task,))

def on_sent(p: Page, key: str) -> None:
    """The browser sent page ``p`` (submit or skip): stored before the next run draws
    anything, against the page the annotator answered, whichever page would be open by
    then (another tab, an expired page); the outcome is the next page's notice."""
    sent = (st.session_state.get(key) or {}).get("sent")
    if sent is None:
        return
    try:
        action, answers = page_answers(p, sent)
    except AnnotationError as err:
        notify("error", f"Not saved: {err}.")
        return
    if action == "skip":
        skip(p)
    else:
        submit(p, answers)


def on_draft(p: Page, key: str) -> None:
    """The answers given so far on page ``p``: kept as its drafts (never as answers), so
    that a reload, a new tab or another app process draws the page as it was left."""
    draft = (st.session_state.get(key) or {}).get("draft")
    if draft is None:
        return
    try:
        store.save_drafts(ann.id, p.assignment_id, draft_answers(p, draft))
    except (AnnotationError, StorageError):
        # Not kept (the page expired, the database is away): the answers are still on the
        # page in the browser, and the submit carries them; it says what went wrong.
        pass


def drafts_of(p: Page) -> list[float | None]:
    """The kept drafts of page ``p`` by position (None where none)."""
    try:
        drafts = store.page_drafts(ann.id, p.assignment_id)
    except StorageError:
        drafts = {}
    return [drafts.get(item.id) for item in p.items]


# The first time this session draws the page (a reload, a new tab, another app process),
# the answers given on it before are drawn as answered, and the page says so.
drawn = st.session_state.setdefault("ann_pages_drawn", [])
restored = None
if page.assignment_id not in drawn:
    drawn.append(page.assignment_id)
    restored = drafts_of(page)
    if n_restored := sum(a is not None for a in restored):
        notify("success", restored_text(n_restored, ui))

# The whole page is answered in the browser (keys register at once) and arrives in one
# message on submit or skip; it is checked, then stored in one transaction. Each outcome
# draws the page afresh (the notice's number is in the key). The answers given so far
# reach the server as drafts on the way.
notice = st.session_state.get("ann_notice")
page_key = f"ann_page_{page.assignment_id}_{ui}_{notice['seq'] if notice else 0}"
base = st.session_state.get("ann_draft_base")
if base is None or base["key"] != page_key:
    # The page is drawn anew (another task and back, another language): with its drafts
    # as of now. Runs for a draft draw it with the same data, so the browser keeps it.
    base = st.session_state["ann_draft_base"] = {
        "key": page_key, "answers": restored if restored is not None else drafts_of(page)}
kept = st.session_state.get("ann_kept")
annotate_page(page, sp, key=page_key, ui=ui, notice=notice, on_sent=lambda: on_sent(page, page_key),
              answers=kept["answers"] if kept and kept["page"] == page.assignment_id else base["answers"],
              on_draft=lambda: on_draft(page, page_key))
st.caption("Some items have known answers: careless answers, pages answered too fast and many skipped pages "
           "end your work.")
