"""The textdetox2025 preset equals the official TextDetox 2025 evaluation on tiny random models.

Reference side, computed apart from the preset:
- STA and SIM: the official ``metrics/toxicity.py`` and ``metrics/similarity.py``
  (vendored verbatim in tests/comet/), run here on tiny models of the real layouts: an
  XLM-R classifier read with a *separate* tokenizer folder (the 2025 classifier is read
  with ``cardiffnlp/twitter-xlm-roberta-large-2022``'s), also with a single logit, and a
  LaBSE-layout sentence transformer;
- FL: unbabel-comet 2.2.1 itself (``XCOMETMetric.predict(...).scores`` with the official
  ``XCOMETLite`` DeBERTa wrapper), run in the isolated ``.venv-comet`` (numpy < 2,
  transformers 4.35) that ``make setup`` creates, on a tiny random-weight xCOMET-lite of
  the real architecture saved in the hub-mixin layout.

Without ``.venv-comet`` these tests fail and say to run ``make setup``; set
``DETOX_ALLOW_NO_COMET=1`` to skip them instead (never in CI).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from detox_core.data import PROJECT_ROOT
from detox_core.metrics import get_preset
from detox_core.metrics.textdetox2025 import STA_TOKENIZER
from detox_core.models import ModelPool, xcomet
from tests.benchmarks import load_benchmark
from tests.tiny_models import corpus_sentences

COMET_PYTHON = PROJECT_ROOT / ".venv-comet" / "bin" / "python"
COMET_DIR = PROJECT_ROOT / "tests" / "comet"
TOLERANCE = 1e-4


bench = load_benchmark("bench_textdetox2024")
# A wider random init than 0.02 here too: with it every [CLS] state is alike, and the head that spreads
# P(neutral) gets weights in the thousands, which turn float noise of 1e-8 into STA differences of 1e-4.
TINY_XLMR = dict(vocab_size=700, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                 max_position_embeddings=514, initializer_range=0.2)
TINY_LABSE = dict(vocab_size=900, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                  max_position_embeddings=512, initializer_range=0.2)
LONG = "этот человек опять врёт и врёт, " * 120  # past every model's 512 / 510 / 256 token limit

# (input, output, references): ru, en, zh, de, uk, es, ar, hi, am; a duplicate; an output
# more toxic than its input; near-empty texts; a long one; several references; none.
PAIRS = [
    ("ты дебил, иди отсюда", "ты неправ, иди отсюда", ["ты неправ, уходи"]),
    ("этот мудак опять врёт", "этот человек опять врёт", ["этот человек снова врёт", "он опять врёт"]),
    ("какая хрень эта ваша новость", "какая ерунда эта ваша новость", ["странная новость"]),
    ("you are a stupid idiot, get out", "you are wrong, please leave", ["you are wrong, leave"]),
    ("shut up and go away, moron", "please go away", ["please leave"]),
    ("你这个白痴，滚出去！", "你错了，请离开。", ["你错了，请走开。"]),
    ("这条新闻真是垃圾", "这条新闻不好", ["这条新闻很差"]),
    ("du bist ein verdammter Idiot", "du liegst falsch", ["du irrst dich"]),
    ("ти дурень, йди геть звідси", "ти помиляєшся, йди звідси", ["ти помиляєшся"]),
    ("eres un idiota de mierda", "estás equivocado", ["te equivocas"]),
    ("أنت غبي جدا", "أنت مخطئ", ["أنت على خطأ"]),
    ("तुम बेवकूफ हो", "तुम गलत हो", ["तुम गलत हो"]),
    ("አንተ ደደብ ነህ", "አንተ ተሳስተሃል", ["ተሳስተሃል"]),
    ("заткнись уже, идиот", "заткнись уже, идиот", ["помолчи уже"]),  # the Duplicate baseline
    ("помолчи уже, пожалуйста", "заткнись уже, идиот", ["помолчи"]),  # more toxic than its input
    ("ну и погода", ".", ["ну и погода"]),
    ("?", "", ["!"]),
    (LONG, LONG[: len(LONG) // 2], [LONG[::-1]]),
    ("сука как же надоело", "как же надоело", []),  # no reference: the reference-free forms
    ("you idiot", "you", []),
    ("你这个白痴", "你", []),
]


def _require_comet() -> Path:
    if COMET_PYTHON.is_file():
        return COMET_PYTHON
    msg = (".venv-comet does not exist (unbabel-comet, the reference side of the xCOMET-lite tests): "
           "run `make setup`")
    if os.environ.get("DETOX_ALLOW_NO_COMET") and not os.environ.get("CI"):
        pytest.skip(msg)
    pytest.fail(msg)


def _comet(*args: str) -> None:
    done = subprocess.run([str(_require_comet()), str(COMET_DIR / "comet_reference.py"), *args],
                          capture_output=True, text=True, timeout=900, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert done.returncode == 0, done.stderr[-3000:]


def _one_logit_classifier(folder: Path, tok, sample: list[str]) -> Path:
    """An XLM-R classifier with a single logit (the official code takes its sigmoid)."""
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaForSequenceClassification

    torch.manual_seed(5)
    cfg = XLMRobertaConfig(**TINY_XLMR, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                           num_labels=1)
    model = XLMRobertaForSequenceClassification(cfg).eval()
    with torch.no_grad():
        logits = model(**tok(sample, return_tensors="pt", padding=True, truncation=True)).logits[:, 0]
        head = model.classifier.out_proj
        scale = 2.0 / max(float(logits.std()), 1e-6)
        head.weight.mul_(scale)
        head.bias.mul_(scale).sub_(scale * float(logits.mean()))
    model.save_pretrained(folder)  # no tokenizer: it is read with the other model's
    return folder


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("td2025")
    _comet("build", str(root / "fl"))
    texts = [t for x, y, rs in PAIRS for t in (x, y, *rs)] + corpus_sentences()
    sample = [x for x, _, _ in PAIRS][:16]
    # The classifier's own tokenizer and, apart, the one it is read with (cardiffnlp's in 2025).
    sta = bench.build_sta(root / "sta", bench.xlmr_tokenizer(texts, vocab_size=400), TINY_XLMR, sample=sample)
    sta_tok = root / "sta-tokenizer"
    bench.xlmr_tokenizer(texts[::-1], vocab_size=650).save_pretrained(sta_tok)
    return {
        "sta": sta, "sta_tokenizer": sta_tok, "sta1": _one_logit_classifier(root / "sta1", bench.xlmr_tokenizer(
            texts, vocab_size=650), sample),
        "sim": bench.build_sim(root / "sim", bench.bert_tokenizer(texts, vocab_size=800), TINY_LABSE),
        "fl": root / "fl" / "xcomet", "encoder": root / "fl" / "encoder", "root": root,
    }


def _official(folders: dict[str, Path], sta: Path, fl: bool = True) -> dict[str, np.ndarray]:
    """The official evaluation per sentence: toxicity.py and similarity.py with and without
    references (the first one), unbabel-comet's xCOMET-lite from .venv-comet."""
    # similarity.py sets every logger that exists to WARNING on import: the other tests' stay as they were.
    levels = {name: logging.getLogger(name).level for name in list(logging.root.manager.loggerDict)}
    sys.path.insert(0, str(COMET_DIR))
    try:
        from official_similarity import SimilarityConfig, SimilarityMeasurement
        from official_toxicity import ToxicityConfig, ToxicityMeasurement
    finally:
        sys.path.remove(str(COMET_DIR))
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
    tox = ToxicityMeasurement(ToxicityConfig(tox_model_name=str(sta), tokenizer_name=str(folders["sta_tokenizer"]),
                                             device="cpu"))
    sim = SimilarityMeasurement(SimilarityConfig(sim_model_name=str(folders["sim"]), device="cpu"))
    out = {k: np.full(len(PAIRS), np.nan) for k in ("sta", "sim", "fl")}
    for with_ref in (True, False):
        idx = [i for i, (_, _, rs) in enumerate(PAIRS) if bool(rs) == with_ref]
        xs, ys = [PAIRS[i][0] for i in idx], [PAIRS[i][1] for i in idx]
        rs = [PAIRS[i][2][0] for i in idx] if with_ref else None
        out["sta"][idx] = tox.compare_toxicity(original_texts=xs, rewritten_texts=ys, reference_texts=rs)
        out["sim"][idx] = sim.evaluate_similarity(original_texts=xs, rewritten_texts=ys, reference_texts=rs)
    if not fl:
        return out
    samples = [{"src": x, "mt": y, **({"ref": rs[0]} if rs else {})} for x, y, rs in PAIRS]
    (folders["root"] / "samples.json").write_text(json.dumps(samples, ensure_ascii=False), encoding="utf-8")
    _comet("score", str(folders["root"] / "fl"), str(folders["root"] / "samples.json"),
           str(folders["root"] / "comet.json"))
    comet = json.loads((folders["root"] / "comet.json").read_text(encoding="utf-8"))
    out["fl"], out["mqm"] = np.array(comet["scores"]), np.array(comet["mqm"])
    out["j"] = out["sta"] * out["sim"] * out["fl"]
    return out


