"""The on-disk cache of model outputs and the token-budget batching of the pool.

A text is run through a model once across runs and processes; what comes back from disk
is the very number computed; a killed writer never damages the file; the file stays within
its bound; two processes share it; a re-saved model never gets its old outputs. Batching
by tokens gives the same scores as one text a batch.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from detox_core.config import PROJECT_ROOT
from detox_core.metrics import get_preset
from detox_core.models import ModelPool
from detox_core.models.disk_cache import WAL_LIMIT, DiskCache, text_key

STA_ID = "s-nlp/russian_toxicity_classifier"
TEXTS = ["ты неправ", "какая ерунда эта ваша новость, честно говоря", "ок", "этот человек опять врёт",
         "спасибо за ответ", "ну и зачем ты это написал, объясни мне пожалуйста по-человечески"]


def cached_pool(path: Path, **kw) -> ModelPool:
    return ModelPool(device="cpu", backend="torch", disk_cache=DiskCache(path, 50 * 1024 * 1024), **kw)


def test_a_second_run_reads_every_output_from_disk_and_gets_the_same_scores(tiny_models, tmp_path):
    """A restarted process (a new pool on the same file) runs no model and scores alike, to the bit."""
    models = {r: str(tiny_models[r]) for r in ("sta", "sim", "fl")}
    inputs, outputs = TEXTS, [t.replace("ерунда", "новость") for t in TEXTS[::-1]]
    first = cached_pool(tmp_path / "c.sqlite")
    a = get_preset("russe2022", pool=first, models=models).score(inputs, outputs)
    assert first.forward_texts > 0 and first.disk.misses > 0
    second = cached_pool(tmp_path / "c.sqlite")
    b = get_preset("russe2022", pool=second, models=models).score(inputs, outputs)
    assert second.forward_texts == 0, "a restarted process ran a model for a text already on disk"
    for axis in ("sta", "sim", "fl", "j"):
        assert np.array_equal(a[axis].to_numpy(), b[axis].to_numpy()), axis
    # And the same as a pool without any disk cache.
    plain = get_preset("russe2022", pool=ModelPool(device="cpu", backend="torch"), models=models).score(inputs, outputs)
    assert np.allclose(plain["j"].to_numpy(), b["j"].to_numpy(), atol=1e-9)


def test_a_resaved_model_never_gets_its_old_outputs(tiny_models, tmp_path):
    import shutil

    folder = tmp_path / "sta"
    shutil.copytree(tiny_models["sta"], folder)
    pool = cached_pool(tmp_path / "c.sqlite")
    before = pool.probabilities(STA_ID, TEXTS, source=str(folder))
    # New weights in the same folder (another fine-tune saved over it).
    from transformers import AutoModelForSequenceClassification
    import torch

    model = AutoModelForSequenceClassification.from_pretrained(folder)
    with torch.no_grad():
        model.classifier.bias += torch.tensor([3.0, -3.0])
    time.sleep(0.01)
    model.save_pretrained(folder)
    restarted = cached_pool(tmp_path / "c.sqlite")
    after = restarted.probabilities(STA_ID, TEXTS, source=str(folder))
    assert restarted.forward_texts == len(TEXTS)
    assert not np.allclose(before, after, atol=1e-3)


def test_the_cache_stays_within_its_bound_and_keeps_the_recent_rows(tmp_path):
    cache = DiskCache(tmp_path / "c.sqlite", max_bytes=200_000)
    rng = np.random.default_rng(0)
    for batch in range(60):
        cache.put_many("ns", [(f"text {batch} {i}", rng.random(128)) for i in range(20)])  # ~1.1 KB each
        assert cache.stored_bytes() <= 200_000 * 1.1  # one batch over at most, before it is evicted
    assert cache.stored_bytes() <= 200_000
    assert cache.file_bytes(wal=False) < 2 * 200_000  # the file shrinks back with the rows
    assert cache.file_bytes() < 2 * 200_000 + WAL_LIMIT + 1_000_000  # and its log within its limit
    newest = cache.get_many("ns", [f"text 59 {i}" for i in range(20)])
    oldest = cache.get_many("ns", [f"text 0 {i}" for i in range(20)])
    assert len(newest) == 20 and not oldest


WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    from detox_core.models.disk_cache import DiskCache

    cache = DiskCache(sys.argv[1], max_bytes=10**9)
    name = sys.argv[2]
    batch = 0
    while True:
        cache.put_many("ns", [(f"{name} {batch} {i}", np.full(64, float(batch * 1000 + i))) for i in range(200)])
        print(batch, flush=True)
        batch += 1
        if len(sys.argv) > 3 and batch >= int(sys.argv[3]):
            break
""")


def _writer(path: Path, name: str, batches: int | None = None) -> subprocess.Popen:
    args = [sys.executable, "-c", WRITER, str(path), name] + ([str(batches)] if batches else [])
    return subprocess.Popen(args, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})


