"""The LLM rewriter (Live scoring's "Suggest with the LLM") against a real HTTP server on
127.0.0.1 (tests/llm/fake_llm.py): rewrites and their cost, retries, timeouts, refusals,
markup kept as text, the versioned few-shot prompt per language, the visitors' rule."""

from __future__ import annotations

import pytest

from detox_core.errors import DetoxInputError, ScorerUnavailableError
from detox_core.llm import access
from detox_core.llm.client import ChatClient, Endpoint, RetryPolicy
from detox_core.llm.runner import JudgeSettings
from detox_core.rewriters.llm import (
    BUILTIN_PROMPT,
    LIVE_POLICY,
    LLMRewriter,
    Shots,
    few_shot,
    live_policy,
    parse_rewrites,
    worst_wait,
)
from tests.llm.fake_llm import MARKUP_MARK, REFUSE_MARK, SLOW_MARK, FakeLLM, Faults

FAST = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.02, retry_after_cap=0.1, timeout=10.0)


def rewriter(server: FakeLLM, policy: RetryPolicy = FAST, key: str = "sk-REWRITE-SECRET") -> LLMRewriter:
    endpoint = Endpoint(server.url, "rewrite-model", key)
    settings = JudgeSettings(endpoint=endpoint, price_in=1.0, price_out=2.0, policy=policy)
    return LLMRewriter(settings, client=ChatClient(endpoint, policy))


def test_a_good_answer_gives_n_rewrites_and_what_they_cost(tiny_data):
    with FakeLLM() as server:
        result = rewriter(server).rewrite("ты дебил, иди отсюда", "ru", n=3)
    assert result.error is None and len(result.rewrites) == 3
    assert result.rewrites[0] == "Ты не прав, иди отсюда" and not any(result.copies)
    assert all("дебил" not in r for r in result.rewrites)
    usage = result.usage
    assert usage.requests == 1 and usage.attempts == 1 and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.cost == pytest.approx((usage.prompt_tokens * 1.0 + usage.completion_tokens * 2.0) / 1e6)
    assert "1 request" in usage.text() and "$" in usage.text()
    assert result.prompt_version == "textdetox-rewrite@1" and result.prompt_tag.startswith("textdetox-rewrite@1#")
    assert result.record()["prompt_version"] == "textdetox-rewrite@1"
    assert server.stats.requests == 1


def test_server_errors_are_retried_then_the_answer_is_used(tiny_data):
    with FakeLLM(Faults(fail_first=2)) as server:
        result = rewriter(server).rewrite("ты дебил", "ru", n=2)
        assert server.stats.status[500] == 2 and server.stats.requests == 3
    assert result.error is None and len(result.rewrites) == 2 and result.usage.attempts == 3


def test_a_server_that_keeps_failing_is_said_once_without_its_host_or_key(tiny_data):
    with FakeLLM(Faults(fail_first=100)) as server:
        result = rewriter(server).rewrite("ты дебил", "ru", n=2)
    assert not result.rewrites and result.error == "The LLM server kept failing (HTTP 500) (3 attempts)."
    assert "127.0.0.1" not in result.error and "127.0.0.1" in result.detail
    assert "sk-REWRITE-SECRET" not in result.error + result.detail


def test_a_slow_answer_is_bounded_by_the_timeout(tiny_data):
    policy = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.01, timeout=0.5)
    with FakeLLM(Faults(slow_seconds=3.0)) as server:
        result = rewriter(server, policy).rewrite(f"ты дебил {SLOW_MARK}", "ru", n=2)
    # two attempts cut at 0.5 s each (the server would take 3 s): said so
    assert not result.rewrites and result.error == "The LLM server did not answer within 0.5 s (2 attempts)."


def test_the_live_policy_never_waits_longer_than_the_judges_own():
    assert live_policy(RetryPolicy()) == LIVE_POLICY  # the judge's 60 s and 6 retries are too long for a page
    short = live_policy(RetryPolicy(timeout=3.0, max_retries=0))
    assert short.timeout == 3.0 and short.max_retries == 0