def _preset_frame(folders: dict[str, Path], sta: Path, pool: ModelPool | None = None):
    pool = pool or ModelPool(device="cpu", backend="torch", batch_size=4,
                             model_map={STA_TOKENIZER: str(folders["sta_tokenizer"]),
                                        xcomet.ENCODER: str(folders["encoder"])})
    preset = get_preset("textdetox2025", pool=pool, models={"sta": str(sta), "sim": str(folders["sim"]),
                                                            "fl": str(folders["fl"])})
    return preset.score([x for x, _, _ in PAIRS], [y for _, y, _ in PAIRS], [rs for _, _, rs in PAIRS])


@pytest.fixture(scope="module")
def scored(models):
    return _official(models, models["sta"]), _preset_frame(models, models["sta"])


def test_every_axis_equals_the_official_evaluation(scored):
    official, frame = scored
    diffs = {axis: float(np.abs(frame[axis].to_numpy() - official[axis]).max()) for axis in ("sta", "sim", "fl", "j")}
    print(f"max |preset - official| per axis: {diffs}")
    assert max(diffs.values()) <= TOLERANCE, diffs


def test_the_comparison_is_not_vacuous(scored):
    official, frame = scored
    # CLS-NEW takes all its branches: 1 (as neutral as the reference), (P + 1) / 2, and
    # P / 2 for an output more toxic than its input (the official code; the paper says 0).
    sta = official["sta"]
    assert (sta == 1.0).any() and ((sta > 0.5) & (sta < 1.0)).any() and (sta < 0.5).any()
    # xCOMET-lite: error spans found (MQM below 1) and scores that differ between pairs.
    assert (official["mqm"] < 1.0).any() and (official["mqm"] == 1.0).any()
    assert np.std(official["fl"]) > 0.01
    assert np.allclose(frame["j"], frame["sta"] * frame["sim"] * frame["fl"])


