"""The acceptance test at a small scale: 300 pairs (50 inputs x 6 systems) scored by the
CLI against the local server with injected faults (10% 429, 5% 500, 2% garbage), killed
midway, restarted: every pair scored or flagged, nothing charged twice but the answers the
killed run had not stored, and a third run costs nothing; stopped with SIGTERM (as Ctrl-C)
instead, nothing at all is charged twice."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pandas as pd

from detox_core.data import PROJECT_ROOT
from tests.llm.fake_llm import FakeLLM, Faults

N_INPUTS, SYSTEMS, CONCURRENCY = 50, 6, 4


def _files(tmp_path):
    inputs = [f"ты тупой идиот номер {i}, заткнись" for i in range(N_INPUTS)]
    corpus = tmp_path / "inputs.tsv"
    corpus.write_text("toxic_comment\n" + "\n".join(inputs) + "\n", encoding="utf-8")
    preds = []
    for s in range(SYSTEMS):
        path = tmp_path / f"system{s}.txt"
        path.write_text("\n".join(f"ты неправ, номер {i}, вариант {s}" for i in range(N_INPUTS)) + "\n", encoding="utf-8")
        preds.append(str(path))
    return corpus, preds


def _run(tmp_path, server: FakeLLM, corpus, preds, out: str) -> subprocess.Popen:
    env = {**os.environ, "OPENAI_BASE_URL": server.url, "DETOX_LLM_MODEL": "judge-model",
           "OPENAI_API_KEY": "sk-test", "DETOX_DB_URL": f"sqlite:///{tmp_path / 'judge.sqlite'}"}
    cmd = [sys.executable, "-m", "detox_core", "score", "--inputs", str(corpus), "--preds", *preds,
           "--preset", "llm-judge", "--out", str(tmp_path / out), "--llm-concurrency", str(CONCURRENCY), "-q",
           "--llm-timeout", "5"]
    return subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_killed_run_resumes_from_the_cache(tmp_path):
    corpus, preds = _files(tmp_path)
    faults = Faults(rate_429=0.10, rate_500=0.05, rate_garbage=0.02, retry_after="0.05", latency=0.01, seed=7)
    needed = SYSTEMS * N_INPUTS * 3 + N_INPUTS  # 3 questions a pair, each input's fluency once
    with FakeLLM(faults) as server:
        first = _run(tmp_path, server, corpus, preds, "first")
        deadline = time.monotonic() + 120
        while sum(server.stats.charged.values()) < needed // 3 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert first.poll() is None, "the run ended before it could be killed"
        first.kill()
        first.wait()
        charged_before = sum(server.stats.charged.values())
        assert 0 < charged_before < needed
        import sqlite3

        with sqlite3.connect(tmp_path / "judge.sqlite") as db:
            stored = db.execute("SELECT COUNT(*) FROM llm_judge_responses").fetchone()[0]
        assert 0 < stored <= charged_before

        second = _run(tmp_path, server, corpus, preds, "second")
        _, err = second.communicate(timeout=300)
        assert second.returncode == 0, err
        # Only answers the killed run had not stored (in flight, or waiting for the writer) are
        # paid again: every stored one is served by the cache.
        twice = sum(1 for n in server.stats.charged.values() if n > 1)
        assert twice <= charged_before - stored
        assert max(server.stats.charged.values()) <= 2

        # Every pair scored or flagged missing (NaN), none made up.
        scores = pd.concat([pd.read_csv(tmp_path / "second" / f"system{s}.scores.csv") for s in range(SYSTEMS)])
        assert len(scores) == SYSTEMS * N_INPUTS
        assert scores["j"].notna().mean() > 0.95
        assert set(scores["sta"].dropna()) <= {0, 0.5, 1} and set(scores["sim"].dropna()) <= {0, 1}

        # A third run is served by the cache: the server sees no request at all.
        asked = server.stats.requests
        third = _run(tmp_path, server, corpus, preds, "third")
        _, err = third.communicate(timeout=300)
        assert third.returncode == 0, err
        failed_before = server.stats.requests - asked
        again = pd.concat([pd.read_csv(tmp_path / "third" / f"system{s}.scores.csv") for s in range(SYSTEMS)])
        # Only answers that could not be had (requests that kept failing) are asked again.
        assert failed_before <= scores["j"].isna().sum() * 3 * 7
        assert again["j"].notna().sum() >= scores["j"].notna().sum()


def test_a_stopped_run_keeps_the_answers_in_flight_and_nothing_is_paid_twice(tmp_path):
    """SIGTERM (or Ctrl-C) stops the CLI gracefully: nothing new is asked, the answers of the
    requests already sent are stored, so the rerun pays for no question twice."""
    import signal

    corpus, preds = _files(tmp_path)
    faults = Faults(rate_429=0.10, rate_500=0.05, rate_garbage=0.02, retry_after="0.05", latency=0.05, seed=11)
    needed = SYSTEMS * N_INPUTS * 3 + N_INPUTS
    with FakeLLM(faults) as server:
        first = _run(tmp_path, server, corpus, preds, "first")
        deadline = time.monotonic() + 120
        while sum(server.stats.charged.values()) < needed // 3 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert first.poll() is None, "the run ended before it could be stopped"
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=60)
        assert first.returncode == 130 and "run the same command again" in err
        charged_before = sum(server.stats.charged.values())
        assert 0 < charged_before < needed

        second = _run(tmp_path, server, corpus, preds, "second")
        _, err = second.communicate(timeout=300)
        assert second.returncode == 0, err
        assert max(server.stats.charged.values()) == 1  # no question paid twice
