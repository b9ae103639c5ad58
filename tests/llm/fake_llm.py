"""A real chat-completions HTTP server on 127.0.0.1 with scripted behaviour, for the LLM
judge's and the LLM rewriter's tests and benchmark: right answers, 429 with Retry-After,
500, malformed JSON, garbage text, slow replies, refusals, markup; it counts every request
and every charged answer per request body (what a provider bills)."""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: Texts the server always answers with garbage (the judge re-asks, then gives up).
GARBAGE_MARK = "@@garbage@@"
#: Texts the server answers with garbage the first time, and rightly when re-asked.
GARBAGE_FIRST_MARK = "@@garbage-first@@"
#: Texts the server answers too slowly (past the client's timeout).
SLOW_MARK = "@@slow@@"
#: Texts the server declines to rewrite.
REFUSE_MARK = "@@refuse@@"
#: Texts whose rewrites come back with HTML and markdown markup.
MARKUP_MARK = "@@markup@@"
#: Rude words and what the fake rewriter puts instead ("": left out).
RUDE = {"дебил": "не прав", "идиот": "не прав", "заткнись": "помолчи", "сука": "", "хрень": "ерунда", "блять": "",
        "мудак": "человек", "тупой": "странный", "idiot": "wrong", "stupid": "odd", "damn": ""}
REFUSAL = "I'm sorry, but I can't help with that."


def rewrite_answer(request: str) -> str:
    """The fake LLM's numbered rewrites of the last rewrite request (``Give N different
    rewrites ... Text: X``): X with its rude words replaced or left out, then politer variants."""
    n = int(re.search(r"Give (\d+) different rewrites", request).group(1))
    text = request.rsplit("Text:", 1)[1].strip()
    if REFUSE_MARK in text:
        return REFUSAL
    if MARKUP_MARK in text:
        return "\n".join(["Here are the rewrites:", "1. <b>bold</b> words", "2. **stars** here",
                          "3. <script>alert(1)</script> quiet"][: n + 1])
    kept = []
    for word in text.split():
        core = word.strip(",.!?;:")
        if core.lower() not in RUDE:
            kept.append(word)
        elif RUDE[core.lower()]:
            kept.append(word.replace(core, RUDE[core.lower()]))
    base = " ".join(kept).strip(" ,") or "..."
    base = base[0].upper() + base[1:]
    cyrillic = bool(re.search("[а-яё]", text, re.IGNORECASE))
    variants = [base, ("Пожалуйста, " if cyrillic else "Please, ") + base[0].lower() + base[1:],
                base.rstrip(".!?") + (", если можно." if cyrillic else ", if you can."),
                base.rstrip(".!?") + "...", ("Прошу: " if cyrillic else "Kindly: ") + base]
    return "\n".join(f"{k}. {v}" for k, v in enumerate(variants[:n], 1))


def right_answer(messages: list[dict]) -> str:
    """A deterministic plausible answer to the judge's last question."""
    last = messages[-1]["content"]
    question = next((m["content"] for m in reversed(messages) if m["role"] == "user" and "Text" in m["content"]), last)
    low = question.lower()
    if "different rewrites" in last:
        return rewrite_answer(last)
    h = int(hashlib.md5(question.encode()).hexdigest(), 16)
    if "more toxic" in low:
        return ["A", "A", "equal", "B"][h % 4]
    if "mean the same" in low:
        return ["yes", "yes", "no"][h % 3]
    if "fluency" in low:
        return ["fluent", "fluent", "partially", "not"][h % 4]
    return "?"


@dataclass
class Faults:
    """Shares of requests answered with a fault instead of the answer."""

    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_garbage: float = 0.0
    rate_malformed: float = 0.0
    retry_after: str = "0"
    latency: float = 0.0  # seconds per request
    slow_seconds: float = 2.0
    seed: int = 0
    fail_first: int = 0  # the first requests answered HTTP 500, whatever the rates
    reask_down: bool = False  # every re-ask (a request holding an earlier answer) answered HTTP 500


@dataclass
class Stats:
    requests: int = 0
    charged: Counter = field(default_factory=Counter)  # body hash -> 200 answers with usage
    status: Counter = field(default_factory=Counter)
    auth: set = field(default_factory=set)


class FakeLLM:
    """``with FakeLLM(faults) as server: server.url``."""

    def __init__(self, faults: Faults | None = None, key: str | None = None) -> None:
        self.faults = faults or Faults()
        self.key = key
        self.stats = Stats()
        self._lock = threading.Lock()
        self._rng = random.Random(self.faults.seed)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall between headers and body

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer._handle(self, body)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address) -> None:  # a killed client: not the server's fault
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeLLM":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _send(self, handler, status: int, payload: bytes, headers: dict | None = None) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            handler.send_header(k, v)
        handler.end_headers()
        try:
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _handle(self, handler, body: bytes) -> None:
        f = self.faults
        with self._lock:
            self.stats.requests += 1
            count = self.stats.requests
            roll = self._rng.random()
            self.stats.auth.add(handler.headers.get("Authorization", ""))
        if not handler.path.endswith("/chat/completions"):
            return self._send(handler, 404, b'{"error": {"message": "not found"}}')
        if self.key is not None and handler.headers.get("Authorization") != f"Bearer {self.key}":
            return self._send(handler, 401, b'{"error": {"message": "bad key"}}')
        request = json.loads(body)
        messages = request["messages"]
        text = " ".join(m["content"] for m in messages)
        if f.latency:
            time.sleep(f.latency)
        if SLOW_MARK in text:
            time.sleep(f.slow_seconds)
        status = 200
        reask = any(m["role"] == "assistant" for m in messages)
        if count <= f.fail_first or (reask and f.reask_down):
            status = 500
        elif roll < f.rate_429:
            status = 429
        elif roll < f.rate_429 + f.rate_500:
            status = 500
        with self._lock:
            self.stats.status[status] += 1
        if status == 429:
            return self._send(handler, 429, b'{"error": {"message": "rate limited"}}', {"Retry-After": f.retry_after})
        if status == 500:
            return self._send(handler, 500, b'{"error": {"message": "boom"}}')
        roll2 = (roll - f.rate_429 - f.rate_500) / max(1e-9, 1 - f.rate_429 - f.rate_500)
        if roll2 < f.rate_malformed:
            return self._send(handler, 200, b'{"choices": [ {"message": ')
        garbage = GARBAGE_MARK in text or (GARBAGE_FIRST_MARK in text and not reask) or roll2 < f.rate_malformed + f.rate_garbage
        answer = "Well, it depends on the context, I would say." if garbage else right_answer(messages)
        key = hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        with self._lock:
            self.stats.charged[key] += 1
        words = len(re.findall(r"\w+", text))
        # A judge's answer is billed as one token (as before); a list of rewrites by its words.
        completion = len(re.findall(r"\w+", answer)) if "different rewrites" in messages[-1]["content"] else 1
        payload = {"id": "x", "object": "chat.completion", "model": request.get("model"),
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                                "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": words, "completion_tokens": completion, "total_tokens": words + completion}}
        self._send(handler, 200, json.dumps(payload).encode())


def serve_forever(port_file: str, faults: Faults) -> None:  # pragma: no cover - a helper for subprocess tests
    with FakeLLM(faults) as server:
        with open(port_file, "w") as fh:
            fh.write(server.url)
        while True:
            time.sleep(1)
