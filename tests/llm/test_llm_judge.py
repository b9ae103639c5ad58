"""The llm-judge preset against a real HTTP server on 127.0.0.1 (tests/llm/fake_llm.py)
speaking the chat-completions API with scripted faults."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import numpy as np
import pytest

from detox_core.errors import DetoxInputError, ScorerUnavailableError
from detox_core.llm.cache import ResponseCache
from detox_core.llm.client import RetryPolicy, retry_after
from detox_core.llm.prompts import BUILTIN, BUILTIN_TEMPLATE, load_template, parse_template
from detox_core.llm.runner import JudgeSettings
from detox_core.llm.settings import resolve, set_server_settings
from detox_core.metrics import get_preset, preset_class
from tests.llm.fake_llm import GARBAGE_FIRST_MARK, GARBAGE_MARK, SLOW_MARK, FakeLLM, Faults, right_answer

# Short backoffs; a generous timeout, so that a loaded test machine (the server runs in the
# test's process) is not taken for a failing server.
FAST = RetryPolicy(max_retries=4, base_delay=0.01, max_delay=0.05, retry_after_cap=0.2, timeout=10.0)


@pytest.fixture
def cache(tmp_path):
    return ResponseCache(f"sqlite:///{tmp_path / 'judge.sqlite'}")


def judge(server: FakeLLM, cache: ResponseCache, **kw):
    policy = kw.pop("policy", FAST)
    settings = resolve(base_url=server.url, model="judge-model", api_key="sk-SECRET-123", **kw)
    settings = JudgeSettings(**{**settings.__dict__, "policy": policy})
    return get_preset("llm-judge", settings=settings, cache=cache)


def pairs(n: int, systems: int = 1) -> tuple[list[str], list[str]]:
    inputs = [f"you are a stupid idiot number {i}" for i in range(n)] * systems
    outputs = [f"you are wrong, person {i}, system {s}" for s in range(systems) for i in range(n)]
    return inputs, outputs


#: The 2025 meta-evaluation's scale (textdetox/eval-of-detox-eval), written here independently of
#: the project's templates: toxic_pairwise_score 1 when the input (text A) is the more toxic, 0.5
#: equal, 0 when the rewrite is; content_score 1 / 0; fluency 1 / 0.5 / 0 per text, and
#: fluency_score 1 when the rewrite is at least as fluent as the input.
OFFICIAL = {"sta": {"A": 1.0, "equal": 0.5, "B": 0.0}, "sim": {"yes": 1.0, "no": 0.0},
            "fl": {"fluent": 1.0, "partially": 0.5, "not": 0.0}}


def expected(inputs, outputs) -> np.ndarray:
    """J the server's scripted answers give, on the meta-evaluation's scale."""
    t = BUILTIN
    out = []
    for x, y in zip(inputs, outputs):
        sta = OFFICIAL["sta"][right_answer(t.messages("sta", {"input": x, "output": y}))]
        sim = OFFICIAL["sim"][right_answer(t.messages("sim", {"input": x, "output": y}))]
        fx = OFFICIAL["fl"][right_answer(t.messages("fl", {"text": x}))]
        fy = OFFICIAL["fl"][right_answer(t.messages("fl", {"text": y}))]
        out.append(sta * sim * float(fy >= fx))
    return np.array(out)


def test_scores_every_pair_and_a_rerun_costs_nothing(cache):
    inputs, outputs = pairs(20, systems=3)
    with FakeLLM() as server:
        preset = judge(server, cache, concurrency=4, price_in=2.0, price_out=8.0)
        before = preset.estimate(inputs, outputs)
        # 3 questions per pair + the fluency of each of the 20 inputs, asked once for the 3 systems.
        assert (before.requests, before.cached, before.to_send) == (200, 0, 200)
        assert before.cost is not None and before.cost > 0
        frame = preset.score(inputs, outputs)
        assert np.allclose(frame["j"], expected(inputs, outputs))
        assert set(frame["sta"]) <= {0, 0.5, 1} and set(frame["sim"]) <= {0, 1}
        usage = frame.attrs["llm_usage"]
        assert usage["answered"] == 200 and usage["prompt_tokens"] > 0 and usage["cost"] > 0
        assert server.stats.requests == 200 and max(server.stats.charged.values()) == 1
        # The key reached the server, and nothing else keeps it.
        assert server.stats.auth == {"Bearer sk-SECRET-123"}
        assert "sk-SECRET" not in repr(frame.attrs) and "sk-SECRET" not in repr(preset.settings)
        # A rerun is served by the cache: no request, the same numbers.
        again = preset.score(inputs, outputs)
        assert server.stats.requests == 200
        assert again.attrs["llm_usage"]["cached"] == 200 and again.attrs["llm_usage"]["cost"] == 0
        assert np.allclose(again["j"], frame["j"])
        assert preset.estimate(inputs, outputs).to_send == 0
    with cache.engine.connect() as conn:
        dump = "\n".join(str(row) for row in conn.exec_driver_sql("SELECT * FROM llm_judge_responses"))
    assert "sk-SECRET" not in dump and "judge-model" in dump


def test_faults_are_retried_and_never_charged_twice(cache):
    inputs, outputs = pairs(60, systems=2)
    faults = Faults(rate_429=0.2, rate_500=0.1, rate_garbage=0.05, rate_malformed=0.05, retry_after="0.01", seed=3)
    with FakeLLM(faults) as server:
        frame = judge(server, cache, concurrency=8).score(inputs, outputs)
        assert server.stats.status[429] > 0 and server.stats.status[500] > 0
        usage = frame.attrs["llm_usage"]
        assert usage["reasks"] > 0
        # Every pair is scored right or flagged missing (NaN, counted), never a made-up number.
        scored = frame["j"].notna()
        assert np.allclose(frame.loc[scored, "j"], expected(inputs, outputs)[scored])
        # (40% of requests fail or come back unreadable here: about 7 of 120 pairs end missing, up to 15
        # seen; an input's missing fluency takes both systems' pairs.)
        assert usage["missing"]["j"] == int((~scored).sum()) < len(frame) * 0.2
        assert max(server.stats.charged.values()) == 1
        # A rerun asks only what could not be had (requests that kept failing), charging nothing twice.
        again = judge(server, cache, concurrency=8).score(inputs, outputs)
        assert again.attrs["llm_usage"]["cached"] == usage["requests"] - usage["failed"]
        assert max(server.stats.charged.values()) == 1


def test_garbage_twice_is_missing_not_zero(cache):
    inputs = ["a calm text", f"you idiot {GARBAGE_MARK}"]
    outputs = ["a calm text again", "you are wrong"]
    with FakeLLM() as server:
        frame = judge(server, cache).score(inputs, outputs)
        assert not math.isnan(frame["j"][0])
        # Every question of the second pair mentions the mark: asked, re-asked, then missing.
        assert frame.loc[1, ["sta", "sim", "fl", "j"]].isna().all()
        usage = frame.attrs["llm_usage"]
        assert usage["unreadable"] == 3 and usage["missing"] == {"sta": 1, "sim": 1, "fl": 1, "j": 1}
        asked = server.stats.requests
        # An unreadable answer was charged: it is cached and not asked again on a rerun.
        judge(server, cache).score(inputs, outputs)
        assert server.stats.requests == asked


def test_an_unreadable_answer_whose_reask_failed_is_kept_and_only_the_reask_is_sent_again(cache):
    inputs, outputs = ["you idiot", "you fool"], [f"you are wrong {GARBAGE_FIRST_MARK}", "you are mistaken"]
    with FakeLLM(Faults(reask_down=True)) as server:
        frame = judge(server, cache).score(inputs, outputs)
        # STA, SIM and the output's fluency: unreadable, then their re-asks failed: missing, not zero.
        assert math.isnan(frame["j"][0]) and frame["j"][1] == expected(inputs, outputs)[1]
        usage = frame.attrs["llm_usage"]
        assert usage["failed"] == 3 and usage["missing"]["j"] == 1
        assert max(server.stats.charged.values()) == 1
        assert judge(server, cache).estimate(inputs, outputs).to_send == 3  # the three re-asks
        server.faults.reask_down = False
        asked = server.stats.requests
        again = judge(server, cache).score(inputs, outputs)
        # Only the re-asks went out, each once, and the first answers were not paid for again.
        assert server.stats.requests - asked == 3 and max(server.stats.charged.values()) == 1
        assert np.allclose(again["j"], expected(inputs, outputs))
        assert again.attrs["llm_usage"]["cached"] == usage["requests"] - 3
        # Now all is stored: a third run sends nothing.
        assert judge(server, cache).estimate(inputs, outputs).to_send == 0
        judge(server, cache).score(inputs, outputs)
        assert server.stats.requests - asked == 3


def test_a_slow_reply_past_the_timeout_is_missing_and_retried_next_time(cache):
    inputs, outputs = ["you idiot", "fine text"], [f"slow answer {SLOW_MARK}", "fine text too"]
    with FakeLLM(Faults(slow_seconds=4.0)) as server:
        policy = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.01, timeout=1.5)
        frame = judge(server, cache, policy=policy).score(inputs, outputs)
        assert math.isnan(frame["j"][0]) and not math.isnan(frame["j"][1])
        assert frame.attrs["llm_usage"]["failed"] >= 2  # sta, sim, fl of the output: no answer in time
        # Nothing was had, nothing is cached: a rerun asks again.
        assert judge(server, cache, policy=policy).estimate(inputs, outputs).to_send >= 2


def test_retry_after_seconds_and_http_date():
    assert retry_after("3") == 3.0
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now.timestamp()) == pytest.approx(30)
    assert retry_after("soon") is None and retry_after(None) is None


def test_a_refused_key_stops_the_run_and_is_not_shown(cache):
    with FakeLLM(key="the-right-key") as server:
        with pytest.raises(ScorerUnavailableError) as err:
            judge(server, cache).score(["a"], ["b"])
        assert "refused the key" in str(err.value) and "sk-SECRET" not in str(err.value)


def test_no_endpoint_says_what_to_set(monkeypatch, cache):
    for var in ("OPENAI_BASE_URL", "DETOX_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    set_server_settings()
    why = preset_class("llm-judge").unavailable()
    assert "OPENAI_BASE_URL" in why and "DETOX_LLM_MODEL" in why and "secrets.toml" in why
    with pytest.raises(ScorerUnavailableError, match="no endpoint"):
        get_preset("llm-judge", cache=cache).score(["a"], ["b"])
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DETOX_LLM_MODEL", "m")
    assert preset_class("llm-judge").unavailable() is None
    # The server-wide settings (organizers, secrets.toml) win over the environment.
    set_server_settings(model="other", concurrency=3)
    try:
        s = resolve()
        assert (s.endpoint.model, s.concurrency, s.endpoint.base_url) == ("other", 3, "http://127.0.0.1:9/v1")
    finally:
        set_server_settings()


def test_template_errors_name_the_file_and_line(tmp_path):
    good = parse_template(BUILTIN_TEMPLATE.replace('version = "1"', 'version = "2"'))
    assert good.tag == f"textdetox-judge@2#{BUILTIN.digest}"
    # The hash follows the prompts: an edit that forgot to bump the version still changes the tag.
    assert parse_template(BUILTIN_TEMPLATE.replace("one word only", "one word")).digest != BUILTIN.digest
    path = tmp_path / "mine.toml"
    path.write_text(BUILTIN_TEMPLATE.replace("Text B: {output}", "Text B: {outptu}"))
    with pytest.raises(DetoxInputError) as err:
        load_template(path)
    assert "mine.toml" in str(err.value) and "{outptu}" in str(err.value)
    assert err.value.line == BUILTIN_TEMPLATE.splitlines().index("[sta]") + 2
    path.write_text(BUILTIN_TEMPLATE.replace("equal = 0.5", "equal = 0.7"))
    with pytest.raises(DetoxInputError, match="expected one of 0, 0.5, 1") as err:
        load_template(path)
    assert err.value.line is not None
    path.write_text('name = "x"\nversion = "1"\n[sta\n')
    with pytest.raises(DetoxInputError, match="not a valid TOML") as err:
        load_template(path)
    assert err.value.line == 3


def test_few_shot_examples_per_language():
    text = BUILTIN_TEMPLATE + '\n[[examples]]\nquestion = "sim"\nlang = "de"\ninput = "Du Idiot"\n' \
        'output = "Du liegst falsch"\nanswer = "no"\n'
    t = parse_template(text)
    de = t.messages("sim", {"input": "x", "output": "y"}, "de")
    en = t.messages("sim", {"input": "x", "output": "y"}, "en")
    assert len(de) == len(en) + 2 and de[2] == {"role": "assistant", "content": "no"}
    assert "(in German)" in de[-1]["content"]
    assert t.parse("sim", " **Yes.** ") == 1.0 and t.parse("sim", "yes, they do") is None


def test_cli_says_what_to_set_and_names_a_bad_template(tmp_path, monkeypatch, capsys):
    from detox_core.cli import main

    for var in ("OPENAI_BASE_URL", "DETOX_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'db.sqlite'}")
    set_server_settings()
    (tmp_path / "in.txt").write_text("ты дебил\n", encoding="utf-8")
    (tmp_path / "out.txt").write_text("ты неправ\n", encoding="utf-8")
    args = ["score", "--inputs", str(tmp_path / "in.txt"), "--preds", str(tmp_path / "out.txt"), "--preset",
            "llm-judge", "--out", str(tmp_path / "scores"), "-q"]
    assert main(args) == 3
    assert "no endpoint" in capsys.readouterr().err and not (tmp_path / "scores").exists()
    bad = tmp_path / "judge.toml"
    bad.write_text('name = "x"\nversion = "1"\n[sta]\nprompt = "{input}"\n', encoding="utf-8")
    assert main([*args, "--llm-base-url", "http://127.0.0.1:9/v1", "--llm-model", "m", "--llm-template", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "judge.toml" in err and "line 4" in err


def test_languages_reach_the_prompts(cache):
    with FakeLLM() as server:
        preset = judge(server, cache)
        frame = preset.score(["Du Idiot", "ты дебил"], ["Du irrst dich", "ты неправ"], langs=["de", "ru"])
        assert frame["j"].notna().all()
        with cache.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM llm_judge_responses").scalar() == 8
    prompts = [m["content"] for r in preset.judge().plan(["Du Idiot"], ["Du irrst dich"], ["de"])[1].values()
               for m in r.messages]
    assert any("(in German)" in p for p in prompts)


def test_score_json_keeps_the_judges_estimate_and_cost(tmp_path, monkeypatch, capsys):
    # --json prints no notes on stderr; what they say (the requests and the cost) is in the object.
    import json

    from detox_core.cli import main

    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'db.sqlite'}")
    set_server_settings()
    (tmp_path / "in.txt").write_text("ты дебил\nэтот мудак врёт\n", encoding="utf-8")
    (tmp_path / "out.txt").write_text("ты неправ\nэтот человек врёт\n", encoding="utf-8")
    with FakeLLM() as server:
        code = main(["score", "--inputs", str(tmp_path / "in.txt"), "--preds", str(tmp_path / "out.txt"),
                     "--preset", "llm-judge", "--out", str(tmp_path / "scores"), "--llm-base-url", server.url,
                     "--llm-model", "judge-model", "--llm-price-in", "1.0", "--llm-price-out", "2.0", "--json"])
    captured = capsys.readouterr()
    assert code == 0
    (system,) = json.loads(captured.out)["systems"]
    notes = " ".join(system["notes"])
    assert "request" in notes and "$" in notes, system["notes"]
    assert 0 < system["j"] <= 1 and "llm" in system["signature"]
    assert "judge-model" in system["signature"]
    assert "$" not in captured.err  # the notes went into the object, not onto the terminal


def test_a_visitors_run_is_charged_every_request_it_sends_re_asks_included(cache):
    """Round 5: a 1-pair run charged 4 requests and sent 6 (its re-asks were free), so real
    spending could reach twice the visitors' budget. Now a run reserves its worst case and
    gives back what it did not send: the allowance counts what the server answered."""
    from detox_core.llm import access
    from detox_core.llm.access import VisitorAllowance, VisitorPolicy

    allowance = VisitorAllowance(VisitorPolicy(True, requests_per_hour=100, daily_requests=1000, daily_usd=None))
    before = access._ALLOWANCE
    access._ALLOWANCE = allowance
    try:
        inputs, outputs = ["you idiot", "you fool"], [f"you are wrong {GARBAGE_FIRST_MARK}", "you are mistaken"]
        with FakeLLM() as server, access.visitor_run("198.51.100.20"):
            judge(server, cache).score(inputs, outputs)
            sent = server.stats.requests
            assert sent > 7  # 7 unique questions, and the re-asks of the unreadable ones
            assert allowance.used("198.51.100.20")["hour"] == sent
            assert allowance.state()["requests_today"] == sent
            # The hour's allowance now holds 100 - sent: a run whose worst case passes it is refused whole.
            allowance.set_policy(VisitorPolicy(True, requests_per_hour=sent + 3, daily_requests=1000, daily_usd=None))
            more_in, more_out = ["you clown"], ["you are joking"]
            with pytest.raises(access.JudgeLimitError, match="an hour from one address"):
                judge(server, cache).score(more_in, more_out)  # 4 questions: up to 8 requests
            assert server.stats.requests == sent
    finally:
        access._ALLOWANCE = before