def test_a_refusal_is_reported_as_a_refusal_not_as_a_rewrite(tiny_data):
    with FakeLLM() as server:
        result = rewriter(server).rewrite(f"ты дебил {REFUSE_MARK}", "ru", n=3)
    assert result.refused and not result.rewrites
    assert result.error == "The LLM declined to rewrite this text."
    assert result.usage.requests == 1 and result.usage.completion_tokens > 0  # it was still paid for
    assert parse_rewrites("Извините, я не могу помочь с этим.", 3).refused
    # A refusal line beside real rewrites is dropped, the rewrites kept.
    parsed = parse_rewrites("I can't rewrite everything, but:\n1. you are wrong", 3)
    assert parsed.rewrites == ["you are wrong"] and not parsed.refused


def test_markup_in_the_answer_is_kept_as_text(tiny_data):
    with FakeLLM() as server:
        result = rewriter(server).rewrite(f"ты дебил {MARKUP_MARK}", "ru", n=3)
    assert result.rewrites == ("<b>bold</b> words", "**stars** here", "<script>alert(1)</script> quiet")


def test_the_answer_is_parsed_leniently_deduplicated_and_capped():
    assert parse_rewrites('```json\n{"rewrites": ["a b", "A  B", "", "c"]}\n```', 5).rewrites == ["a b", "c"]
    assert parse_rewrites('["x", {"text": "y"}, 3]', 5).rewrites == ["x", "y"]
    assert parse_rewrites("Sure! Here you go:\n- «one»\n- two\n- three", 2).rewrites == ["one", "two"]
    assert parse_rewrites("1) one\n2) two\n3) " + "x" * 1001, 5).rewrites == ["one", "two"]
    assert parse_rewrites("just a line", 3).rewrites == ["just a line"]
    assert parse_rewrites("a\x00b", 3).rewrites == ["a b"]  # a NUL would be refused by the page's boxes
    assert parse_rewrites("", 3).rewrites == [] and not parse_rewrites("", 3).refused


def test_a_copy_of_the_input_is_kept_and_marked(tiny_data):
    with FakeLLM() as server:
        result = rewriter(server).rewrite("you are wrong", "en", n=2)  # nothing rude: the first rewrite is the input
    assert result.rewrites[0] == "You are wrong" and result.copies == (True, False)


def test_the_prompt_of_each_language_holds_its_examples_and_version(tiny_data):
    ru = few_shot("ru")  # the tiny corpus's train pairs (the edition's own data come first)
    assert ru.source.startswith("RUSSE-2022 train") and ru.examples
    messages = BUILTIN_PROMPT.messages("ты дебил", "ru", 3, ru)
    assert messages[1]["content"].endswith("Text: " + ru.examples[0].toxic)
    assert messages[2]["content"] == "1. " + ru.examples[0].neutral
    assert "Russian" in messages[-1]["content"] and "Give 3 different rewrites" in messages[-1]["content"]
    # The input itself is never its own example.
    assert all(e.toxic != ru.examples[0].toxic for e in few_shot("ru", exclude=ru.examples[0].toxic).examples)
    # No TextDetox references here: the built-in, labelled examples; none at all for Tatar.
    de = few_shot("de")
    assert de.source.startswith("built-in:") and "TextDetox organizers" in de.source
    assert any("Jahr" in m["content"] for m in BUILTIN_PROMPT.messages("x", "de", 1, de))
    zh = BUILTIN_PROMPT.messages("x", "zh", 1, few_shot("zh"))
    assert any("卧槽" in m["content"] for m in zh) and not any("Jahr" in m["content"] for m in zh)
    tt = few_shot("tt")
    assert not tt.examples and "zero-shot" in tt.source
    # The version names the prompt; the tag changes with the examples sent.
    tags = {BUILTIN_PROMPT.tag(lang, few_shot(lang)) for lang in ("ru", "de", "zh", "tt")}
    assert len(tags) == 4 and all(t.startswith("textdetox-rewrite@1#") for t in tags)


