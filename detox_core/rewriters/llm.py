"""Rewrites from a chat-completions LLM: the suggestions of the Live scoring page.

The endpoint, key, prices and visitor rules are the LLM judge's (:mod:`.settings`,
:mod:`.access`): whoever may run the judge may ask for rewrites, a visitor's request is
charged to the visitors' allowance (or refused) before anything is sent, and the same
:class:`~detox_core.llm.client.ChatClient` sends it, with a shorter timeout and fewer
retries (:data:`LIVE_POLICY`): a page waits for the answer.

One request asks for ``n`` rewrites at once (a numbered list), with a versioned few-shot
prompt per language (``rewrite_prompt.toml``; its provenance is written there). The
answer is parsed leniently: a JSON list or object, a numbered or bulleted list, or plain
lines. Rewrites are whitespace-normalised, deduplicated, capped at ``n``; empty ones and
ones longer than :data:`~detox_core.limits.MAX_TEXT_CHARS` are dropped (and
counted). A rewrite equal to the input is **kept and marked** (``copies``): an LLM that
copies the input is worth seeing scored. An answer that only declines ("I can't help
with that") is a refusal, never a rewrite. Markup in the answer (``<b>``, ``**``) is
kept as text: the page shows it escaped.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from detox_core.errors import DetoxInputError
from detox_core.llm import access
from detox_core.llm.client import ChatClient, JudgeUnavailableError, RetryPolicy, TransientError
from detox_core.rewriters.prompts import BUILTIN_PROMPT, Example, RewritePrompt, Shots, few_shot, key_of
from detox_core.llm.runner import CHARS_PER_TOKEN, JudgeSettings, cost_text
from detox_core.limits import MAX_TEXT_CHARS

__all__ = ["BUILTIN_PROMPT", "LIVE_POLICY", "MAX_REWRITES", "Example", "LLMRewriter", "RewritePrompt", "RewriteResult",
           "RewriteUsage", "Shots", "few_shot", "live_policy", "parse_rewrites", "worst_wait"]

log = logging.getLogger(__name__)

#: Most rewrites one request may ask for.
MAX_REWRITES = 5
#: Sampling of the official TextDetox 2025 LLM baseline (rewrites should differ).
TEMPERATURE = 1.0
TOP_P = 1.0
#: A page waits for the answer: at most 15 s per attempt and one retry (about 32 s in all,
#: backoff included); the judge's own settings may only make it shorter.
LIVE_POLICY = RetryPolicy(max_retries=1, base_delay=0.5, max_delay=2.0, retry_after_cap=2.0, timeout=15.0)


# ---------------------------------------------------------------------- parsing

_FENCE = re.compile(r"^```[\w-]*\s*\n?|\n?\s*```\s*$")
_ITEM = re.compile(r"^\s*(?:\(?\d{1,2}\s*[.)\]:。、]|[-*•–]\s)\s*(.*)$")
_QUOTES = {'"': '"', "“": "”", "«": "»", "'": "'", "„": "“", "「": "」"}
_REFUSAL = re.compile(
    r"^\W*(?:i['’]?m sorry|i am sorry|sorry\b|i can['’]?t\b|i cannot\b|i can not\b|i won['’]?t\b|i will not\b|"
    r"i['’]?m (?:not able|unable)|i am (?:not able|unable)|i must decline|as an ai\b|i apologi[sz]e|"
    r"unfortunately,? i\b|извините|к сожалению|я не могу|вибачте|на жаль)", re.IGNORECASE)
_PREAMBLE = re.compile(r"^(?:here (?:are|is)|sure|certainly|of course|rewrites?|вот|конечно)\b.*:?\s*$|.*:\s*$",
                       re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _clean(item: str) -> str:
    item = " ".join(_CONTROL.sub(" ", item).split())
    if len(item) >= 2 and item[0] in _QUOTES and item[-1] == _QUOTES[item[0]]:
        item = item[1:-1].strip()
    return item


def _json_items(text: str) -> list[str] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        data = lists[0] if lists else list(data.values())
    if not isinstance(data, list):
        return None
    items = []
    for v in data:
        if isinstance(v, dict):  # [{"rewrite": "..."}]
            v = next((x for x in v.values() if isinstance(x, str)), "")
        items.append(v if isinstance(v, str) else "")
    return items


@dataclass
class Parsed:
    rewrites: list[str]
    refused: bool = False
    dropped: int = 0  # empty, duplicate, too long, or past n


def parse_rewrites(answer: str | None, n: int) -> Parsed:
    """The rewrites of an answer (see the module docstring)."""
    text = _FENCE.sub("", (answer or "").strip()).strip()
    items = _json_items(text)
    refusals = 0
    if items is None:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        numbered = [m.group(1) for ln in lines if (m := _ITEM.match(ln))]
        if numbered:
            items = numbered
            refusals = sum(bool(_REFUSAL.match(ln)) for ln in lines if not _ITEM.match(ln))
        else:
            items = [ln for ln in lines if not _PREAMBLE.match(ln.strip())] if len(lines) > 1 else lines
    out: list[str] = []
    seen: set[str] = set()
    dropped = 0
    for raw in items:
        item = _clean(raw)
        if item and _REFUSAL.match(item):
            refusals += 1
            continue
        if not item or key_of(item) in seen or len(item) > MAX_TEXT_CHARS or len(out) >= n:
            dropped += 1
            continue
        seen.add(key_of(item))
        out.append(item)
    return Parsed(out, refused=not out and refusals > 0, dropped=dropped)


# ---------------------------------------------------------------------- asking


@dataclass
class RewriteUsage:
    """What one suggestion cost (the server's token counts)."""

    requests: int = 0  # requests charged to the run (0: refused by the limits)
    attempts: int = 0  # HTTP requests sent, retries included
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None

    def text(self) -> str:
        retries = f" ({self.attempts - 1} retried)" if self.attempts > 1 else ""
        return (f"{self.requests} request{retries}: {self.prompt_tokens:,} input and {self.completion_tokens:,} "
                f"output tokens, {cost_text(self.cost) if self.requests else 'nothing spent'}")


@dataclass
class RewriteResult:
    """The rewrites of one request, or why there are none.

    Attributes:
        rewrites: at most ``n``, in the answer's order.
        copies: per rewrite, whether it is the input unchanged (kept, marked).
        usage: tokens and cost.
        prompt_version: ``name@version`` of the prompt.
        prompt_tag: ``name@version#hash`` of what was sent but the text (examples included).
        examples: where the few-shot examples came from, and how many.
        error: a sentence for anyone (no host, no key, no model), or None.
        detail: the same for the organizers (may name the host; never the key).
        refused: the LLM declined to rewrite the text.
        dropped: items of the answer left out (empty, duplicate, too long, past ``n``).
    """

    rewrites: tuple[str, ...] = ()
    copies: tuple[bool, ...] = ()
    usage: RewriteUsage = field(default_factory=RewriteUsage)
    prompt_version: str = ""
    prompt_tag: str = ""
    examples: str = ""
    error: str | None = None
    detail: str | None = None
    refused: bool = False
    dropped: int = 0

    def record(self) -> dict[str, Any]:
        """A signature-like record of how the rewrites were made (no key, no host)."""
        return {"prompt_version": self.prompt_version, "prompt_tag": self.prompt_tag, "examples": self.examples,
                "temperature": TEMPERATURE, "top_p": TOP_P}


def unconfigured_message() -> str:
    return ("No LLM endpoint is set on this server: an organizer can set one in the sidebar under LLM judge "
            "(or OPENAI_BASE_URL and DETOX_LLM_MODEL, or [llm_judge] in .streamlit/secrets.toml).")


def live_policy(policy: RetryPolicy) -> RetryPolicy:
    """The judge's retry policy, bounded for a page that waits (:data:`LIVE_POLICY`)."""
    return replace(LIVE_POLICY, timeout=min(policy.timeout, LIVE_POLICY.timeout),
                   max_retries=min(policy.max_retries, LIVE_POLICY.max_retries))


def worst_wait(policy: RetryPolicy) -> float:
    """The longest a request under ``policy`` may take, in seconds (every attempt timing out,
    backoff included): what a page says it may wait."""
    return policy.timeout * (policy.max_retries + 1) + max(policy.max_delay, policy.retry_after_cap) * policy.max_retries


class LLMRewriter:
    """Asks the LLM judge's endpoint for detoxified rewrites.

    Args:
        settings: the judge's settings (:func:`detox_core.llm.settings.resolve`).
        client: the HTTP client (default: :class:`ChatClient` with :func:`live_policy`).
        prompt: the prompt (default: the built-in ``rewrite_prompt.toml``).

    Raises:
        JudgeUnavailableError: no endpoint configured.
    """

    def __init__(self, settings: JudgeSettings, client: ChatClient | None = None,
                 prompt: RewritePrompt = BUILTIN_PROMPT) -> None:
        if not settings.endpoint.configured:
            raise JudgeUnavailableError(unconfigured_message())
        self.settings = settings
        self.prompt = prompt
        self.client = client or ChatClient(settings.endpoint, live_policy(settings.policy))

    def max_tokens(self, text: str, n: int) -> int:
        """Room for ``n`` rewrites about as long as ``text`` (a token per ~2 characters of
        any script, plus numbering), capped."""
        return min(4096, 32 + n * (math.ceil(len(text) / 2) + 24))

    def rewrite(self, text: str, lang: str, n: int = 3, shots: Shots | None = None,
                editions: Sequence[str] = (), root: Path | None = None) -> RewriteResult:
        """Up to ``n`` rewrites of ``text`` (in language ``lang``) from one request.

        A server that fails, times out, refuses the key, or declines to rewrite gives a
        result with ``error`` set (nothing raised): the caller shows it once. A visitor
        over the limits is refused before anything is sent (``error`` set, nothing spent).

        Raises:
            DetoxInputError: an empty text, one over MAX_TEXT_CHARS, ``n`` outside 1..MAX_REWRITES.
        """
        text = text.strip()
        if not text:
            raise DetoxInputError("nothing to rewrite: the toxic sentence is empty")
        if len(text) > MAX_TEXT_CHARS:
            raise DetoxInputError(f"{len(text):,} characters; at most {MAX_TEXT_CHARS:,} are rewritten")
        if not 1 <= int(n) <= MAX_REWRITES:
            raise DetoxInputError(f"between 1 and {MAX_REWRITES} rewrites may be asked for, got {n}")
        n = int(n)
        shots = shots if shots is not None else few_shot(lang, editions, root, exclude=text, prompt=self.prompt)
        messages = self.prompt.messages(text, lang, n, shots)
        max_tokens = self.max_tokens(text, n)
        result = RewriteResult(prompt_version=self.prompt.label, prompt_tag=self.prompt.tag(lang, shots),
                               examples=f"{shots.source}, {len(shots.examples)} example(s)")
        estimate = math.ceil(sum(len(m["content"]) + 4 for m in messages) / CHARS_PER_TOKEN)
        try:
            # A visitor's request is counted, or refused, before it is sent (as the judge's runs).
            access.charge(1, self.settings.cost(estimate, max_tokens))
        except access.JudgeLimitError as err:
            result.error = result.detail = str(err)
            return result
        result.usage.requests = 1
        before = self.client.attempts
        try:
            reply = self.client.chat(messages, {"temperature": TEMPERATURE, "top_p": TOP_P, "max_tokens": max_tokens})
        except TransientError as err:
            result.usage.attempts = self.client.attempts - before
            result.error = self._transient(str(err))
            result.detail = result.error.replace("The LLM server", f"The LLM server at {self.settings.endpoint.public}", 1)
            return result
        except JudgeUnavailableError as err:
            result.usage.attempts = self.client.attempts - before
            code = re.search(r"HTTP (\d{3})", str(err))
            result.error = (f"The LLM server refused the request (HTTP {code.group(1) if code else '?'})"
                            + (": the API key is wrong or missing." if code and code.group(1) in ("401", "403")
                               else "."))
            result.detail = str(err)
            return result
        usage = result.usage
        usage.attempts = self.client.attempts - before
        usage.prompt_tokens, usage.completion_tokens = reply.prompt_tokens, reply.completion_tokens
        usage.cost = self.settings.cost(reply.prompt_tokens, reply.completion_tokens)
        if not (reply.text or "").strip():
            result.error = result.detail = "The LLM server's answer held no text."
            return result
        parsed = parse_rewrites(reply.text, n)
        result.dropped = parsed.dropped
        if parsed.refused:
            result.refused = True
            result.error = result.detail = "The LLM declined to rewrite this text."
            return result
        if not parsed.rewrites:
            result.error = result.detail = "No rewrite could be read from the LLM's answer."
            return result
        result.rewrites = tuple(parsed.rewrites)
        result.copies = tuple(key_of(r) == key_of(text) for r in parsed.rewrites)
        return result

    def _transient(self, message: str) -> str:
        attempts = re.search(r"after (\d+) attempts", message)
        tries = f" ({attempts.group(1)} attempts)" if attempts else ""
        if "Timeout" in message:
            return f"The LLM server did not answer within {self.client.policy.timeout:g} s{tries}."
        if "Connection" in message:
            return f"The LLM server could not be reached{tries}."
        status = re.search(r"HTTP \d{3}", message)
        return f"The LLM server kept failing ({status.group(0) if status else 'an error'}){tries}."
