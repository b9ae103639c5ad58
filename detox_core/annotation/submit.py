"""A submitted page as the browser sends it, checked before anything is stored.

The Annotate page sends a whole page in one message: ``{"page": <assignment id>,
"action": "submit" | "skip", "answers": [label per position]}``. Everything in it can
be forged, so :func:`page_answers` accepts only the annotator's open page, one allowed
label per item of it, by position (the browser never learns item ids); the store then
checks again, in the transaction that saves the page. While a page is answered, the
browser also sends what is answered so far (:func:`draft_answers`), kept as the page's
drafts so that a reload draws it as it was left.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from detox_core.errors import AnnotationError
from detox_core.annotation.store import Page
from detox_core.annotation.tasks import spec


def page_answers(page: Page, message: Any) -> tuple[str, dict[int, float]]:
    """``(action, {item id: label})`` of a page message for ``page`` (the annotator's open page).

    Raises:
        AnnotationError: the message is not for this page, its action is unknown, or its
            answers are not exactly one allowed label per item.
    """
    if not isinstance(message, Mapping):
        raise AnnotationError("the page was not understood: reload the page and answer it again")
    if message.get("page") != page.assignment_id:
        raise AnnotationError("these answers belong to another page: nothing was stored; answer the page shown")
    action = message.get("action")
    if action == "skip":
        return "skip", {}
    if action != "submit":
        raise AnnotationError(f"unknown page action {str(action)[:20]!r}: nothing was stored")
    answers = message.get("answers")
    if not isinstance(answers, list) or len(answers) != len(page.items):
        found = len(answers) if isinstance(answers, list) else 0
        raise AnnotationError(f"expected {len(page.items)} answers, one per item of the page, found {found}: "
                              "nothing was stored")
    task = spec(page.task)
    allowed = {float(v) for v, _ in task.options}
    out: dict[int, float] = {}
    for k, (item, value) in enumerate(zip(page.items, answers), 1):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) not in allowed:
            raise AnnotationError(f"item {k} has no answer of the {task.title.lower()} task "
                                  f"(found {str(value)[:20]!r}): nothing was stored")
        out[item.id] = float(value)
    return "submit", out


def draft_answers(page: Page, message: Any) -> dict[int, float]:
    """``{item id: label}`` of the answers given so far on ``page`` (the annotator's open
    page), as the browser sends them while the page is answered: ``{"page", "answers":
    [label or None per position]}``. The store keeps them as drafts, never as answers.

    Raises:
        AnnotationError: the message is not for this page, has not one entry per item, or
            holds a label the task has not.
    """
    if not isinstance(message, Mapping) or message.get("page") != page.assignment_id:
        raise AnnotationError("these answers belong to another page")
    answers = message.get("answers")
    if not isinstance(answers, list) or len(answers) != len(page.items):
        raise AnnotationError(f"expected {len(page.items)} entries, one per item of the page")
    allowed = {float(v) for v, _ in spec(page.task).options}
    out: dict[int, float] = {}
    for k, (item, value) in enumerate(zip(page.items, answers), 1):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) not in allowed:
            raise AnnotationError(f"item {k} has no answer of the {page.task} task (found {str(value)[:20]!r})")
        out[item.id] = float(value)
    return out
