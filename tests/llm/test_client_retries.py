"""The chat client's retries, as its docstring says: which answers are retried, how long it
waits before each retry (the server's Retry-After, else exponential backoff with full jitter),
the attempt limit, and every request counted. The server is scripted; the waits are recorded,
not slept."""

from __future__ import annotations

import json

import pytest
import requests

from detox_core.llm.client import ChatClient, Endpoint, JudgeUnavailableError, RetryPolicy, TransientError

POLICY = RetryPolicy(max_retries=4, base_delay=1.0, max_delay=5.0, retry_after_cap=20.0, timeout=10.0)
OK = {"choices": [{"message": {"content": "fine"}}], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}


def answer(status: int, body: dict | None = None, retry_after: str | None = None) -> requests.Response:
    resp = requests.Response()
    resp.status_code = status
    resp._content = json.dumps(body or {"error": {"message": f"status {status}"}}).encode()
    if retry_after is not None:
        resp.headers["Retry-After"] = retry_after
    return resp


class Script:
    """A session whose ``post`` answers (or raises) what is listed, in order."""

    def __init__(self, *answers) -> None:
        self.answers = list(answers)
        self.sent = 0

    def post(self, *args, **kwargs) -> requests.Response:
        self.sent += 1
        got = self.answers.pop(0)
        if isinstance(got, Exception):
            raise got
        return got


def client(script: Script, policy: RetryPolicy = POLICY) -> tuple[ChatClient, list[float]]:
    waits: list[float] = []
    c = ChatClient(Endpoint("http://llm.test/v1", "m", "sk-KEY"), policy, sleep=waits.append)
    c._session = lambda: script
    return c, waits


def chat(c: ChatClient):
    return c.chat([{"role": "user", "content": "hi"}], {})


@pytest.mark.parametrize("fault", [answer(429), answer(500), answer(503), answer(529), requests.Timeout("slow"),
                                   requests.ConnectionError("refused")],
                         ids=["429", "500", "503", "529", "timeout", "connection"])
def test_a_transient_fault_is_retried_and_every_attempt_counted(fault):
    script = Script(fault, fault, answer(200, OK))
    c, waits = client(script)
    reply = chat(c)
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("fine", 7, 3)
    assert script.sent == 3 and c.attempts == 3 and c.retries == 2 and len(waits) == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_an_answer_a_retry_cannot_fix_is_not_retried(status):
    script = Script(answer(status), answer(200, OK))
    c, waits = client(script)
    with pytest.raises(JudgeUnavailableError, match=f"HTTP {status}") as err:
        chat(c)
    assert "sk-KEY" not in str(err.value)
    assert script.sent == 1 and c.attempts == 1 and waits == []


def test_the_attempt_limit_then_a_transient_error_naming_the_last_fault():
    script = Script(*[answer(502)] * 4, requests.Timeout("slow"), answer(200, OK))
    c, waits = client(script)
    with pytest.raises(TransientError, match=r"^Timeout after 5 attempts$"):
        chat(c)
    assert script.sent == 5 and c.attempts == 5 and c.retries == 4 and len(waits) == 4
    c0, waits0 = client(Script(answer(500), answer(200, OK)), RetryPolicy(max_retries=0))
    with pytest.raises(TransientError, match="HTTP 500 after 1 attempts"):
        chat(c0)
    assert c0.attempts == 1 and waits0 == []


def test_retry_after_is_waited_up_to_its_cap():
    script = Script(answer(429, retry_after="3"), answer(503, retry_after="120"), answer(429, retry_after="soon"),
                    answer(200, OK))
    c, waits = client(script)
    assert chat(c).text == "fine"
    assert waits[:2] == [3.0, 20.0]  # as the server asked; a longer wait is cut to retry_after_cap
    assert 0 <= waits[2] <= 4.0  # an unreadable Retry-After: the backoff's (third retry: up to 1 * 2**2)


def test_backoff_is_exponential_with_full_jitter():
    """Before retry n, a uniform draw in [0, min(max_delay, base_delay * 2**(n-1))]: the whole
    window, not only its upper half (equal jitter), so concurrent callers spread out."""
    draws: dict[int, list[float]] = {1: [], 2: [], 3: [], 4: []}
    for _ in range(60):
        c, waits = client(Script(*[answer(500)] * 5))
        with pytest.raises(TransientError):
            chat(c)
        for n, wait in enumerate(waits, start=1):
            draws[n].append(wait)
    for n, cap in {1: 1.0, 2: 2.0, 3: 4.0, 4: 5.0}.items():  # base 1 s doubling, cut at max_delay 5 s
        assert all(0 <= w <= cap for w in draws[n]), n
        # 60 draws each: with full jitter some fall in the lower half of the window and some in
        # the upper (each miss has a chance of 2**-60).
        assert min(draws[n]) < cap / 2 < max(draws[n]), n
