"""Annotate: the instructions with their worked examples, and the steps before the work:
not admitted or banned, the training round and the exam."""

from __future__ import annotations

import streamlit as st

from detox_core.annotation.annotator_view import examples_of
from detox_core.annotation.instructions import LABELS, localized
from detox_core.ui.app import render
from detox_core.ui.annotate.session import Annotating, flash
from detox_core.ui.widgets.annotation import item_html
from detox_core.vocab import language_name


def instructions(a: Annotating, tasks: tuple[str, ...]) -> None:
    """One tab per task: its question, instructions and worked examples."""
    ui, lang = a.ui, a.lang
    tabs = st.tabs([localized(t, ui).title for t in tasks])
    for tab, task in zip(tabs, tasks):
        sp = localized(task, ui)
        with tab:
            st.markdown(f"**{sp.question}**")
            st.markdown(sp.instructions)
            shown = examples_of(a.store, a.project.id, task, ui, lang)
            st.markdown(f"{LABELS[ui]['examples']}:")
            if not shown:
                st.caption(LABELS[ui]["no_examples"])
            for ex in shown:
                with st.container(border=True):
                    st.html(item_html(None, sp, text=ex.text, input=ex.input, lang=ex.lang or lang, ui=ui))
                    # An uploaded explanation is the organizer's text: shown as text, never markup.
                    st.markdown(f"**{sp.answer_text(ex.label)}**: {render.md(ex.explanation, None)}")


def kept_out(a: Annotating) -> None:
    """A banned or not admitted annotator: why (and, when not admitted, the instructions)."""
    ann, project = a.ann, a.project
    if ann.status == "banned":
        st.error(f"**Your answers are no longer accepted.** {ann.ban_reason}. Your earlier answers stay with the "
                 "organizer.", icon=":material/block:")
        return
    st.error(f"**Not admitted.** Fewer than {project.settings.exam_pass:.0%} of your exam answers were right.",
             icon=":material/block:")
    # Neither an answer key nor the score: which items were missed would pass the exam for
    # the next name, and so would the score, tried again under other names with one answer
    # changed each time. The organizer sees the score. The instructions and their worked
    # examples say how to judge.
    st.markdown("Read the instructions and their examples again: they explain how each answer is chosen. If you "
                "think an exam item was debatable, tell the organizer: they can admit you.")
    instructions(a, project.tasks)


def training_section(a: Annotating) -> None:
    """The instructions, then training items answered with the right answers shown."""
    store, ann, project, ui, lang = a.store, a.ann, a.project, a.ui, a.lang
    st.subheader("1 · Instructions")
    instructions(a, project.tasks)
    examples = [(task, j, ex) for task in project.tasks
                for j, ex in enumerate(examples_of(store, project.id, task, ui, lang, training=True))]

    def done() -> None:
        store.finish_training(ann.id)

    if not examples:
        # Nothing to answer: no round to check, no score of nothing; the instructions, then the exam.
        st.subheader("2 · Exam")
        where = f" in {language_name(lang)}" if lang else ""
        st.info(f"There is no training round{where} in this project: read the instructions above, then go on "
                "to the exam.", icon=":material/school:")
        st.button("Go to the exam", type="primary", key="ann_to_exam", on_click=done)
        return
    st.subheader("2 · Training")
    st.caption("Answer these as you would in the real task; you see the right answers and why when you check. The "
               "training does not count.")
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
        st.button("Go to the exam", type="primary", key="ann_to_exam", on_click=done)


def exam_section(a: Annotating) -> None:
    """The exam: items with known answers, one attempt."""
    store, ann, project, ui = a.store, a.ann, a.project, a.ui
    page = store.exam(ann.id)
    st.subheader("Exam")
    st.markdown(f"{len(page.items)} items with known answers. You are admitted at **{project.settings.exam_pass:.0%}** "
                "correct; there is one attempt.")
    with st.expander("Instructions", icon=":material/help:"):
        instructions(a, project.tasks)
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
                flash("success", "Admitted: you passed the exam.")  # no score: see the failed case in kept_out
            st.rerun()
