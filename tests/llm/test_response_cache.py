"""The LLM judge's response cache shared by several app processes (a deployment behind
nginx on PostgreSQL, or processes on one SQLite file): the same answer stored by two
processes at once is kept once and never fails the run; a pending answer is replaced only
by an answered one."""

from __future__ import annotations

import threading

from detox_core.llm.cache import ResponseCache


def _row(key: str, value: float | None, pending: int = 0, answer: str = "1") -> dict:
    return {"key": key, "model": "m", "base_url": "http://judge", "template": "t:1", "question": "sta",
            "answer": answer, "value": value, "prompt_tokens": 10, "completion_tokens": 1, "pending": pending}


def test_two_processes_storing_the_same_answers_at_once_keep_them_once(sql_url):
    caches = [ResponseCache(sql_url), ResponseCache(sql_url)]  # two engines: two processes' pools
    keys = [f"{k:064x}" for k in range(200)]
    start, errors = threading.Barrier(len(caches) * 2), []

    def store(cache: ResponseCache, shift: int) -> None:
        start.wait()
        try:
            for k in range(0, len(keys), 20):  # batches as a judge writes them, overlapping the other's
                batch = keys[(k + shift) % len(keys):][:20] or keys[:20]
                cache.put_many([_row(key, 1.0) for key in batch])
        except Exception as err:  # noqa: BLE001 - the failure is the finding
            errors.append(err)

    threads = [threading.Thread(target=store, args=(c, shift)) for c in caches for shift in (0, 10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert caches[0].count() == len(keys)
    got = caches[1].get_many(keys)
    assert set(got) == set(keys) and {c.value for c in got.values()} == {1.0}


def test_a_pending_answer_is_replaced_only_by_an_answered_one(sql_url):
    cache = ResponseCache(sql_url)
    cache.put_many([_row("a" * 64, None, pending=1, answer="??"), _row("b" * 64, 0.0)])
    cache.put_many([_row("a" * 64, None, pending=1, answer="?? again"), _row("b" * 64, 1.0)])
    got = cache.get_many(["a" * 64, "b" * 64])
    assert got["a" * 64].pending and got["a" * 64].answer == "??"  # still waiting: the first stays
    assert got["b" * 64].value == 0.0  # an answered request is never overwritten
    cache.put_many([_row("a" * 64, 0.5, answer="0.5")])
    got = cache.get_many(["a" * 64])["a" * 64]
    assert not got.pending and got.value == 0.5 and got.answer == "0.5"
    # a batch without the optional columns is stored too
    cache.put_many([{"key": "c" * 64, "model": "m", "base_url": "u", "template": "t", "question": "sim"}])
    assert cache.get_many(["c" * 64])["c" * 64].prompt_tokens == 0
