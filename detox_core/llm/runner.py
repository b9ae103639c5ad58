"""Run the LLM judge over pairs: plan the requests, read the cache, ask the rest with
bounded concurrency, parse strictly (one re-ask), store every answer as it comes.

An answer that cannot be had (the server kept failing, or the answer could not be read
twice) is missing: NaN for that axis and J, counted in :class:`Usage`, never a zero.
"""

from __future__ import annotations

import math
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from detox_core.llm.client import ChatClient, Endpoint, JudgeUnavailableError, Reply, RetryPolicy, TransientError
from detox_core.llm.prompts import BUILTIN, Template

if TYPE_CHECKING:
    from detox_core.llm.cache import Cached, ResponseCache


def _stores():
    """The judge's database parts: its response cache and the visitors' allowance (they bring in
    SQLAlchemy, so they are imported when a judge runs, not with the metrics)."""
    # Imported here: SQLAlchemy only when a judge runs (`import detox_core.api` stays light).
    from detox_core.llm import access, cache

    return access, cache


def response_cache() -> ResponseCache:
    """The judge's response cache in the app's database (opened when a judge first runs)."""
    return _stores()[1].ResponseCache()


#: progress(step name, done, total)
Progress = Callable[[str, int, int], None]
#: Characters per token of the pre-run estimate (a rough rule for mixed scripts).
CHARS_PER_TOKEN = 4.0
#: Most in-flight requests of one run (a setting may ask for fewer).
MAX_CONCURRENCY = 64
#: Most in-flight requests of the whole process (every session's runs together): many
#: users scoring at once share these instead of opening connections without bound.
_PROCESS_SLOTS = threading.BoundedSemaphore(2 * MAX_CONCURRENCY)


@dataclass(frozen=True)
class JudgeSettings:
    """Everything a judge run depends on, but the key.

    ``price_in`` / ``price_out``: price per million input / output tokens (None: unknown,
    so costs read "unknown", never 0).
    """

    endpoint: Endpoint
    template: Template = BUILTIN
    concurrency: int = 8
    temperature: float = 0.0
    max_tokens: int = 8
    price_in: float | None = None
    price_out: float | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)

    def request_settings(self) -> dict[str, Any]:
        """The request body's settings (part of the cache key)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        if self.price_in is None or self.price_out is None:
            return None
        return (prompt_tokens * self.price_in + completion_tokens * self.price_out) / 1e6


def cost_text(cost: float | None) -> str:
    return "cost unknown (set the prices per 1M tokens: organizers in the sidebar under LLM judge, or --llm-price-in/--llm-price-out)" if cost is None else f"about ${cost:,.4f}"


@dataclass
class Estimate:
    """Before a run: what it will ask, from the prompts' length (no usage known yet)."""

    requests: int  # unique requests the pairs need
    cached: int  # of them, answered in the cache already (free)
    prompt_tokens: int  # estimated, of the requests still to send
    completion_tokens: int
    cost: float | None

    @property
    def to_send(self) -> int:
        return self.requests - self.cached

    def text(self) -> str:
        return (f"{self.requests:,} requests ({self.cached:,} answered in the cache, {self.to_send:,} to send): about "
                f"{self.prompt_tokens:,} input and {self.completion_tokens:,} output tokens, {cost_text(self.cost)}")


@dataclass
class Usage:
    """After a run: what was asked and what it cost (from the server's usage fields)."""

    requests: int = 0  # unique requests the pairs needed
    cached: int = 0  # served by the cache
    answered: int = 0  # answered by the server in this run (charged), re-asks included
    reasks: int = 0
    failed: int = 0  # requests still failing after every retry (not cached; a re-ask's failure: its first answer kept as pending)
    unreadable: int = 0  # answered but not readable after the re-ask
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    missing: dict[str, int] = field(default_factory=dict)  # axis -> pairs without a value

    def text(self) -> str:
        miss = ", ".join(f"{k.upper()} {v:,}" for k, v in self.missing.items() if v) or "none"
        return (f"{self.requests:,} requests: {self.cached:,} from the cache, {self.answered:,} answered now "
                f"({self.reasks:,} re-asks), {self.failed:,} failed, {self.unreadable:,} unreadable; "
                f"{self.prompt_tokens:,} input and {self.completion_tokens:,} output tokens, {cost_text(self.cost)}; "
                f"pairs missing: {miss}")


@dataclass(frozen=True)
class _Request:
    question: str
    messages: tuple[dict[str, str], ...]
    key: str
    # An unreadable answer already charged (a pending cache row): only its re-ask is sent.
    first: str | None = None
    first_tokens: tuple[int, int] = (0, 0)