def test_the_classifier_is_read_with_the_other_models_tokenizer(models, scored):
    own = dict(models, sta_tokenizer=models["sta"])  # what reading it with its own tokenizer would give
    official_own = _official(own, models["sta"], fl=False)
    assert np.abs(official_own["sta"] - scored[0]["sta"]).max() > 1e-3


def test_a_single_logit_classifier_is_read_through_its_sigmoid(models):
    official = _official(models, models["sta1"], fl=False)
    frame = _preset_frame(models, models["sta1"])
    assert np.abs(frame["sta"].to_numpy() - official["sta"]).max() <= TOLERANCE
    assert np.std(official["sta"]) > 0.05


def test_the_first_of_several_references_is_used(models, scored):
    _, frame = scored
    pairs = [(x, y, rs[:1]) for x, y, rs in PAIRS]
    pool = ModelPool(device="cpu", backend="torch", batch_size=4,
                     model_map={STA_TOKENIZER: str(models["sta_tokenizer"]), xcomet.ENCODER: str(models["encoder"])})
    preset = get_preset("textdetox2025", pool=pool, models={"sta": str(models["sta"]), "sim": str(models["sim"]),
                                                            "fl": str(models["fl"])})
    first_only = preset.score([p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs])
    for axis in ("sta", "sim", "fl", "j"):
        assert np.allclose(first_only[axis], frame[axis], atol=1e-9), axis


def test_the_signature_names_every_model_and_the_fluency_metric(scored):
    _, frame = scored
    sig = frame.attrs["signature"]
    assert sig["preset"] == "textdetox2025" and sig["calibration"] is None
    assert sig["models"]["sta"]["id"] == "textdetox/xlmr-large-toxicity-classifier-v2"
    assert sig["models"]["sta"]["tokenizer"]["id"] == STA_TOKENIZER
    assert sig["models"]["sim"]["id"] == "sentence-transformers/LaBSE"
    assert sig["models"]["fl"]["id"] == "myyycroft/XCOMET-lite"
    assert sig["models"]["fl"]["tokenizer"]["id"] == "microsoft/mdeberta-v3-base"
    assert "xCOMET-lite" in sig["models"]["fl"]["score"]
    assert all(sig["models"][role]["revision"] for role in ("sta", "sim", "fl"))


def test_without_the_comet_environment_these_tests_fail_and_say_how(monkeypatch, tmp_path):
    monkeypatch.setitem(globals(), "COMET_PYTHON", tmp_path / "no-venv" / "bin" / "python")
    monkeypatch.delenv("DETOX_ALLOW_NO_COMET", raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.fail.Exception, match="run `make setup`"):
        _require_comet()
    monkeypatch.setenv("DETOX_ALLOW_NO_COMET", "1")
    with pytest.raises(pytest.skip.Exception):  # a skip only when asked for ...
        _require_comet()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):  # ... and never in CI
        _require_comet()
