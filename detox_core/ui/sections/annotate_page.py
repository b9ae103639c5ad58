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
from detox_core.ui.sections.annotation import item_parts
from detox_core.vocab import language_name

_CSS = """
:host { display: block; }
.ap { font-family: var(--st-font, "Source Sans Pro", sans-serif); color: var(--st-text-color, #1d2521); }
.ap-head { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; margin-bottom: .5rem; }
.ap-q { font-weight: 600; font-size: 1.05rem; }
.ap-count { color: #5b6b63; }
.ap-item { display: grid; grid-template-columns: 2rem minmax(0, 1fr) auto; gap: .75rem; align-items: center;
           border: 1px solid rgba(49, 51, 63, .2); border-radius: .5rem; padding: .6rem .75rem; margin: .4rem 0;
           cursor: pointer; outline: none; }
.ap-item.current { background: #eef6f1; border-color: #2e7d5b; box-shadow: inset 4px 0 0 #2e7d5b; }
.ap-item.answered .ap-num::after { content: " ✓"; color: #2e7d5b; }
.ap-num { font-weight: 700; }
.ap-label { color: #5b6b63; font-size: .8rem; }
.ap-text { font-size: 1.05rem; white-space: pre-wrap; overflow-wrap: anywhere; margin-bottom: .15rem;
           unicode-bidi: plaintext; text-align: start; }
.ap-lang { color: #1d2521; background: #eef6f1; border-radius: .4rem; padding: .05rem .45rem; font-size: .85rem; }
.ap-text.strong { font-weight: 600; }
.ap-opts { display: flex; flex-wrap: wrap; gap: .35rem; justify-content: flex-end; }
.ap-opt { border: 1px solid rgba(49, 51, 63, .3); background: #fff; border-radius: .5rem; padding: .3rem .7rem;
          font: inherit; cursor: pointer; white-space: nowrap; }
.ap-opt.chosen { background: #2e7d5b; border-color: #2e7d5b; color: #fff; }
.ap-bar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .6rem; }
.ap-btn { border: 1px solid rgba(49, 51, 63, .3); background: #fff; border-radius: .5rem; padding: .4rem .9rem;
          font: inherit; cursor: pointer; }
.ap-btn.primary { background: #2e7d5b; border-color: #2e7d5b; color: #fff; }
.ap-btn:disabled { opacity: .6; cursor: default; }
.ap-msg { color: #b3261e; font-weight: 600; }
.ap-keys { color: #5b6b63; font-size: .85rem; margin-top: .4rem; }
.ap:focus { outline: none; }
.ap-notice { border-radius: .5rem; padding: .55rem .8rem; margin-bottom: .6rem; font-weight: 600;
             scroll-margin-top: 4.5rem; overflow-wrap: anywhere; }
.ap-notice.success { background: #e3f4ea; color: #14532d; border: 1px solid #2e7d5b; }
.ap-notice.warning { background: #fff6dd; color: #5c4300; border: 1px solid #c99a06; }
.ap-notice.error { background: #fde8e7; color: #8c1d18; border: 1px solid #b3261e; }
.ap { container-type: inline-size; }
/* The page's own width decides (at 800 px the sidebar leaves the page about 470 px): the
   answers go under the text rather than squeezing it to a word per line. */
@container (max-width: 640px) {
  .ap-item { grid-template-columns: 1.5rem minmax(0, 1fr); }
  .ap-opts { grid-column: 1 / -1; justify-content: flex-start; }
}
"""

