"""Sections of the annotation pages: item cards and the organizer's settings form (the
shared store lives in :mod:`detox_core.ui.app.annotation_store`, the organizer's sign-in
in :mod:`detox_core.ui.app.auth`)."""

from __future__ import annotations

import html
from dataclasses import asdict, fields

import streamlit as st

from detox_core.annotation.store import ItemView, Settings
from detox_core.annotation.aggregation import aggregator_names, aggregator_title
from detox_core.annotation.quality import control_advice, exam_advice
from detox_core.annotation.instructions import DEFAULT_UI, LABELS, UI_LANGUAGES
from detox_core.annotation.tasks import TaskSpec
from detox_core.errors import AnnotationError
from detox_core.ui.app import render


def _block(label: str, text: str, strong: bool = False, lang: str = "") -> str:
    weight = "600" if strong else "400"
    # dir="auto" and unicode-bidi: plaintext: an Arabic or Hebrew text runs right to left.
    lang_attr = f" lang='{html.escape(lang, quote=True)}'" if lang else ""
    return (f"<div style='margin:.15rem 0'><span style='color:#5b6b63;font-size:.8rem'>{html.escape(label)}</span>"
            f"<div dir='auto'{lang_attr} style='font-size:1.05rem;font-weight:{weight};white-space:pre-wrap;"
            f"unicode-bidi:plaintext;text-align:start'>{html.escape(text)}</div></div>")


def item_parts(item: ItemView | None, spec: TaskSpec, *, text: str = "", input: str = "", lang: str = "",
               ui: str = DEFAULT_UI) -> list[dict]:
    """The texts of an item as the annotator sees them, each ``{"label", "text", "strong",
    "lang"}``: the original and the rewrite for the content task, the text otherwise;
    labels in UI language ``ui``."""
    text = item.text if item else text
    input = item.input if item else input
    lang = item.lang if item else lang
    words = LABELS[ui]
    if spec.name == "content":
        return [{"label": words["original"], "text": input, "strong": False, "lang": lang},
                {"label": words["rewrite"], "text": text, "strong": True, "lang": lang}]
    return [{"label": words["text"], "text": text, "strong": True, "lang": lang}]


def item_html(item: ItemView | None, spec: TaskSpec, *, text: str = "", input: str = "", lang: str = "",
              ui: str = DEFAULT_UI) -> str:
    """:func:`item_parts` as HTML (all text escaped; right-to-left languages run right to left)."""
    return "".join(_block(p["label"], p["text"], p["strong"], p["lang"])
                   for p in item_parts(item, spec, text=text, input=input, lang=lang, ui=ui))


# ----------------------------------------------------------------------------- the organizer's forms

SETTING_HELP = {
    "overlap": ("Annotators per item", "How many annotators judge each item."),
    "page_size": ("Items per page", "Real and control items on one page."),
    "controls_per_page": ("Control items per page", "Mixed in at random positions."),
    "ban_control_accuracy": ("Ban under control accuracy", "Share of control items answered right."),
    "min_control_answers": ("…after control answers", "Control answers before the accuracy rule applies."),
    "ban_confidence": ("…with confidence", "A ban needs evidence: the annotator's accuracy must be under the threshold "
                       "even at the upper end of its confidence interval at this level (95%: 4 of 6 right bans no "
                       "one; 1 of 6 does). See the line under these settings."),
    "min_page_seconds": ("Ban a page faster than (s)", "A whole page answered in less time bans."),
    "max_skipped_pages": ("Ban at skipped pages", "Skipped pages that ban."),
    "exam_pass": ("Exam pass mark", "Share of exam items right to be admitted. Some exam items are debatable: "
                  "the default, 10 items at 70%, allows 3 mistakes, so a careful annotator (right on 90% of items) "
                  "passes with probability 99% (binomial: P(at least 7 of 10 right)) and random yes/no answers "
                  "with 17%; the control items of the work pages stop the rest. 4 items at 80% allow no mistake."),
    "exam_size": ("Exam items per annotator", "Drawn from the exam pool for each annotator (0 = the whole pool). "
                  "Fewer items make one debatable item decide; see the line under these settings."),
    "max_refused_per_address": ("Refused attempts per address", "0 = no limit (the default, as on crowd platforms: "
                                "people share addresses in a lab, a household or a mobile network). N: a new name "
                                "is refused from an address from which N attempts failed the exam or were banned; "
                                "refused joins are listed under Progress, where you can allow the address again."),
    "page_timeout_minutes": ("Page expires after (min)", "An open page's items go back to others after this (and "
                             "before it, when no other item is left: a page held open never stalls the others)."),
    "max_open_pages_per_address": ("Open pages per address", "Pages all the people who joined from one address may "
                                   "hold open at once (0 = no limit)."),
    "aggregate_min_accuracy": ("Aggregate annotators with control accuracy ≥", "Others are left out of the labels."),
    "review_confidence": ("Expert review under confidence", "Labels less certain than this go to the review queue."),
}

