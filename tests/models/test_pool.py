"""The model pool on its own: loading once, local folders per process and per call,
the lock around its mapping, batching and the per-text memo."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from detox_core.errors import ModelUnavailableError, ScorerUnavailableError
from detox_core.metrics import get_preset
from detox_core.models import ModelPool
from detox_core.models.batching import token_limit

STA_ID = "s-nlp/russian_toxicity_classifier"
TEXTS = ["ты неправ", "какая ерунда эта ваша новость, честно говоря", "ок", "этот человек опять врёт"]


def pool() -> ModelPool:
    return ModelPool(device="cpu", backend="torch")


def test_a_per_call_folder_never_reaches_other_callers(tiny_models, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    p = pool()
    probs = p.probabilities(STA_ID, TEXTS, role="sta", source=str(tiny_models["sta"]))
    assert probs.shape == (4, 2)
    assert STA_ID not in p.model_map and p.resolve(STA_ID) == (STA_ID, False)
    with pytest.raises(ModelUnavailableError, match="cannot be reached"):
        p.probabilities(STA_ID, TEXTS, role="sta")  # another caller, without the folder: the hub id
    # A preset given a folder (score --model sta=DIR) keeps it to itself, and its signature keeps the id.
    preset = get_preset("russe2022", pool=p, models={"sta": str(tiny_models["sta"])})
    assert preset.models["sta"] == STA_ID and preset.sources == {"sta": str(tiny_models["sta"])}
    assert p.model_map == {}


def test_the_process_wide_mapping_is_changed_through_the_lock(tiny_models, tmp_path):
    p = pool()
    p.map_model(STA_ID, str(tiny_models["sta"]))
    assert p.resolve(STA_ID) == (str(tiny_models["sta"]), True)
    mapping = p.model_map
    mapping[STA_ID] = "elsewhere"  # a copy: the pool is not changed behind its lock
    assert p.model_map[STA_ID] == str(tiny_models["sta"])
    errors: list[BaseException] = []

    def churn(k: int) -> None:
        try:
            for i in range(200):
                p.map_model(f"org/model-{k}-{i % 5}", str(tmp_path))
                p.resolve(STA_ID)
                p.map_model(f"org/model-{k}-{i % 5}", None)
        except BaseException as err:  # noqa: BLE001 - collected for the assertion
            errors.append(err)

    threads = [threading.Thread(target=churn, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and p.model_map == {STA_ID: str(tiny_models["sta"])}
    p.map_model(STA_ID, None)
    assert STA_ID not in p.model_map


def test_a_model_loads_once_for_concurrent_callers(tiny_models):
    p = pool()
    p.map_model(STA_ID, str(tiny_models["sta"]))
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(p.get(STA_ID, "classifier", "sta"))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(g) for g in got}) == 1 and len(p._models) == 1  # noqa: SLF001 - what was loaded


def test_batching_restores_order_and_the_memo_runs_each_text_once(tiny_models):
    one, many = ModelPool(device="cpu", backend="torch", batch_size=1), ModelPool(device="cpu", backend="torch",
                                                                                   batch_size=3)
    a = one.probabilities(STA_ID, TEXTS, source=str(tiny_models["sta"]))
    b = many.probabilities(STA_ID, TEXTS, source=str(tiny_models["sta"]))
    rev = many.probabilities(STA_ID, TEXTS[::-1], source=str(tiny_models["sta"]))
    assert np.allclose(a, b, atol=1e-6) and np.allclose(rev[::-1], b, atol=1e-9)
    assert np.allclose(a.sum(axis=1), 1.0)
    assert many.forward_texts == len(TEXTS)  # the reversed call was served from the memo
    emb = many.embeddings("cointegrated/LaBSE-en-ru", TEXTS, source=str(tiny_models["sim"]))
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0)


def test_a_missing_folder_is_a_scorer_that_cannot_run(tmp_path):
    with pytest.raises(ScorerUnavailableError, match="does not exist"):
        pool().probabilities(STA_ID, TEXTS, role="sta", source=str(tmp_path / "nope"))


def test_a_text_longer_than_the_models_positions_is_cut_to_them(tiny_models):
    """The tiny classifier has 128 positions: a long text keeps what the model can read
    instead of failing (the real models keep 512 tokens, as the official evaluation)."""
    pool = ModelPool(device="cpu", backend="torch")
    long = " ".join(["очень длинный текст"] * 400)
    probs = pool.probabilities(STA_ID, [long, "коротко"], source=str(tiny_models["sta"]))
    assert probs.shape == (2, 2) and np.allclose(probs.sum(axis=1), 1.0)
    assert token_limit(pool.get(STA_ID, "classifier", source=str(tiny_models["sta"])), pool.max_length) == 128


def test_fp32_is_the_default_and_half_precision_an_opt_in_on_a_gpu(monkeypatch, tiny_models):
    """Until a device has measured half precision within 5e-4 of fp32 per system, a GPU runs
    fp32 unless asked; the CPU always runs fp32; what ran is in every signature."""
    from detox_core.errors import DetoxInputError

    monkeypatch.delenv("DETOX_PRECISION", raising=False)
    assert ModelPool(device="cuda").dtype == "float32"
    assert ModelPool(device="cuda", precision="float16").dtype == "float16"
    monkeypatch.setenv("DETOX_PRECISION", "bf16")
    assert ModelPool(device="cuda").dtype == "bfloat16"
    assert ModelPool(device="cpu").dtype == "float32"  # the CPU ignores the opt-in
    monkeypatch.setenv("DETOX_PRECISION", "fp8")
    with pytest.raises(DetoxInputError, match="DETOX_PRECISION"):
        ModelPool(device="cuda")
    monkeypatch.delenv("DETOX_PRECISION")
    preset = get_preset("russe2022", pool=ModelPool(device="cpu", backend="torch"),
                        models={r: str(tiny_models[r]) for r in ("sta", "sim", "fl")})
    assert {m["dtype"] for m in preset.signature().models.values()} == {"float32"}
