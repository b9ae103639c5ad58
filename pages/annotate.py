"""Annotate: the annotator's side of an annotation project.

Join with a name and the project's access code, read the instructions, do the
training round, pass the exam, then answer pages of items with the keyboard.
"""

from __future__ import annotations

import streamlit as st

from detox_core.annotation.store import AnnotationError, Page
from detox_core.annotation.tasks import spec
from detox_core.ui import render
from detox_core.ui.annotation import annotation_store, item_html
from detox_core.ui.navigation import ensure_app_navigation

ensure_app_navigation()
st.title("Annotate")
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


def leave() -> None:
    for key in [k for k in st.session_state if k.startswith(("ann_", "tr_", "ex_", "a_", "cur_"))]:
        del st.session_state[key]


# ----------------------------------------------------------------------------- join

ann_id = st.session_state.get("ann_id")
if ann_id is None:
    st.markdown("Join an annotation project with the **access code** its organizer gave you. Come back later with "
                "the same name and code to go on where you stopped.")
    with st.form("ann_join"):
        code = st.text_input("Access code", key="ann_code")
        name = st.text_input("Your name", key="ann_name", max_chars=200)
        joined = st.form_submit_button("Join", type="primary")
    if joined:
        try:
            st.session_state["ann_id"] = store.join(code, name).id
            st.rerun()
        except AnnotationError as err:
            st.error(render.md(err, None), icon=":material/error:")
    st.stop()

try:
    ann = store.annotator(ann_id)
    project = store.project(ann.project_id)
except AnnotationError:
    leave()
    st.rerun()
c1, c2 = st.columns([4, 1], vertical_alignment="center")
c1.caption(f"Project **{render.md(project.name)}** · signed in as **{render.md(ann.name)}**")
c2.button("Leave", key="ann_leave", on_click=leave, icon=":material/logout:")
show_flash()

if ann.status == "banned":
    st.error(f"**Your answers are no longer accepted.** {ann.ban_reason}. Your earlier answers stay with the "
             "organizer.", icon=":material/block:")
    st.stop()
if ann.status == "failed":
    st.error(f"**Not admitted.** Your exam score was {ann.exam_score:.0%}; the pass mark of this project is "
             f"{project.settings.exam_pass:.0%}.", icon=":material/block:")
    result = st.session_state.get("ann_exam_result")
    if result and result.mistakes:
        st.markdown("Your mistakes:")
        for m in result.mistakes:
            with st.container(border=True):
                st.html(item_html(None, spec(m["task"]), text=m["text"], input=m["input"]))
                st.markdown(f"You answered **{m['answer']}**; the answer is **{m['expected']}**. {m['explanation']}")
    st.stop()


def instructions(tasks: tuple[str, ...]) -> None:
    tabs = st.tabs([spec(t).title for t in tasks])
    for tab, task in zip(tabs, tasks):
        sp = spec(task)
        with tab:
            st.markdown(f"**{sp.question}**")
            st.markdown(sp.instructions)
            st.markdown("Examples:")
            for ex in sp.examples:
                with st.container(border=True):
                    st.html(item_html(None, sp, text=ex.text, input=ex.input))
                    st.markdown(f"**{sp.answer_text(ex.label)}**: {ex.explanation}")


# ----------------------------------------------------------------------------- training

if ann.status == "training":
    st.subheader("1 · Instructions")
    instructions(project.tasks)
    st.subheader("2 · Training")
    st.caption("Answer these as you would in the real task; you see the right answers and why when you check. The "
               "training does not count.")
    examples = [(task, j, ex) for task in project.tasks for j, ex in enumerate(spec(task).training)]
    with st.form("ann_training"):
        for task, j, ex in examples:
            sp = spec(task)
            with st.container(border=True):
                st.html(item_html(None, sp, text=ex.text, input=ex.input))
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
            sp = spec(task)
            given = st.session_state.get(f"tr_{task}_{j}")
            if given == ex.label:
                right += 1
            else:
                st.markdown(f"- *{ex.text}*: you answered **{sp.answer_text(given) if given is not None else '—'}**, "
                            f"the answer is **{sp.answer_text(ex.label)}**. {ex.explanation}")
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
            sp = spec(item.task)
            with st.container(border=True):
                st.markdown(f"**{k + 1}.** {sp.question}")
                st.html(item_html(item, sp))
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
                flash("success", f"Admitted: {result.correct} of {result.total} right ({result.score:.0%}).")
            st.rerun()
    st.stop()

# ----------------------------------------------------------------------------- work pages

done_so_far = store.annotator_progress(ann.id)
st.caption(f"So far: {done_so_far['answers']:,} answers on {done_so_far['submitted']:,} "
           f"page{'' if done_so_far['submitted'] == 1 else 's'}"
           + (f" · {done_so_far['skipped']} skipped (at {project.settings.max_skipped_pages} your work ends)"
              if done_so_far["skipped"] else ""))