EXAMPLES_HELP = ("TSV with the columns lang, task, text, answer, explanation (and input, the original, for the content "
                 "task): shown with the instructions of that language. Answers: yes/no, or fluent / partially "
                 "fluent / not fluent.")


def settings_form(prefix: str, current: Settings, exam_pool: int | None = None) -> Settings:
    """The organizer's settings; under them, what the exam means for annotators (the
    items each gets: ``exam_size``, at most the ``exam_pool`` when it is known)."""
    values = {}
    cols = st.columns(4)
    for k, f in enumerate(fields(Settings)):
        if f.name not in SETTING_HELP:
            continue
        label, help_ = SETTING_HELP[f.name]
        col = cols[k % 4]
        value = getattr(current, f.name)
        if f.name == "ban_confidence":
            values[f.name] = col.slider(label, 0.5, 0.99, float(value), 0.01, help=help_, key=f"{prefix}_{f.name}")
        elif isinstance(value, float) and f.name in ("ban_control_accuracy", "exam_pass", "aggregate_min_accuracy",
                                                     "review_confidence"):
            values[f.name] = col.slider(label, 0.0, 1.0, float(value), 0.05, help=help_, key=f"{prefix}_{f.name}")
        elif isinstance(value, float):
            values[f.name] = col.number_input(label, 0.0, 10_000.0, float(value), help=help_, key=f"{prefix}_{f.name}")
        else:
            values[f.name] = int(col.number_input(label, 0, 1000, int(value), help=help_, key=f"{prefix}_{f.name}"))
    m1, m2 = st.columns(2)
    values["method"] = m1.radio("Aggregation", aggregator_names(), index=aggregator_names().index(current.method), horizontal=True,
                                format_func=aggregator_title,
                                key=f"{prefix}_method")
    values["ui_language"] = m1.radio("Instructions in", list(UI_LANGUAGES), horizontal=True, format_func=UI_LANGUAGES.get,
                                     index=list(UI_LANGUAGES).index(current.ui_language), key=f"{prefix}_ui",
                                     help="The language annotators read the instructions, questions and answers in "
                                          "first; each of them can switch.")
    values["training"] = m2.toggle("Training round before the exam", value=current.training, key=f"{prefix}_training")
    size = values.get("exam_size", current.exam_size)
    n = exam_pool if not size else (size if exam_pool is None else min(size, exam_pool))
    if n is not None:
        advice = exam_advice(n, values.get("exam_pass", current.exam_pass))
        pool = f" (the pool holds {exam_pool})" if exam_pool is not None and size and exam_pool < size else ""
        (st.warning if "No mistake" in advice else st.caption)(f"**Exam{pool}:** {advice}")
    chosen = Settings(**{**asdict(current), **values})
    st.caption(f"**Controls:** {control_advice(chosen)}")
    try:
        chosen.validate()
    except AnnotationError as err:  # said here, before anyone presses Create or Save
        st.warning(render.md(err, None), icon=":material/warning:")
    return chosen
