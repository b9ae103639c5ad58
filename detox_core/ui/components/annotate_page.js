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
