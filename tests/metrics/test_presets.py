"""The official presets on tiny models: formulas checked against hand computation."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

from detox_core.metrics import get_preset, score_frame
from detox_core.calibration.rotation import rotation_calibration
from detox_core.models import ModelPool, ModelUnavailableError

INPUTS = ["ты дебил, иди отсюда", "этот мудак опять врёт", "какая хрень эта ваша новость", "сука как же надоело",
          "заткнись уже, идиот", "ну и погода сегодня"]
OUTPUTS = ["ты неправ, иди отсюда", "этот человек опять врёт", "какая ерунда эта ваша новость", "как же надоело",
           "помолчи уже, пожалуйста", "ну и погода сегодня"]
REFS = [["ты не прав"], ["этот человек опять врёт", "он врёт"], [], ["надоело"], ["помолчи"], ["погода"]]


def probs(folder, texts):
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():
        return torch.softmax(model(**tok(texts, return_tensors="pt", padding=True)).logits, -1).numpy()


def pooled(folder, texts):
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    with torch.no_grad():
        out = model(**tok(texts, return_tensors="pt", padding=True)).pooler_output
    return torch.nn.functional.normalize(out).numpy()


def russe(tiny_models, pool=None, **kw):
    pool = pool or ModelPool(device="cpu", backend="torch", **kw)
    models = {"sta": str(tiny_models["sta"]), "sim": str(tiny_models["sim"]), "fl": str(tiny_models["fl"])}
    return get_preset("russe2022", pool=pool, models=models), pool


def test_russe2022_formulas_by_hand(tiny_models):
    preset, _ = russe(tiny_models)
    frame = preset.score(INPUTS, OUTPUTS, REFS)
    p_neutral = probs(tiny_models["sta"], OUTPUTS)[:, 0]  # label 0 is "neutral"
    cos = (pooled(tiny_models["sim"], INPUTS) * pooled(tiny_models["sim"], OUTPUTS)).sum(1)
    clean_in = probs(tiny_models["fl"], INPUTS)[:, 1]  # label 1 is "clean"
    clean_out = probs(tiny_models["fl"], OUTPUTS)[:, 1]
    sta = np.clip((p_neutral - 1) * 0.90 + 1, 0, 1)
    sim = np.clip((cos - 1) * 1.50 + 1, 0, 1)
    fl = np.clip(np.minimum(0, clean_out - clean_in) * 1.15 + 1, 0, 1)
    assert np.allclose(frame["sta"], sta, atol=1e-5)
    assert np.allclose(frame["sim"], sim, atol=1e-5)
    assert np.allclose(frame["fl"], fl, atol=1e-5)
    assert np.allclose(frame["j"], sta * sim * fl, atol=1e-5)
    # Raw: the same formulas with coefficient 1.
    assert np.allclose(frame["sta_raw"], p_neutral, atol=1e-5)
    assert np.allclose(frame["sim_raw"], np.clip(cos, 0, 1), atol=1e-5)
    assert np.allclose(frame["fl_raw"], 1 + np.minimum(0, clean_out - clean_in), atol=1e-5)
    # An unchanged output loses no fluency.
    assert frame["fl"].iloc[-1] == pytest.approx(1.0)
    assert np.isnan(frame["chrf"].iloc[2])  # no reference


def test_raw_switch_and_signature(tiny_models):
    preset, _ = russe(tiny_models)
    cal = preset.score(INPUTS, OUTPUTS, REFS)
    raw = preset.score(INPUTS, OUTPUTS, REFS, calibrated=False)
    assert np.allclose(raw["sta"], cal["sta_raw"]) and np.allclose(raw["j"], raw["sta"] * raw["sim"] * raw["fl"])
    sig = cal.attrs["signature"]
    assert sig["preset"] == "russe2022" and sig["calibrated"] is True
    assert sig["calibration"]["sta"] == [0.9, 1.0] or tuple(sig["calibration"]["sta"]) == (0.9, 1.0)
    # The folder stands in for the official model: its id stays in the signature.
    assert sig["models"]["sta"]["id"] == "s-nlp/russian_toxicity_classifier"
    assert sig["models"]["sta"]["revision"].startswith("local-")
    assert raw.attrs["signature"]["calibrated"] is False


def test_calibration_function():
    x = np.array([0.0, 0.5, 0.9, 1.0])
    assert np.allclose(rotation_calibration(x, 0.9, 1.0), [0.1, 0.55, 0.91, 1.0])
    assert np.allclose(rotation_calibration(np.array([-1.0, -0.5, 0.0]), 1.15, 0.0), [0.0, 0.425, 1.0])


def test_scores_do_not_depend_on_batch_size_or_order(tiny_models):
    base, _ = russe(tiny_models, batch_size=32)
    one, _ = russe(tiny_models, batch_size=1)
    reference = base.score(INPUTS, OUTPUTS, REFS)
    assert np.allclose(one.score(INPUTS, OUTPUTS, REFS)[["sta", "sim", "fl", "j"]], reference[["sta", "sim", "fl", "j"]], atol=1e-6)
    perm = np.random.default_rng(0).permutation(len(INPUTS))
    shuffled = base.score([INPUTS[i] for i in perm], [OUTPUTS[i] for i in perm], [REFS[i] for i in perm])
    assert np.allclose(shuffled[["sta", "sim", "fl", "j"]].to_numpy(), reference[["sta", "sim", "fl", "j"]].to_numpy()[perm], atol=1e-6)


def test_inputs_are_scored_once_for_all_submissions(tiny_models):
    preset, pool = russe(tiny_models)
    preset.score(INPUTS, OUTPUTS, REFS)
    first = pool.forward_texts
    second_outputs = [o + " !" for o in OUTPUTS]
    preset.score(INPUTS, second_outputs, REFS)
    # Only the new outputs ran: STA, SIM and FL of 6 new texts (inputs memoised).
    assert pool.forward_texts - first == 3 * len(OUTPUTS)


def test_onnx_backend_gives_the_same_scores(tiny_models, tmp_path):
    pytest.importorskip("onnxruntime")
    torch_frame = russe(tiny_models)[0].score(INPUTS, OUTPUTS, REFS)
    pool = ModelPool(device="cpu", backend="onnx", cache_dir=tmp_path)
    onnx_frame = russe(tiny_models, pool=pool)[0].score(INPUTS, OUTPUTS, REFS)
    assert pool.info(str(tiny_models["sta"]), "classifier")["backend"] == "onnx"
    cols = ["sta", "sim", "fl", "j"]
    assert np.abs(onnx_frame[cols].to_numpy() - torch_frame[cols].to_numpy()).max() <= 1e-4
    assert any(tmp_path.rglob("model.onnx"))  # exported once, cached


def test_thread_safe_pool(tiny_models):
    preset, pool = russe(tiny_models)
    expected = preset.score(INPUTS, OUTPUTS, REFS)
    pool.clear_memo()
    results, errors = [], []

    def work(k):
        try:
            outs = OUTPUTS[k % 3:] + OUTPUTS[: k % 3]
            ins = INPUTS[k % 3:] + INPUTS[: k % 3]
            refs = REFS[k % 3:] + REFS[: k % 3]
            results.append((k, preset.score(ins, outs, refs)))
        except Exception as err:  # noqa: BLE001 - collected and asserted below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k, frame in results:
        rot = np.roll(expected["j"].to_numpy(), -(k % 3))
        assert np.allclose(frame["j"].to_numpy(), rot, atol=1e-6)
    assert len(pool._models) == 3  # each model loaded once


def test_textdetox2024_on_tiny_models(tiny_models):
    pool = ModelPool(device="cpu", backend="torch")
    frame = score_frame(INPUTS, OUTPUTS, REFS, preset="textdetox2024", pool=pool,
                  models={"sta": str(tiny_models["sta"]), "sim": str(tiny_models["st"])})
    p_neutral = probs(tiny_models["sta"], OUTPUTS)[:, 0]
    assert np.allclose(frame["sta"], p_neutral, atol=1e-5)
    assert np.allclose(frame["fl"].fillna(-1), frame["chrf"].fillna(-1))  # FL is chrF vs references
    assert frame["sim"].between(0, 1).all()
    assert frame.attrs["signature"]["calibration"] is None


def test_missing_model_folder_says_what_to_do(tmp_path):
    pool = ModelPool(device="cpu", backend="torch", model_map={"s-nlp/russian_toxicity_classifier": str(tmp_path / "nope")})
    preset = get_preset("russe2022", pool=pool)
    with pytest.raises(ModelUnavailableError) as info:
        preset.score(INPUTS[:1], OUTPUTS[:1])
    msg = str(info.value)
    assert "s-nlp/russian_toxicity_classifier" in msg and "does not exist" in msg
    assert "--model sta=DIR" in msg and "DETOX_MODEL_MAP" in msg and "embedded" in msg


def test_unreachable_hub_fails_fast_with_a_clear_message(monkeypatch, network_attempts):
    """Offline, a hub model not in the cache fails at once: every load is cache-only (the hub
    client's minute of retries is never started) and nothing tries the network."""
    import transformers

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cache_only: list[bool] = []
    real = transformers.AutoTokenizer.from_pretrained.__func__

    def spy(cls, *args, **kwargs):
        cache_only.append(bool(kwargs.get("local_files_only")))
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", classmethod(spy))
    pool = ModelPool(device="cpu", backend="torch")
    with pytest.raises(ModelUnavailableError, match="cannot be reached"):
        pool.probabilities("some-org/not-in-the-cache-model", ["текст"], role="sta")
    assert cache_only == [True]  # the load looked in the local cache only
    assert network_attempts == []


def test_broken_model_folder(tmp_path):
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    pool = ModelPool(device="cpu", backend="torch")
    with pytest.raises(ModelUnavailableError, match="Cannot load the fl model"):
        pool.probabilities(str(tmp_path), ["текст"], role="fl")


def test_unknown_preset_and_role():
    with pytest.raises(KeyError, match="known: "):
        get_preset("nope")
    with pytest.raises(KeyError, match="no model role"):
        get_preset("russe2022", models={"xyz": "a"})


def test_wrong_lengths():
    from detox_core.errors import DetoxInputError

    with pytest.raises(DetoxInputError, match="one output per input"):
        get_preset("russe2022").score(["a", "b"], ["a"])


def test_memo_is_bounded_by_bytes_and_scores_do_not_depend_on_it(tiny_models):
    """A visitor typing thousands of distinct texts cannot grow the memo past its
    budget, and a tiny budget (every text recomputed) gives the same numbers."""
    full, _ = russe(tiny_models)
    expected = full.score(INPUTS, OUTPUTS, REFS)
    tiny_pool = ModelPool(device="cpu", backend="torch")
    tiny_pool._memo.max_bytes = 3_000  # a handful of results
    preset, pool = russe(tiny_models, pool=tiny_pool)
    for k in range(30):
        preset.score([f"{t} {k}" for t in INPUTS], [f"{o} {k}" for o in OUTPUTS], REFS)
        assert pool._memo.bytes <= 3_000
    assert pool._memo.evictions > 0
    again = preset.score(INPUTS, OUTPUTS, REFS)
    cols = ["sta", "sim", "fl", "j"]
    np.testing.assert_allclose(again[cols].to_numpy(), expected[cols].to_numpy(), atol=1e-6)