tasks = list(project.tasks)
task = st.segmented_control("Task", tasks, format_func=lambda t: spec(t).title, key="ann_task",
                            default=tasks[0]) or tasks[0]
sp = spec(task)
try:
    page = store.next_page(ann.id, task)
except AnnotationError as err:
    st.error(render.md(err, None), icon=":material/block:")
    st.stop()
if page is None:
    st.success(f"No {sp.title.lower()} items are left for you. Thank you!", icon=":material/celebration:")
    st.stop()

# Widget keys name page positions, never item ids: keys show in the page's HTML, and ids
# would tell control items (made after the real ones) apart.
answer_keys = {item.id: f"a_{page.assignment_id}_{k}" for k, item in enumerate(page.items)}
cursor_key = f"cur_{page.assignment_id}"


def cursor(p: Page) -> int:
    return min(st.session_state.get(cursor_key, 0), len(p.items) - 1)


def next_unanswered(p: Page, after: int) -> int:
    n = len(p.items)
    for step in range(1, n + 1):
        k = (after + step) % n
        if st.session_state.get(answer_keys[p.items[k].id]) is None:
            return k
    return min(after + 1, n - 1)


def answer_current(p: Page, value: float) -> None:
    k = cursor(p)
    st.session_state[answer_keys[p.items[k].id]] = value
    st.session_state[cursor_key] = next_unanswered(p, k)


def answered_by_mouse(p: Page, k: int) -> None:
    st.session_state[cursor_key] = next_unanswered(p, k)


def move(p: Page, step: int) -> None:
    st.session_state[cursor_key] = max(0, min(cursor(p) + step, len(p.items) - 1))


def submit(p: Page) -> None:
    answers = {i.id: st.session_state.get(answer_keys[i.id]) for i in p.items}
    missing = [k + 1 for k, i in enumerate(p.items) if answers[i.id] is None]
    if missing:
        flash("warning", f"Items {', '.join(map(str, missing))} have no answer yet.")
        st.session_state[cursor_key] = missing[0] - 1
        return
    try:
        result = store.submit_page(ann.id, p.assignment_id, answers)
    except AnnotationError as err:
        flash("error", render.md(err, None))
        return
    if result.banned:
        flash("error", f"Page stored, but your answers are no longer accepted: {result.reason}.")
    else:
        flash("success", f"Page saved: {result.accepted} answers in {result.seconds:.0f} s.")


def skip(p: Page) -> None:
    try:
        result = store.skip_page(ann.id, p.assignment_id)
    except AnnotationError as err:
        flash("error", render.md(err, None))
        return
    flash("error" if result.banned else "warning",
          f"Page skipped{': ' + result.reason if result.banned else ''}.")


with st.expander(f"Instructions: {sp.title.lower()}", icon=":material/help:"):
    instructions((task,))

cur = cursor(page)
done = sum(st.session_state.get(k) is not None for k in answer_keys.values())
st.markdown(f"**{sp.question}** · item **{cur + 1}** of {len(page.items)} · {done} answered")
with st.container(horizontal=True, gap="small"):
    for key, (value, label) in zip(sp.keys, sp.options):
        st.button(label, key=f"kb_{key}", shortcut=key, on_click=answer_current, args=(page, value),
                  help=f"Answer item {cur + 1} and move on")
    st.button("Previous", key="kb_prev", shortcut="Up", on_click=move, args=(page, -1))
    st.button("Next", key="kb_next", shortcut="Down", on_click=move, args=(page, 1))
    st.button("Submit page", key="kb_submit", shortcut="Enter", type="primary", on_click=submit, args=(page,))
    st.button("Skip page", key="kb_skip", shortcut="S", on_click=skip, args=(page,))

# The marked item stands out (containers with a key get the CSS class st-key-<key>).
st.html("<style>.st-key-ann_current{background:#eef6f1;border-color:#2e7d5b !important;"
        "box-shadow:inset 4px 0 0 #2e7d5b}</style>")
for k, item in enumerate(page.items):
    with st.container(border=True, key="ann_current" if k == cur else f"ann_item_{k}"):
        left, mid, right = st.columns([0.4, 6, 3], vertical_alignment="center")
        left.markdown(f"**{k + 1}**")
        mid.html(item_html(item, sp))
        right.segmented_control(sp.question, [v for v, _ in sp.options], format_func=sp.answer_text,
                                key=answer_keys[item.id], label_visibility="collapsed",
                                on_change=answered_by_mouse, args=(page, k))
st.caption("Keys: " + ", ".join(f"**{key}** {label}" for key, (_, label) in zip(sp.keys, sp.options))
           + " (answers the marked item) · **↑/↓** move · **Enter** submit the page · **S** skip it. Some items "
           "have known answers: careless answers, pages answered too fast and many skipped pages end your work.")
