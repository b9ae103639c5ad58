"""A chat-completions client (OpenAI, vLLM, llama.cpp, Ollama servers) that retries what
can be retried and never shows its key.

Retries (tenacity): 429, 5xx (and 408, 409, 425, :data:`RETRY_STATUS`), timeouts and
connection errors, at most :attr:`RetryPolicy.max_retries` times. Before retry *n* (1, 2, ...)
it waits the server's ``Retry-After`` (seconds or an HTTP date) when the answer had one, at
most :attr:`RetryPolicy.retry_after_cap`; otherwise exponential backoff with *full* jitter
(tenacity's ``wait_random_exponential``): a uniform draw between 0 and
``min(max_delay, base_delay * 2 ** (n - 1))`` seconds, so that concurrent callers do not retry
in step. Other 4xx answers (a wrong key, an unknown model) are not retried: they say what to
fix. Every HTTP request sent, retries included, is counted in :attr:`ChatClient.attempts`.
"""

from __future__ import annotations

import email.utils
import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from detox_core.errors import ScorerUnavailableError

log = logging.getLogger(__name__)

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}


class JudgeUnavailableError(ScorerUnavailableError):
    """The LLM judge cannot run: no endpoint configured, or the server refuses (a wrong
    key, an unknown model). The message says what to set; it never holds the key."""


class TransientError(Exception):
    """A request that failed after every retry (rate limits, server errors, timeouts)."""


class _Retryable(Exception):
    """One attempt's failure that a retry may fix; ``after``: the server's ``Retry-After`` (s)."""

    def __init__(self, what: str, after: float | None = None) -> None:
        super().__init__(what)
        self.after = after


def public_url(url: str) -> str:
    """``url`` without user name, password, query or fragment: what may be logged, cached
    and recorded in a signature."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class Endpoint:
    """Where the judge's requests go. ``key`` is never part of ``repr``, logs or caches."""

    base_url: str
    model: str
    key: str = field(default="", repr=False)

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    @property
    def public(self) -> str:
        return public_url(self.base_url)

    def missing(self) -> list[str]:
        """What is not set, in the words of the settings that set it."""
        return [what for what, value in (("the server's base URL (OPENAI_BASE_URL)", self.base_url),
                                         ("the model name (DETOX_LLM_MODEL)", self.model)) if not value]


@dataclass(frozen=True)
class RetryPolicy:
    """How long and how often to retry (seconds)."""

    max_retries: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    #: the longest ``Retry-After`` honoured; a longer one waits this long
    retry_after_cap: float = 60.0
    timeout: float = 60.0


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - (now if now is not None else datetime.now(timezone.utc).timestamp()))


@dataclass
class Reply:
    text: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatClient:
    """Sends chat-completions requests; one HTTP session per thread."""

    def __init__(self, endpoint: Endpoint, policy: RetryPolicy | None = None, sleep=time.sleep) -> None:
        self.endpoint = endpoint
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._local = threading.local()
        self._lock = threading.Lock()
        self.attempts = 0  # HTTP requests sent, retries included
        self.retries = 0

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def _wait(self, state: RetryCallState) -> float:
        """Seconds before the next attempt: the last answer's ``Retry-After`` (capped) when it
        had one, else exponential backoff with full jitter."""
        failure = state.outcome.exception() if state.outcome is not None else None
        after = getattr(failure, "after", None)
        if after is not None:
            return min(after, self.policy.retry_after_cap)
        return wait_random_exponential(multiplier=self.policy.base_delay, max=self.policy.max_delay)(state)

    def _before_sleep(self, state: RetryCallState) -> None:
        with self._lock:
            self.retries += 1
        log.info("LLM judge: %s from %s; retry %d in %.2f s", state.outcome.exception(), self.endpoint.public,
                 state.attempt_number, state.upcoming_sleep)

    def chat(self, messages: list[dict[str, str]], settings: dict[str, Any]) -> Reply:
        """One completion's text (None when the reply holds none) and its token counts.

        Raises:
            JudgeUnavailableError: the server refuses for a reason a retry cannot fix.
            TransientError: still failing after every retry.
        """
        url = self.endpoint.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if self.endpoint.key:
            headers["Authorization"] = f"Bearer {self.endpoint.key}"
        body = {"model": self.endpoint.model, "messages": messages, **settings}
        retrying = Retrying(stop=stop_after_attempt(self.policy.max_retries + 1), wait=self._wait,
                            retry=retry_if_exception_type(_Retryable), sleep=self._sleep,
                            before_sleep=self._before_sleep, reraise=True)
        try:
            return retrying(self._attempt, url, body, headers)
        except _Retryable as err:
            raise TransientError(f"{err} after {self.policy.max_retries + 1} attempts") from None

    def _attempt(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        """One HTTP request (counted in :attr:`attempts`)."""
        with self._lock:
            self.attempts += 1
        try:
            resp = self._session().post(url, json=body, headers=headers, timeout=self.policy.timeout)
        except (requests.Timeout, requests.ConnectionError) as err:
            raise _Retryable(type(err).__name__) from err
        if resp.status_code == 200:
            return _reply(resp)
        if resp.status_code in (401, 403):
            raise JudgeUnavailableError(
                f"the LLM judge's server {self.endpoint.public} refused the key (HTTP {resp.status_code}): "
                "set OPENAI_API_KEY, or api_key under [llm_judge] in .streamlit/secrets.toml")
        if resp.status_code not in RETRY_STATUS:
            raise JudgeUnavailableError(
                f"the LLM judge's server {self.endpoint.public} answered HTTP {resp.status_code} for model "
                f"{self.endpoint.model!r}: {_error_text(resp)}")
        raise _Retryable(f"HTTP {resp.status_code}", retry_after(resp.headers.get("Retry-After")))


def _reply(resp: requests.Response) -> Reply:
    """The answer text of a 200 reply; a body that is not the expected JSON holds none
    (then the caller re-asks, and a second failure is a missing answer)."""
    try:
        data = resp.json()
        text = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return Reply(None)
    usage = data.get("usage") or {}
    return Reply(text if isinstance(text, str) else None, int(usage.get("prompt_tokens") or 0),
                 int(usage.get("completion_tokens") or 0))


def _error_text(resp: requests.Response) -> str:
    try:
        message = resp.json().get("error", {})
        message = message.get("message", "") if isinstance(message, dict) else str(message)
    except (ValueError, AttributeError):
        message = resp.text
    return " ".join(str(message).split())[:200] or "no details"