def _dev_references(root) -> None:
    """Two English development references of TextDetox 2024 in the data folder ``root``."""
    base = root / "textdetox2024"
    base.mkdir()
    (base / "dev_references.tsv").write_text(
        "toxic_sentence\tneutral_sentence\tlang\n"
        "this damn meeting never ends\tthis meeting never ends\ten\n"
        "shut up you stupid clown\tplease stop talking\ten\n", encoding="utf-8")


def test_fetched_textdetox_references_are_the_examples(tiny_data):
    _dev_references(tiny_data)
    shots = few_shot("en", editions=["textdetox2024"], root=tiny_data)
    assert shots.source == "TextDetox 2024 dev (dev_references.tsv)"
    assert {e.toxic for e in shots.examples} == {"this damn meeting never ends", "shut up you stupid clown"}


def test_a_test_sets_pairs_are_never_the_examples(tiny_data):
    """TextDetox 2024's development set is TextDetox 2025's test set (the held-out registry):
    its references are then no examples, and the built-in ones are sent."""
    _dev_references(tiny_data)
    (tiny_data / "textdetox2025").mkdir()
    (tiny_data / "textdetox2025" / "test_inputs.tsv").write_text(
        "toxic_sentence\tlang\nThis damn meeting never ends!\ten\nshut up you stupid clown\ten\n", encoding="utf-8")
    shots = few_shot("en", editions=["textdetox2024"], root=tiny_data)
    assert shots.source.startswith("built-in:")
    assert not {e.toxic for e in shots.examples} & {"this damn meeting never ends", "shut up you stupid clown"}


def test_requests_are_bounded_before_anything_is_sent(tiny_data):
    with FakeLLM() as server:
        r = rewriter(server)
        for text, n in (("", 2), ("x" * 1001, 2), ("ты дебил", 0), ("ты дебил", 6)):
            with pytest.raises(DetoxInputError):
                r.rewrite(text, "ru", n=n, shots=Shots((), "none"))
        assert server.stats.requests == 0
    with pytest.raises(ScorerUnavailableError) as err:
        LLMRewriter(JudgeSettings(endpoint=Endpoint("", "")))
    assert "organizer can set one" in str(err.value)


def test_a_visitor_is_refused_unless_the_organizers_opted_in_and_charged_before_sending(tiny_data):
    allowance = access.allowance()
    before = allowance.policy
    try:
        with FakeLLM() as server, access.visitor_run("203.0.113.7"):
            allowance.set_policy(access.VisitorPolicy(visitors=False))
            result = rewriter(server).rewrite("ты дебил", "ru", n=2)
            assert "for its organizers" in result.error and result.usage.requests == 0
            assert server.stats.requests == 0
            allowance.set_policy(access.VisitorPolicy(visitors=True, requests_per_hour=1, daily_requests=100))
            assert rewriter(server).rewrite("ты дебил", "ru", n=2).rewrites
            second = rewriter(server).rewrite("ты дебил", "ru", n=2)
            assert "visitors may send 1 an hour" in second.error and server.stats.requests == 1
    finally:
        allowance.set_policy(before)
        allowance._by_client.clear()
        allowance._all.clear()


def test_the_wait_a_page_announces_covers_a_retry_after_longer_than_the_backoff():
    # Every attempt times out and the server asks for the longest Retry-After the policy honours:
    # the wait the page announces is not shorter than that.
    policy = RetryPolicy(max_retries=2, base_delay=0.5, max_delay=1.0, retry_after_cap=5.0, timeout=3.0)
    assert worst_wait(policy) == 3.0 * 3 + 5.0 * 2
    backoff_longer = RetryPolicy(max_retries=1, base_delay=0.5, max_delay=4.0, retry_after_cap=1.0, timeout=3.0)
    assert worst_wait(backoff_longer) == 3.0 * 2 + 4.0