@dataclass
class _Outcome:
    answer: str | None = None
    value: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    answered: int = 0
    reasked: bool = False
    failed: bool = False
    pending: bool = False  # failed at the re-ask: ``answer`` is the charged, unreadable first answer


class LLMJudge:
    """Asks a chat-completions server the three questions of every pair.

    Args:
        settings: endpoint, template, concurrency, request settings, prices.
        cache: the response cache (default: the app's database).
        client: the HTTP client (default: :class:`ChatClient` of the endpoint).
    """

    def __init__(self, settings: JudgeSettings, cache: ResponseCache | None = None,
                 client: ChatClient | None = None) -> None:
        if not settings.endpoint.configured:
            raise JudgeUnavailableError(unconfigured_message(settings.endpoint))
        self.settings = settings
        self.cache = cache if cache is not None else response_cache()
        self.client = client or ChatClient(settings.endpoint, settings.policy)

    # ------------------------------------------------------------------ planning

    def _request(self, question: str, fields: dict[str, str], lang: str) -> _Request:
        s = self.settings
        messages = tuple(s.template.messages(question, fields, lang))
        key = _stores()[1].request_key(s.endpoint.model, s.endpoint.public, s.template.tag, s.request_settings(),
                                       messages)
        return _Request(question, messages, key)

    def plan(self, inputs: Sequence[str], outputs: Sequence[str], langs: Sequence[str] | None = None
             ) -> tuple[list[dict[str, str]], dict[str, _Request]]:
        """Per pair, question -> request key (``fl_in``/``fl_out`` for the two fluencies),
        and the unique requests by key (an input judged for several systems is asked its
        fluency once)."""
        langs = list(langs) if langs is not None else [""] * len(inputs)
        per_pair, unique = [], {}
        for x, y, lang in zip(inputs, outputs, langs):
            reqs = {"sta": self._request("sta", {"input": x, "output": y}, lang),
                    "sim": self._request("sim", {"input": x, "output": y}, lang),
                    "fl_in": self._request("fl", {"text": x}, lang),
                    "fl_out": self._request("fl", {"text": y}, lang)}
            per_pair.append({k: r.key for k, r in reqs.items()})
            unique.update({r.key: r for r in reqs.values()})
        return per_pair, unique

    def estimate(self, inputs: Sequence[str], outputs: Sequence[str], langs: Sequence[str] | None = None,
                 check_cache: bool = True) -> Estimate:
        """Requests, tokens and cost of a run, before it (cached answers cost nothing;
        ``check_cache`` False: as if nothing were cached, an upper bound)."""
        _, unique = self.plan(inputs, outputs, langs)
        cached = self.cache.get_many(unique) if check_cache else {}
        todo = self._todo(unique, cached)
        prompt, completion, cost = self._tokens(todo)
        return Estimate(len(unique), len(unique) - len(todo), prompt, completion, cost)

    @staticmethod
    def _todo(unique: dict[str, _Request], cached: dict[str, Cached]) -> list[_Request]:
        """The requests to send: those not cached, and the re-asks of pending answers."""
        todo = []
        for key, req in unique.items():
            hit = cached.get(key)
            if hit is None:
                todo.append(req)
            elif hit.pending:
                todo.append(replace(req, first=hit.answer or "", first_tokens=(hit.prompt_tokens,
                                                                                 hit.completion_tokens)))
        return todo

    def _tokens(self, todo: Sequence[_Request]) -> tuple[int, int, float | None]:
        """Estimated prompt and completion tokens of ``todo``, and their cost (a re-ask
        sends the question, the first answer and the re-ask message)."""
        prompt = sum(math.ceil((sum(len(m["content"]) + 4 for m in r.messages) + len(r.first or "") * 2)
                               / CHARS_PER_TOKEN) for r in todo)
        completion = len(todo) * min(self.settings.max_tokens, 3)
        return prompt, completion, self.settings.cost(prompt, completion)

    def _worst_case(self, todo: Sequence[_Request]) -> tuple[int, float | None]:
        """The most requests ``todo`` may send (a question and its re-ask; only the re-ask where
        the first answer is charged) and their cost (a re-ask costs the first's, and a tenth)."""
        cost = self._tokens(todo)[2]
        return sum(2 if r.first is None else 1 for r in todo), None if cost is None else cost * 2.1

    # ------------------------------------------------------------------ asking

    def _ask(self, req: _Request) -> _Outcome:
        """One question (holding one of the process's request slots)."""
        with _PROCESS_SLOTS:
            return self._ask_once(req)

    def _ask_once(self, req: _Request) -> _Outcome:
        """One question: ask, parse, re-ask once on an unreadable answer (only the re-ask
        when the unreadable answer is already charged: ``req.first``). The outcome's tokens
        are this run's."""
        out = _Outcome()
        tmpl, settings = self.settings.template, self.settings.request_settings()
        first = req.first
        if first is None:
            try:
                reply = self.client.chat(list(req.messages), settings)
            except TransientError:
                return _Outcome(failed=True)
            self._count(out, reply)
            out.value = tmpl.parse(req.question, reply.text)
            if out.value is not None:
                out.answer = reply.text
                return out
            first = reply.text
        out.reasked = True
        follow = [*req.messages, *([{"role": "assistant", "content": first}] if first else []),
                  {"role": "user", "content": tmpl.reask_message(req.question)}]
        try:
            again = self.client.chat(follow, settings)
        except TransientError:
            # The first answer was charged: it is kept (pending), so that a rerun sends only the re-ask.
            return _Outcome(failed=True, pending=True, answer=first, answered=out.answered,
                            prompt_tokens=out.prompt_tokens, completion_tokens=out.completion_tokens, reasked=True)
        self._count(out, again)
        out.value = tmpl.parse(req.question, again.text)
        out.answer = again.text
        return out

    @staticmethod
    def _count(out: _Outcome, reply: Reply) -> None:
        out.answered += 1
        out.prompt_tokens += reply.prompt_tokens
        out.completion_tokens += reply.completion_tokens

    def _row(self, req: _Request, outcome: _Outcome) -> dict[str, Any]:
        s = self.settings
        return {"key": req.key, "model": s.endpoint.model, "base_url": s.endpoint.public, "template": s.template.tag,
                "question": req.question, "answer": outcome.answer, "value": outcome.value,
                "prompt_tokens": outcome.prompt_tokens + req.first_tokens[0],
                "completion_tokens": outcome.completion_tokens + req.first_tokens[1], "pending": int(outcome.pending)}

    def _run_requests(self, todo: list[_Request], usage: Usage, progress: Progress | None, done0: int,
                      total: int) -> dict[str, _Outcome]:
        results: dict[str, _Outcome] = {}
        workers = max(1, min(int(self.settings.concurrency), MAX_CONCURRENCY))
        stop = threading.Event()
        # One writer thread stores the answers as they come, in batches of whatever has
        # arrived: a killed run loses only the requests in flight and the few answers of
        # the moment, and the workers never wait for the database.
        rows: queue.Queue = queue.Queue()
        failure: list[BaseException] = []

        def write() -> None:
            while True:
                batch = [rows.get()]
                while True:
                    try:
                        batch.append(rows.get_nowait())
                    except queue.Empty:
                        break
                last = batch[-1] is None
                batch = [r for r in batch if r is not None]
                try:
                    self.cache.put_many(batch)
                except BaseException as err:  # noqa: BLE001 - handed to the main thread
                    failure.append(err)
                    stop.set()
                    return
                if last:
                    return

        def job(req: _Request) -> _Outcome:
            if stop.is_set():
                return _Outcome(failed=True)
            outcome = self._ask(req)
            if not outcome.failed or outcome.pending:  # what was charged is kept
                rows.put(self._row(req, outcome))
            return outcome

        writer = threading.Thread(target=write, name="llm-judge-cache", daemon=True)
        writer.start()
        done = done0
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm-judge")
        futures: dict[Future, _Request] = {}
        with _stop_signals() as signals:
            try:
                futures.update({pool.submit(job, r): r for r in todo})
                waiting = set(futures)
                while waiting and not failure and not signals.stop.is_set():
                    finished, waiting = wait(waiting, timeout=0.5, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        req = futures[fut]
                        outcome = fut.result()  # a refused key stops the run
                        results[req.key] = outcome
                        usage.answered += outcome.answered
                        usage.reasks += outcome.reasked
                        usage.prompt_tokens += outcome.prompt_tokens
                        usage.completion_tokens += outcome.completion_tokens
                        if outcome.failed:
                            usage.failed += 1
                        else:
                            usage.unreadable += outcome.value is None
                        done += 1
                    if progress and finished:
                        progress("LLM judge", done, total)
                if signals.stop.is_set():
                    # Ctrl-C or SIGTERM: start nothing new, but take (and store) the answers of the
                    # requests already sent, which the server bills, so that a rerun does not pay
                    # for them again; one request timeout at most, or until a second Ctrl-C.
                    stop.set()
                    pool.shutdown(wait=False, cancel_futures=True)
                    deadline = time.monotonic() + self.settings.policy.timeout + 1
                    running = [f for f in futures if not f.done()]
                    while running and time.monotonic() < deadline and not signals.now.is_set():
                        wait(running, timeout=0.2)
                        running = [f for f in running if not f.done()]
                    raise KeyboardInterrupt
            except BaseException:  # a refused key, the database, a stop: nothing new is asked
                stop.set()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            finally:
                rows.put(None)
                writer.join()  # the answers received are stored, even when the run stops
        pool.shutdown(wait=True)
        if failure:  # the database refused: the run cannot keep what it pays for
            raise failure[0]
        return results

    def judge(self, inputs: Sequence[str], outputs: Sequence[str], langs: Sequence[str] | None = None,
              progress: Progress | None = None) -> tuple[pd.DataFrame, Usage]:
        """Per pair: ``sta``, ``sim``, ``fl`` (output at least as fluent as the input),
        ``fl_in``/``fl_out`` (3-point fluency), ``j``; NaN where an answer is missing."""
        per_pair, unique = self.plan(inputs, outputs, langs)
        cached = self.cache.get_many(unique)
        todo = self._todo(unique, cached)
        cached = {k: c for k, c in cached.items() if not c.pending}
        usage = Usage(requests=len(unique), cached=len(cached))
        total = len(unique)
        if progress:
            progress("LLM judge", len(cached), total)
        # A visitor's run is charged to the visitors' allowance, or refused, before
        # anything is sent (organizers, the CLI and library calls are not limited): its worst
        # case, each question re-asked once; what it did not send is given back at its end.
        access = _stores()[0]
        reserved, reserved_cost = self._worst_case(todo)
        charged = access.charge(reserved, reserved_cost)
        fresh = None
        try:
            fresh = self._run_requests(todo, usage, progress, len(cached), total) if todo else {}
        finally:  # answered and failed requests count as sent; a run stopped midway (a click, an
            if charged is not None:  # error) may have more in flight, each maybe re-asked
                in_flight = 2 * max(1, min(int(self.settings.concurrency), MAX_CONCURRENCY))
                sent = usage.answered + usage.failed + (0 if fresh is not None else in_flight)
                spent = self.settings.cost(usage.prompt_tokens, usage.completion_tokens) if fresh is not None else None
                access.refund(charged, max(reserved - sent, 0),
                              None if reserved_cost is None or spent is None else max(reserved_cost - spent, 0.0))
        values: dict[str, float | None] = {k: c.value for k, c in cached.items()}
        values.update({k: o.value for k, o in fresh.items()})
        frame = pd.DataFrame({q: [_nan(values.get(keys[q])) for keys in per_pair]
                              for q in ("sta", "sim", "fl_in", "fl_out")}, dtype="float64")
        fl = np.where(frame["fl_out"] >= frame["fl_in"], 1.0, 0.0)
        frame["fl"] = np.where(frame["fl_in"].isna() | frame["fl_out"].isna(), np.nan, fl)
        frame["j"] = frame["sta"] * frame["sim"] * frame["fl"]
        usage.missing = {axis: int(frame[axis].isna().sum()) for axis in ("sta", "sim", "fl", "j")}
        usage.cost = self.settings.cost(usage.prompt_tokens, usage.completion_tokens)
        return frame, usage


@dataclass
class _Signals:
    stop: threading.Event = field(default_factory=threading.Event)  # the first Ctrl-C / SIGTERM
    now: threading.Event = field(default_factory=threading.Event)  # a second one


@contextmanager
def _stop_signals() -> Iterator[_Signals]:
    """During a run, Ctrl-C and SIGTERM set flags that the run checks, instead of raising
    KeyboardInterrupt wherever the main thread is: raised inside ``concurrent.futures.wait``
    it can leave a future's lock taken, and the worker threads (which the interpreter joins
    at exit) blocked for ever. The first signal asks for a graceful stop, a second for an
    immediate one. Outside the main thread (the app's sessions) signals are left alone."""
    signals = _Signals()
    if threading.current_thread() is not threading.main_thread():
        yield signals
        return

    def handler(signum, frame) -> None:
        (signals.now if signals.stop.is_set() else signals.stop).set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield signals
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def unconfigured_message(endpoint: Endpoint) -> str:
    """Why the judge cannot run, and what to set."""
    missing = " and ".join(endpoint.missing()) or "an endpoint"
    return (f"The LLM judge has no endpoint: set {missing}. Any chat-completions server works (OpenAI, vLLM, "
            "llama.cpp, Ollama): environment variables OPENAI_BASE_URL, DETOX_LLM_MODEL and OPENAI_API_KEY, or "
            "base_url, model and api_key under [llm_judge] in .streamlit/secrets.toml, or the organizers' LLM "
            "judge settings in the sidebar, or --llm-base-url / --llm-model on the command line.")