def test_a_writer_killed_mid_write_leaves_a_sound_cache(tmp_path):
    path = tmp_path / "c.sqlite"
    proc = _writer(path, "w")
    for _ in range(5):  # five transactions are in; the sixth is under way when it dies
        assert proc.stdout.readline(), "the writer did not start"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    cache = DiskCache(path, max_bytes=10**9)
    n = len(cache)
    assert n % 200 == 0 and n >= 1000, f"a partial transaction is visible ({n} rows)"
    got = cache.get_many("ns", [f"w {b} {i}" for b in range(n // 200) for i in (0, 199)])
    assert all(np.array_equal(v, np.full(64, float(int(k.split()[1]) * 1000 + int(k.split()[2])))) for k, v in got.items())
    cache.put_many("ns", [("after", np.ones(3))])  # and it takes new writes
    assert np.array_equal(cache.get_many("ns", ["after"])["after"], np.ones(3))


def test_two_processes_share_the_cache(tmp_path):
    path = tmp_path / "c.sqlite"
    DiskCache(path, max_bytes=10**9)  # created once, as the first app process does
    procs = [_writer(path, name, batches=15) for name in ("a", "b")]
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
    cache = DiskCache(path, max_bytes=10**9)
    assert len(cache) == 2 * 15 * 200  # neither process lost a write to the other's lock
    both = cache.get_many("ns", ["a 14 199", "b 14 199"])
    assert np.array_equal(both["a 14 199"], both["b 14 199"]) and both["a 14 199"][0] == 14199.0


def test_an_unwritable_cache_is_switched_off_and_scoring_goes_on(tiny_models, tmp_path):
    pool = cached_pool(tmp_path / "c.sqlite")
    pool.probabilities(STA_ID, TEXTS[:2], source=str(tiny_models["sta"]))
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        db.execute("DROP TABLE outputs")  # damaged under the pool's feet
    probs = pool.probabilities(STA_ID, TEXTS, source=str(tiny_models["sta"]))
    assert probs.shape == (len(TEXTS), 2) and not pool.disk.enabled


def test_keys_differ_by_namespace_and_text():
    assert text_key("a", "b") != text_key("a", "c") != text_key("b", "b")
    assert text_key("a", "b\x00c") != text_key("a\x00b", "c")  # the separator cannot be forged


# ---------------------------------------------------------------- token-budget batching


@pytest.mark.parametrize("budget", [16, 64, 100_000])
def test_token_budget_batching_gives_the_scores_of_one_text_a_batch(tiny_models, budget):
    models = {r: str(tiny_models[r]) for r in ("sta", "sim", "fl")}
    outputs = [t.split(",")[0] for t in TEXTS]
    one = get_preset("russe2022", pool=ModelPool(device="cpu", backend="torch", batch_size=1, token_budget=1),
                     models=models).score(TEXTS, outputs)
    pool = ModelPool(device="cpu", backend="torch", token_budget=budget)
    pool.profile = {}  # the benchmarks' profiled path gives the same numbers
    budgeted = get_preset("russe2022", pool=pool, models=models).score(TEXTS, outputs)
    for axis in ("sta", "sim", "fl", "j"):
        assert np.allclose(one[axis].to_numpy(), budgeted[axis].to_numpy(), atol=1e-6), axis
    batches = pool.profile["batches"]
    assert sum(n for _, n, _, _ in batches) == pool.forward_texts
    assert all(n * width <= budget or n == 1 for _, n, width, _ in batches)
    if budget == 100_000:  # texts of different lengths in one batch: padding was run, and counted
        assert pool.padded_tokens > pool.forward_tokens


def test_batches_keep_within_the_budget_and_pad_little():
    pool = ModelPool(device="cpu", backend="torch", batch_size=32, token_budget=2048)
    rng = np.random.default_rng(1)
    lengths = list(rng.integers(4, 120, size=3000))
    batches = pool.plan_batches(lengths)
    assert sorted(i for b in batches for i in b) == list(range(3000))
    for b in batches:
        width = max(lengths[i] for i in b)
        assert len(b) * width <= 2048 and len(b) <= 256
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    assert padded / sum(lengths) < 1.06  # padding under 6% of the tokens run
    assert max(len(b) for b in batches) > 32  # short texts go in larger batches than the old fixed 32
    assert pool.plan_batches([600]) == [[0]]  # a text over the budget still runs, alone


def test_a_cache_held_by_another_process_is_skipped_not_switched_off(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = DiskCache(path, max_bytes=10**9, timeout=0.2)
    cache.put_many("ns", [("kept", np.ones(2))])
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process in the middle of a long write
    try:
        cache.put_many("ns", [("lost", np.zeros(2))])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert cache.enabled  # busy once is no reason to stop caching
    cache.put_many("ns", [("later", np.zeros(2))])
    assert set(cache.get_many("ns", ["kept", "lost", "later"])) == {"kept", "later"}


def test_the_signature_and_the_cache_key_name_a_local_model_alike(tmp_path):
    """A local folder's identity is one fingerprint: a file saved over inside a subfolder, in
    the same second at the same size, changes both the signature's revision and the cache key
    (the signature read top-level files to the second, the key every file to the nanosecond);
    the folder moved with its files changes neither (the key held the folder's path)."""
    import shutil
    from types import SimpleNamespace

    from detox_core.models.disk_cache import model_identity
    from detox_core.models.origin import revision

    folder = tmp_path / "a" / "sim"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "config.json").write_text("{}", encoding="utf-8")
    pooling = folder / "1_Pooling" / "config.json"
    pooling.write_text('{"pooling_mode": "mean"}', encoding="utf-8")

    def names(where: Path) -> tuple[str, str]:
        loaded = SimpleNamespace(source=str(where), local=True, revision=revision(str(where), True),
                                 tokenizer_from=None, kind="embedder", device="cpu", dtype="float32", backend="torch")
        key = model_identity(loaded, {}, 128)
        assert loaded.revision.removeprefix("local-") in key  # the same fingerprint in both
        return loaded.revision, key

    first = names(folder)
    st = pooling.stat()
    pooling.write_text('{"pooling_mode": "last"}', encoding="utf-8")  # another pooling, same size
    os.utime(pooling, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # and within the same second
    assert pooling.stat().st_size == st.st_size
    second = names(folder)
    assert second[0] != first[0] and second[1] != first[1]
    moved = tmp_path / "b" / "sim"
    shutil.copytree(folder, moved)  # copytree keeps the files' times
    assert names(moved) == second
