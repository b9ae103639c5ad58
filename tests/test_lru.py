"""The byte-bounded cache behind every per-text cache: budget, recency, threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from detox_core.lru import CACHE_SHARES, ByteLRU, approx_bytes, cache_budget


def test_stays_within_its_byte_budget_and_drops_the_oldest():
    cache: ByteLRU[np.ndarray] = ByteLRU(10_000, sizeof=lambda k, v: v.nbytes)
    for i in range(100):
        cache.put(i, np.zeros(125))  # 1,000 bytes each
        assert cache.bytes <= 10_000
    assert len(cache) == 10
    assert cache.get(0) is None and cache.get(99) is not None
    assert cache.evictions == 90


def test_a_read_keeps_an_entry_alive():
    cache: ByteLRU[str] = ByteLRU(300, sizeof=lambda k, v: 100)
    cache.put("a", "1")
    cache.put("b", "2")
    cache.put("c", "3")
    assert cache.get("a") == "1"  # a is now the most recent
    cache.put("d", "4")
    assert "b" not in cache and "a" in cache


def test_an_entry_over_the_budget_is_not_stored():
    cache: ByteLRU[bytes] = ByteLRU(100)
    cache.put("big", b"x" * 1_000)
    assert "big" not in cache and cache.bytes == 0


def test_replacing_a_key_counts_its_bytes_once():
    cache: ByteLRU[np.ndarray] = ByteLRU(10_000, sizeof=lambda k, v: v.nbytes)
    for _ in range(5):
        cache.put("k", np.zeros(100))
    assert cache.bytes == 800 and len(cache) == 1


def test_threads_share_it_without_losing_the_budget():
    cache: ByteLRU[np.ndarray] = ByteLRU(50_000, sizeof=lambda k, v: v.nbytes)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(2_000):
                key = (t, i % 300)
                got = cache.get_or_compute(key, lambda: np.full(100, float(t)))
                assert got[0] == t
        except BaseException as err:  # noqa: BLE001 - collected for the main thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert cache.bytes <= 50_000
    assert cache.bytes == sum(v.nbytes for v, _ in cache._data.values())


def test_approx_bytes_sees_array_buffers_and_containers():
    assert approx_bytes(np.zeros(1000)) >= 8000
    assert approx_bytes({"a": "x" * 1000}) > 1000


def test_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv("DETOX_CACHE_MB", "10")
    assert cache_budget("pool") == int(2.0 * 1024 * 1024)
    assert sum(cache_budget(name) for name in CACHE_SHARES) <= 10 * 1024 * 1024  # the shares never exceed the budget
    monkeypatch.setenv("DETOX_CACHE_MB", "lots")
    with pytest.raises(ValueError, match="DETOX_CACHE_MB"):
        cache_budget("pool")


def test_get_many_computes_each_missing_key_once_and_keeps_the_order():
    cache: ByteLRU[int] = ByteLRU(10_000, sizeof=lambda k, v: 100)
    cache.put("b", 20)
    calls: list[list] = []

    def compute(missing):
        calls.append(missing)
        return [len(k) * 10 for k in missing]

    assert cache.get_many(["aaa", "b", "aaa", "cc"], compute) == [30, 20, 30, 20]
    assert calls == [["aaa", "cc"]]
    assert cache.get_many(["cc", "b"], compute) == [20, 20] and len(calls) == 1
    tiny: ByteLRU[int] = ByteLRU(0)
    assert tiny.get_many(["x", "x"], lambda m: [1] * len(m)) == [1, 1] and len(tiny) == 0


def test_uploaded_corpora_live_in_the_cache_budget(monkeypatch):
    """Three 45 MB corpus uploads used to stay 4 x 1 hour outside any budget (1.2 -> 3 GB);
    now an upload over 10 MB is refused and prepared uploads share the cache budget."""
    import detox_core.ui.app.cache as cache
    from detox_core.errors import DetoxInputError

    with pytest.raises(DetoxInputError, match="at most 10 MB"):
        cache.prepared_upload(b"toxic_comment\n" + b"x" * (11 * 2**20), "big.tsv", "russe2022")
    monkeypatch.setattr(cache, "lexicon", lambda _name: frozenset())
    monkeypatch.setattr(cache, "_UPLOADS", ByteLRU(300_000, sizeof=cache._UPLOADS._sizeof))
    for k in range(6):
        body = "toxic_comment\tneutral_comment1\n" + "".join(f"фраза {k} номер {i}\tтекст {i}\n" for i in range(300))
        prepared, _ = cache.prepared_upload(body.encode(), f"u{k}.tsv", "russe2022")
        assert len(prepared) == 300
    assert cache._UPLOADS.bytes <= 300_000 and cache._UPLOADS.evictions >= 1


def test_uploads_are_prepared_two_at_a_time_and_a_third_waits_its_turn(monkeypatch):
    """Round 5: eight concurrent corpus uploads at the caps took a process from 1.8 to
    3.9 GB. Now one process prepares two at a time; the others wait for a place (and are told
    to try again when none comes within the wait)."""
    import threading

    import detox_core.ui.app.cache as cache
    from detox_core.errors import DetoxInputError

    monkeypatch.setattr(cache, "lexicon", lambda _name: frozenset())
    monkeypatch.setattr(cache, "_UPLOADS", ByteLRU(10_000_000, sizeof=cache._UPLOADS._sizeof))
    monkeypatch.setattr(cache, "_PREPARING", threading.BoundedSemaphore(2))
    monkeypatch.setattr(cache, "PREPARE_WAIT_S", 0.2)
    body = ("toxic_comment\tneutral_comment1\n" + "".join(f"фраза {i}\tтекст {i}\n" for i in range(50))).encode()
    cache._PREPARING.acquire()
    cache._PREPARING.acquire()  # two other uploads being prepared
    try:
        with pytest.raises(DetoxInputError, match="preparing 2 other uploaded corpora; try again in a minute"):
            cache.prepared_upload(body, "third.tsv", "russe2022")
        done: list[int] = []
        waiting = threading.Thread(target=lambda: done.append(len(cache.prepared_upload(body, "w.tsv", "russe2022")[0])))
        monkeypatch.setattr(cache, "PREPARE_WAIT_S", 30.0)
        waiting.start()
        waiting.join(0.3)
        assert not done  # waits for a place
    finally:
        cache._PREPARING.release()  # one of the two ends
    waiting.join(30)
    assert done == [50]
    cache._PREPARING.release()


def test_an_upload_of_more_rows_than_the_cap_is_refused_before_it_is_read():
    import detox_core.ui.app.cache as cache
    from detox_core.errors import DetoxInputError

    body = ("toxic_comment\n" + "ты дурак\n" * (cache.MAX_CORPUS_UPLOAD_ROWS + 1)).encode()
    with pytest.raises(DetoxInputError, match="at most 60,000 rows"):
        cache.prepared_upload(body, "many.tsv", "russe2022")


def test_held_uploads_stay_within_their_budget_and_are_given_back_when_the_tab_goes():
    import gc

    from detox_core.ui.app.cache import HeldUploads

    held = HeldUploads(100)
    first, second = held.hold(60), held.hold(30)
    assert first is not None and second is not None and held.held_bytes == 90 and held.count == 2
    assert held.hold(20) is None and not held.room_for(20)  # over the budget: refused, nothing counted
    del first  # the tab's session ended: its state, and the holding, are dropped
    gc.collect()
    assert held.held_bytes == 30 and held.count == 1 and held.room_for(70)
    assert held.hold(70) is not None


def test_one_address_holds_at_most_its_share_of_the_uploads_and_others_still_get_room():
    """Round 6: one address with six tabs took the whole 400 MB and every other address was
    refused. Now it holds at most a quarter; other addresses upload meanwhile."""
    import gc

    from detox_core.ui.app.cache import HeldUploads

    held = HeldUploads(400)
    tabs = [held.hold(65, "203.0.113.7") for _ in range(6)]
    assert sum(t is not None for t in tabs) == 1  # 65 of its 100
    assert held.refusal(65, "203.0.113.7") == "address" and held.refusal(65, "198.51.100.1") is None
    others = [held.hold(65, f"198.51.100.{k}") for k in range(4)]
    assert all(others) and held.held_bytes == 5 * 65
    assert held.refusal(100, "192.0.2.1") == "server"  # the budget still bounds them all
    tabs.clear()
    gc.collect()
    assert held.by_client.get("203.0.113.7") is None and held.hold(65, "203.0.113.7") is not None


def test_an_address_holding_no_upload_may_always_take_one_the_server_has_room_for():
    """A 25 MB corpus is estimated at 162 MB prepared, over one address's quarter of 400 MB:
    an address that holds none still gets it."""
    from detox_core.ui.app.cache import HeldUploads

    held = HeldUploads(400)
    assert held.refusal(162, "203.0.113.7") is None
    big = held.hold(162, "203.0.113.7")
    assert big is not None
    assert held.refusal(10, "203.0.113.7") == "address"  # a second one is over its share


def test_a_new_budget_keeps_the_most_recent_entries_and_holds_from_then_on():
    """A budget set after the cache is made (a test, a smaller server) keeps the most recently
    used entries that fit; set back, it takes entries as large as before."""
    cache: ByteLRU[str] = ByteLRU(1_000, sizeof=lambda k, v: 100)
    for key in "abcde":
        cache.put(key, key)
    assert cache.get("a") == "a"  # a is now the most recent
    cache.max_bytes = 250
    assert cache.max_bytes == 250 and cache.bytes <= 250
    assert "a" in cache and "e" in cache and "b" not in cache  # the two most recently used
    cache.max_bytes = 1_000
    big: ByteLRU[bytes] = ByteLRU(10, sizeof=lambda k, v: len(v))
    big.max_bytes = 10_000
    big.put("x", b"y" * 5_000)
    assert "x" in big and big.bytes == 5_000
    with pytest.raises(ValueError, match="max_bytes must be >= 0"):
        cache.max_bytes = -1
