"""The annotator's page of items, answered entirely in the browser.

A Streamlit component (``st.components.v2``, no server of its own) draws every item of
the page with its answer buttons and handles the keyboard in the browser: 1/2/3 answer
the marked item and move the mark on, Up/Down move it, Enter submits, S skips. A key
registers at once, whatever the typing speed. On submit the whole page goes in one
message, ``{"page", "action", "answers"}``, that
:func:`detox_core.annotation.submit.page_answers` checks before the store saves it in
one transaction. Meanwhile, ``DRAFT_MS`` after the last answer given, what is answered so
far goes to the server as the page's draft (``{"page", "answers"}``, with ``on_draft``):
a reload, a new tab or another app process draws the page with those answers
(``answers``) and says so; the mark goes back to the item it was on in that tab.

The keys act on the page wherever the focus was left by a click (the Task control
above, an expander): a key the page uses never reaches that control, so Enter submits
the page rather than pressing the control. Only a control reached with Tab keeps Enter,
Space and the arrows, and text fields keep every key. The outcome of the last submit
(``notice``: saved, skipped or refused, from the server) is drawn at the top of the next
page and scrolled into view; a submit the server does not answer within
``RETRY_S`` seconds says so and can be sent again.

Item texts are user and system text: the script puts them in the page with
``textContent``, never as HTML. Items are sent by position: no item id, and nothing that
tells a control item from another, reaches the browser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from detox_core.annotation.store import Page
from detox_core.annotation.instructions import DEFAULT_UI
from detox_core.annotation.tasks import TaskSpec
from detox_core.ui.widgets.annotation import item_parts
from detox_core.vocab import language_name
from detox_core.ui.components import source

_CSS = source("annotate_page.css")

_JS = source("annotate_page.js")

_COMPONENT = st.components.v2.component("detox_annotate_page", css=_CSS, js=_JS)


#: The page's own words in each UI language ({...} are filled in by the script).
WORDS: dict[str, dict[str, str]] = {
    "en": {"submit": "Submit page (Enter)", "skip": "Skip page (S)", "missing": "Items {items} have no answer yet.",
           "missing_one": "Item {items} has no answer yet.",
           "saving": "Saving…", "skipping": "Skipping…", "count": "item {k} of {n} · {done} answered",
           "no_reply": "No reply from the server yet: your answers are still here. Press Enter to send them again.",
           "keys": "Keys: {keys} (answers the marked item and moves on) · ↑/↓ move · Enter submits the page · "
                   "S skips it. Click an item to mark it, or click an answer.",
           "language": "{name} texts",
           "restored": "{n} answers of this page restored: go on where you left off.",
           "restored_one": "1 answer of this page restored: go on where you left off."},
    "ru": {"submit": "Отправить страницу (Enter)", "skip": "Пропустить страницу (S)",
           "missing": "Нет ответа на пункты {items}.", "missing_one": "Нет ответа на пункт {items}.", "saving": "Сохраняем…", "skipping": "Пропускаем…",
           "no_reply": "Сервер пока не ответил: ваши ответы на месте. Нажмите Enter, чтобы отправить их "
                       "ещё раз.",
           "count": "пункт {k} из {n} · отвечено {done}",
           "keys": "Клавиши: {keys} (ответ на отмеченный пункт и переход дальше) · ↑/↓ перемещение · Enter "
                   "отправляет страницу · S пропускает её. Щёлкните пункт, чтобы отметить его, или щёлкните ответ.",
           "language": "Язык текстов: {name}",
           "restored": "Восстановлено ответов на этой странице: {n}. Продолжайте с того места, где остановились.",
           "restored_one": "Восстановлено ответов на этой странице: 1. Продолжайте с того места, где "
                           "остановились."},
}


#: Seconds a submitted page waits for the server before saying so and allowing a resend.
RETRY_S = 20
#: Milliseconds after the last answer given before the answers so far go to the server as
#: the page's draft: a run of keys is one message, and a reload loses at most this much.
DRAFT_MS = 600

_OWN_WORDS = ("keys", "language")


def restored_text(n: int, ui: str = DEFAULT_UI) -> str:
    """The notice of a page drawn with ``n`` answers kept from before (a reload, a new tab)."""
    return WORDS[ui]["restored_one"] if n == 1 else WORDS[ui]["restored"].format(n=n)


def page_data(page: Page, spec: TaskSpec, ui: str = DEFAULT_UI,
              notice: dict[str, Any] | None = None, answers: list[float | None] | None = None,
              drafts: bool = False) -> dict[str, Any]:
    """What the browser gets of a page: texts by position (with their language), the
    question and the answers, the page's words in UI language ``ui``, and ``notice``
    (``{"kind": "success" | "warning" | "error", "text", "seq"}``), the outcome of the
    annotator's last submit, drawn above the page (``seq`` makes each outcome new to the
    browser, so that a page refused twice is drawn afresh each time), and ``answers`` (by
    position, None where none) to draw the page with, as when it could not be stored or
    drafts of it were kept; with ``drafts`` the browser sends the answers given so far."""
    words = WORDS[ui]
    keys = ", ".join(f"{key} {label}" for key, (_, label) in zip(spec.keys, spec.options))
    langs = sorted({item.lang for item in page.items} - {""})
    return {
        "page": page.assignment_id,
        "question": spec.question,
        "language": words["language"].format(name=", ".join(language_name(x) for x in langs)) if langs else "",
        "options": [{"key": key, "value": value, "text": label}
                    for key, (value, label) in zip(spec.keys, spec.options)],
        "items": [item_parts(item, spec, ui=ui) for item in page.items],
        "keys_help": words["keys"].format(keys=keys),
        "words": {k: v for k, v in words.items() if k not in _OWN_WORDS},
        "notice": notice,
        "answers": list(answers) if answers is not None and len(answers) == len(page.items) else None,
        "retry_ms": RETRY_S * 1000,
        "drafts": drafts,
        "draft_ms": DRAFT_MS,
    }


def annotate_page(page: Page, spec: TaskSpec, key: str, ui: str = DEFAULT_UI,
                  notice: dict[str, Any] | None = None,
                  on_sent: Callable[[], None] | None = None,
                  answers: list[float | None] | None = None,
                  on_draft: Callable[[], None] | None = None) -> dict[str, Any] | None:
    """Draw the page (with ``notice`` and ``answers``, see :func:`page_data`); returns the
    message the browser sent on submit or skip (once), else None. ``on_sent`` runs when
    that message arrives, before the next run (``st.session_state[key]["sent"]`` holds it);
    ``on_draft`` likewise when the answers given so far arrive (``...[key]["draft"]``)."""
    try:
        result = _COMPONENT(data=page_data(page, spec, ui, notice, answers, drafts=on_draft is not None), key=key,
                            on_sent_change=on_sent or (lambda: None), on_draft_change=on_draft or (lambda: None))
    except (RecursionError, ValueError, TypeError):
        # The browser's message could not be read (Streamlit decodes it while drawing the
        # component): a forged one nested 100,000 deep, say. Nothing is stored from it.
        st.error("This page's message from your browser could not be read, so nothing was saved. Reload the page "
                 "and answer it again.", icon=":material/error:")
        return None
    return result.sent