_JS = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  // Drawn again in the same place (new data): the earlier drawing stops listening first.
  if (parentElement.__apStop) parentElement.__apStop();
  parentElement.querySelectorAll(".ap").forEach((e) => e.remove());  // one page, never two
  const root = document.createElement("div");
  root.className = "ap";
  root.tabIndex = -1;  // takes the focus from a control clicked before, so that Enter is the page's
  parentElement.appendChild(root);
  const n = data.items.length;
  // Answers the server gives back (a page it could not store, or the page's drafts kept from a
  // reload or another tab): the annotator goes on from them.
  const answers = Array.isArray(data.answers) && data.answers.length === n ? data.answers.slice() : new Array(n).fill(null);
  // Drawn again for the same page (a run of the server for a draft, a notice): answers
  // given in this tab since are newer than what the server sent.
  const live = parentElement.__apLive;
  if (live && live.page === data.page && live.answers.length === n) {
    live.answers.forEach((a, k) => { if (a !== null) answers[k] = a; });
  }
  // The tab's own copy of this page's answers (sessionStorage: this tab only, kept over a
  // reload), written at every answer: a reload sooner than the draft's message, or one that
  // cut it off, loses nothing. Read on the tab's first drawing of the page; the copies of
  // other pages go.
  const storeKey = "detox-ap:" + data.page;
  const atKey = storeKey + ":at";  // the marked item, kept over a reload
  const allowed = new Set(data.options.map((o) => o.value));
  let fromTab = 0;
  if (data.drafts) {
    try {
      for (let i = window.sessionStorage.length - 1; i >= 0; i--) {
        const k = window.sessionStorage.key(i);
        if (k && k.startsWith("detox-ap:") && k !== storeKey && k !== atKey) window.sessionStorage.removeItem(k);
      }
      const kept = JSON.parse(window.sessionStorage.getItem(storeKey) || "null");
      if (!live && Array.isArray(kept) && kept.length === n) {
        kept.forEach((a, k) => {
          if (allowed.has(a) && answers[k] !== a) {
            if (answers[k] === null) fromTab += 1;
            answers[k] = a;
          }
        });
      }
    } catch (err) { /* no storage in this tab (a private window's limit): the server's drafts hold */ }
  }
  const keepInTab = () => {
    if (!data.drafts) return;
    try { window.sessionStorage.setItem(storeKey, JSON.stringify(answers)); } catch (err) { /* as above */ }
  };
  parentElement.__apLive = { page: data.page, answers: answers };
  // The mark where this tab left it (a reload), else on the first item without an answer
  // (the last when every item has one: the page is ready to submit).
  let current = answers.indexOf(null) >= 0 ? answers.indexOf(null) : n - 1;
  let markKept = false;
  if (data.drafts) {
    try {
      const at = Number(window.sessionStorage.getItem(atKey));
      markKept = window.sessionStorage.getItem(atKey) !== null && Number.isInteger(at) && at >= 0 && at < n;
      if (markKept) current = at;
    } catch (err) { /* no storage: as above */ }
  }
  let sent = false;
  let retry = null;
  let draftTimer = null;

  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;  // text, never HTML
    return e;
  };
  let notice = null;
  let noticeData = data.notice;
  if (fromTab > 0) {  // answers the server had not got yet: the notice counts them all
    const total = answers.filter((a) => a !== null).length;
    const text = total === 1 ? data.words.restored_one : data.words.restored.replace("{n}", total);
    noticeData = { kind: "success", text: text };
  }
  if (noticeData) {
    notice = el("div", "ap-notice " + noticeData.kind, noticeData.text);
    notice.setAttribute("role", noticeData.kind === "success" ? "status" : "alert");
    root.append(notice);
  }
  const head = el("div", "ap-head");
  head.append(el("span", "ap-q", data.question));
  if (data.language) head.append(el("span", "ap-lang", data.language));
  const count = el("span", "ap-count");
  head.append(count);
  root.append(head);

  const rows = data.items.map((item, k) => {
    const row = el("div", "ap-item");
    row.tabIndex = -1;
    row.dataset.position = String(k + 1);
    row.append(el("div", "ap-num", String(k + 1)));
    const body = el("div");
    for (const part of item) {
      body.append(el("div", "ap-label", part.label));
      const t = el("div", "ap-text" + (part.strong ? " strong" : ""), part.text);
      t.dir = "auto";  // Arabic and Hebrew texts run right to left
      if (part.lang) t.lang = part.lang;
      body.append(t);
    }
    row.append(body);
    const opts = el("div", "ap-opts");
    data.options.forEach((opt) => {
      const b = el("button", "ap-opt", opt.key + " · " + opt.text);
      b.type = "button";
      b.dataset.value = String(opt.value);
      b.addEventListener("click", (ev) => { ev.stopPropagation(); answer(k, opt.value, true); });
      opts.append(b);
    });
    row.append(opts);
    row.addEventListener("click", () => { current = k; draw(); });
    root.append(row);
    return row;
  });

  const bar = el("div", "ap-bar");
  const words = data.words;
  const submitBtn = el("button", "ap-btn primary", words.submit);
  submitBtn.type = "button";
  const skipBtn = el("button", "ap-btn", words.skip);
  skipBtn.type = "button";
  const msg = el("span", "ap-msg");
  msg.setAttribute("role", "status");
  bar.append(submitBtn, skipBtn, msg);
  root.append(bar);
  root.append(el("div", "ap-keys", data.keys_help));

  function nextUnanswered(after) {
    for (let step = 1; step <= n; step++) {
      const k = (after + step) % n;
      if (answers[k] === null) return k;
    }
    return Math.min(after + 1, n - 1);
  }
  function draw() {
    rows.forEach((row, k) => {
      row.classList.toggle("current", k === current);
      row.classList.toggle("answered", answers[k] !== null);
      row.querySelectorAll(".ap-opt").forEach((b) => {
        b.classList.toggle("chosen", answers[k] !== null && Number(b.dataset.value) === answers[k]);
      });
    });
    if (data.drafts) {
      try { window.sessionStorage.setItem(atKey, String(current)); } catch (err) { /* no storage */ }
    }
    const done = answers.filter((a) => a !== null).length;
    count.textContent = words.count.replace("{k}", current + 1).replace("{n}", n).replace("{done}", done);
  }
  function sendDraft() {
    clearTimeout(draftTimer);
    draftTimer = null;
    if (sent) return;
    setTriggerValue("draft", { page: data.page, answers: answers.slice() });
  }
  function answer(k, value, byMouse) {
    if (sent) return;
    answers[k] = value;
    keepInTab();
    current = nextUnanswered(k);
    msg.textContent = "";
    draw();
    if (!byMouse) rows[current].scrollIntoView({ block: "nearest" });
    if (data.drafts) {  // after a pause in answering: one message for a run of keys
      clearTimeout(draftTimer);
      draftTimer = setTimeout(sendDraft, data.draft_ms);
    }
  }
  function send(action) {
    if (sent) return;
    const pending = draftTimer !== null;
    clearTimeout(draftTimer);  // the page itself goes now, with every answer
    draftTimer = null;
    if (action === "submit") {
      const missing = answers.map((a, k) => (a === null ? k + 1 : null)).filter((x) => x !== null);
      if (missing.length) {
        msg.textContent = (missing.length === 1 ? words.missing_one : words.missing).replace("{items}", missing.join(", "));
        current = missing[0] - 1;
        draw();
        rows[current].scrollIntoView({ block: "nearest" });
        // The answers not yet sent go now as they would have (a page submitted in another tab is said so).
        if (pending) sendDraft();
        return;
      }
    }
    sent = true;
    submitBtn.disabled = skipBtn.disabled = true;
    msg.textContent = action === "submit" ? words.saving : words.skipping;
    setTriggerValue("sent", { page: data.page, action: action, answers: answers });
    // The server answers by drawing the next page (or this one with a notice); when it
    // does not, say so and let the person send again (the store refuses a page twice).
    retry = setTimeout(() => {
      sent = false;
      submitBtn.disabled = skipBtn.disabled = false;
      msg.textContent = words.no_reply;
    }, data.retry_ms);
  }
  submitBtn.addEventListener("click", () => send("submit"));
  skipBtn.addEventListener("click", () => send("skip"));

  const keyValue = {};
  data.options.forEach((opt) => { keyValue[opt.key] = opt.value; });
  const typing = (t) => {
    const tag = t && t.tagName ? t.tagName.toLowerCase() : "";
    return tag === "input" || tag === "textarea" || tag === "select" || Boolean(t && t.isContentEditable);
  };
  // Whether the focus was last moved with Tab: a control reached that way keeps its own keys.
  let tabbed = false;
  const onTab = (ev) => { if (ev.key === "Tab") tabbed = true; };
  // A click outside the page (Leave, another task) sends the answers given so far at once:
  // the server knows them before it acts on the click.
  const onPointer = (ev) => {
    tabbed = false;
    const t = ev.composedPath ? ev.composedPath()[0] : ev.target;
    if (draftTimer !== null && !root.contains(t)) sendDraft();
  };
  const CONTROL_KEYS = ["Enter", " ", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"];
  function onKey(ev) {
    const t = ev.composedPath ? ev.composedPath()[0] : ev.target;
    if (typing(t)) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const inPage = root.contains(t) || t === document.body || t === document.documentElement;
    if (!inPage && tabbed && CONTROL_KEYS.includes(ev.key)) return;
    if (ev.key in keyValue) { answer(current, keyValue[ev.key], false); }
    else if (ev.key === "ArrowDown") { current = Math.min(current + 1, n - 1); draw(); rows[current].scrollIntoView({ block: "nearest" }); }
    else if (ev.key === "ArrowUp") { current = Math.max(current - 1, 0); draw(); rows[current].scrollIntoView({ block: "nearest" }); }
    else if (ev.key === "Enter") { send("submit"); }
    else if (ev.key === "s" || ev.key === "S") { send("skip"); }
    else return;
    // The page's key: neither the browser's default nor the focused control (a Task
    // button left focused by a click would take Enter as a press) acts on it.
    ev.preventDefault();
    ev.stopPropagation();
  }
  document.addEventListener("keydown", onTab, true);
  document.addEventListener("keydown", onKey, true);
  document.addEventListener("pointerdown", onPointer, true);
  draw();
  if (fromTab > 0) {  // the server gets what only the tab had
    keepInTab();
    draftTimer = setTimeout(sendDraft, data.draft_ms);
  }
  // A control clicked before this page was drawn (the Task control) gives the focus up.
  const active = document.activeElement;
  if (!typing(active) && !(active && active.shadowRoot && typing(active.shadowRoot.activeElement))) {
    root.focus({ preventScroll: true });
  }
  if (notice) {
    const r = notice.getBoundingClientRect();
    if (r.top < 64 || r.bottom > window.innerHeight) notice.scrollIntoView({ block: "start" });
  } else if (markKept && !live) {
    rows[current].scrollIntoView({ block: "nearest" });  // back where the mark was
  }
  const flush = () => { if (draftTimer !== null) sendDraft(); };
  window.addEventListener("pagehide", flush);
  const stop = () => {
    try { flush(); } catch (err) { /* gone with its page: the draft sent before stays */ }
    window.removeEventListener("pagehide", flush);
    sent = true;  // a detached drawing never sends
    clearTimeout(retry);
    document.removeEventListener("keydown", onTab, true);
    document.removeEventListener("keydown", onKey, true);
    document.removeEventListener("pointerdown", onPointer, true);
  };
  parentElement.__apStop = stop;
  return stop;
}
"""

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
