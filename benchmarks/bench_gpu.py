"""Every model-based preset on a GPU: the official procedure (fp32) against the model pool
(fp32, and fp16 / bf16), with the speed-up and the score differences half precision costs.

Presets and data:

- ``russe2022`` (two BERT-base classifiers, vocab 119,547, and LaBSE-en-ru's BERT-base) and
  ``rudetox-mera`` (ruDetox: two conversational RuBERT-base classifiers, the second on
  sentence pairs, and a RoBERTa-large RuCoLa classifier) on the 7 RUSSE-2022 test
  submissions (``data/russe2022/outputs/*_test.txt``, 875 pairs each);
- ``textdetox2024`` (XLM-R classifier, LaBSE, chrF) and ``textdetox2025`` (XLM-R large
  classifier read with a separate tokenizer, LaBSE, xCOMET-lite on mDeBERTa-v3-base) on
  the 5,400-row TextDetox 2024 test set (600 inputs x 9 languages); outputs: each input
  without its longest word; references (none are public): the input itself for 2024, the
  input without its two longest words for 2025 (as ``bench_textdetox2024/2025.py``).

Models: full size, random weights, built offline by the other benchmarks' builders
(``bench_scoring.build_models``; ``bench_textdetox2025.build_models``, which uses
``bench_textdetox2024``'s) and, for ruDetox, by :func:`build_mera` here. ``--small``
builds tiny models of the same architectures (2 layers, hidden 64) for the test suite.

Official procedures, fp32, file order, batches of 32, on the chosen device:

- 2022: ``bench_scoring.naive_score`` (the RUSSE-2022 evaluation script's procedure);
- 2024: ``bench_textdetox2024.official_scores`` (``clef24/.../evaluate.py`` line by line);
- 2025: the official ``metrics/toxicity.py`` and ``metrics/similarity.py`` (vendored verbatim
  in ``tests/comet/``); FL: unbabel-comet cannot be installed beside the project
  (numpy < 2, transformers 4.x), so the official ``CometFluency.get_scores`` is stood in for by
  :mod:`detox_core.models.xcomet`'s forward pass (equal to unbabel-comet within 1e-4:
  ``tests/metrics/test_textdetox2025.py``) run as comet's ``predict`` runs it for
  ``evaluate.py``: batches of 512 (``--fluency_batch_size``) ordered by source length
  (comet's length batching), fp32, nothing memoised, no PyTorch Lightning overhead (so the
  official time is if anything underestimated);
- ruDetox: ``classify_texts`` of ``tests/metrics/test_rudetox_mera.py`` (MERA's
  ``humanbenchmarks/ruDetox/eval.py`` restated), its tokenizer's batches moved to the
  model's device as the original does; raw scores (no calibrator on either side).

Pool side: ``get_preset(name, pool=ModelPool(device, precision=P, backend="torch"))`` as the
app and the CLI run it (its own batching by length, each text run once across the
submissions), a fresh pool per precision, no on-disk cache of model outputs.
Loading (with a 2-pair warm-up) is timed apart from scoring on both sides.

Prints per preset a table: side, precision, loading and scoring seconds, pairs/s, the
speed-up over the official procedure, the largest |J difference| to the official fp32
scores per sentence, per (system, language) and per system (the official average: mean
over languages of the per-language means), and the peak memory of that side (GPU memory
allocated by PyTorch; on the CPU the process's peak RSS). A row passes when its largest
per-system difference is <= 5e-4: until a device has measured half precision within that
of fp32 for every system, the GPU default stays fp32 and half precision an opt-in
(``DETOX_PRECISION``). The target for the pool is >= 10x the official procedure on the 2022
recipe. Random weights give other score distributions than the real models: the summary
flags a preset whose official J hardly varies (sd < 0.01) as weak evidence. Exit status 0
when it ran (whatever the verdicts), 1 when the data is missing.

Run on a GPU machine (``make data`` or ``python -m detox_core fetch-data`` first)::

    .venv/bin/python benchmarks/bench_gpu.py --keep /tmp/bench-gpu-models
    .venv/bin/python benchmarks/bench_gpu.py --presets russe2022 --precisions float32 float16 --limit 200

Run time. Building the full-size models is CPU work: about 3 minutes on 2 cores (measured
on a busy 2-core machine: the 2022 models 10 s, ruDetox 35 s; the TextDetox ones 136 s in
``bench_textdetox2025.py``), 11 GB of disk; ``--keep DIR`` builds them once. The scoring on
one H100 is estimated (not yet measured) at about 10 minutes for everything at the default
three precisions, the official 2025 procedure the longest (5,400 pairs through XLM-R large
x3, LaBSE x4 and xCOMET-lite x3); ``--limit 200`` about a third of that (200 pairs per
RUSSE-2022 submission and per 2024 language). ``--device cpu --limit 50 --small`` (the
test suite's run): 20-30 s on the 2-core development machine (2 minutes while other jobs
loaded it, which one thread avoids: the test sets ``OMP_NUM_THREADS=1``).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
# Every run computes: no on-disk cache of model outputs, and no hub (every model is a local folder).
os.environ["DETOX_SCORE_CACHE_MB"] = "0"
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from tqdm.auto import tqdm, trange  # noqa: E402

import bench_scoring as b22  # noqa: E402
import bench_textdetox2024 as b24  # noqa: E402
import bench_textdetox2025 as b25  # noqa: E402
from detox_core import data, editions  # noqa: E402
from detox_core.metrics import get_preset  # noqa: E402
from detox_core.metrics.textdetox2025 import STA_TOKENIZER  # noqa: E402
from detox_core.models import ModelPool, xcomet  # noqa: E402

PRESETS = ("russe2022", "rudetox-mera", "textdetox2024", "textdetox2025")
PRECISIONS = ("float32", "float16", "bfloat16")
TOLERANCE = 5e-4  # per-system |J difference| that half precision must stay within
TARGET_2022 = 10.0  # speed-up of the pool over the official procedure on the 2022 recipe
WARM_UP = (["прогрев моделей, первый текст", "warm-up text"], ["прогрев моделей", "warm up"])

# Tiny configs of the same architectures (--small): the test suite's models.
SMALL = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128)
SMALL_VOCAB = 32_000
# ruDetox: DeepPavlov/rubert-base-cased-conversational (both BERT classifiers) and
# ai-forever/ruRoberta-large (the RuCoLa classifier), from their hub config.json files.
RUBERT_CONV = dict(vocab_size=119_547, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                   intermediate_size=3072, max_position_embeddings=512)
RUROBERTA_LARGE = dict(vocab_size=50_265, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                       intermediate_size=4096, max_position_embeddings=514)
MERA_LABELS = {"sta": {0: "neutral", 1: "toxic"}, "sim": {0: "not_paraphrase", 1: "paraphrase"},
               "fl": {0: "unacceptable", 1: "acceptable"}}


def _load_by_path(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The ruDetox official procedure as the test restates it (MERA's eval.py).
mera_official = _load_by_path(ROOT / "tests" / "metrics" / "test_rudetox_mera.py", "rudetox_mera_official")


# ----------------------------------------------------------------------------- data


@dataclass
class Systems:
    """The pairs one preset scores: per system its outputs (and references) for shared inputs."""

    label: str
    inputs: list[str]
    langs: list[str]
    outputs: dict[str, list[str]]
    references: dict[str, list[str] | None]

    @property
    def pairs(self) -> int:
        return len(self.inputs) * len(self.outputs)


def russe2022_systems(limit: int | None) -> Systems:
    test = editions.load_dataset("russe2022", ["test"])
    inputs = test["toxic_comment"].tolist()[:limit]
    folder = data.data_dir() / "russe2022" / "outputs"
    paths = sorted(folder.glob("*_test.txt"))
    if len(paths) < 7:
        raise data.DataMissingError(f"expected the 7 RUSSE-2022 test submissions in {folder}, found {len(paths)}")
    outputs = {p.name.removesuffix("_test.txt"): data.load_submission(p)["neutral_sentence"].tolist()[:limit]
               for p in paths}
    return Systems(f"{len(outputs)} RUSSE-2022 test submissions", inputs, ["ru"] * len(inputs), outputs,
                   dict.fromkeys(outputs))


def textdetox_systems(preset: str, limit: int | None) -> Systems:
    inputs, langs = b24.pick_rows(b24.load_inputs("test"), limit or 10**9)
    outputs = [b24.rewrite(t) for t in inputs]
    # 2024: the input is the pseudo-reference; 2025: the input without its two longest words.
    refs = list(inputs) if preset == "textdetox2024" else [b24.rewrite(b24.rewrite(t)) for t in inputs]
    return Systems("TextDetox 2024 test set, 'delete the longest word'", inputs, langs, {"delete": outputs},
                   {"delete": refs})


# ----------------------------------------------------------------------------- models


@contextmanager
def _patched(module, **values):
    old = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in old.items():
            setattr(module, name, value)


def _spread_head(model, head, tok, sample: list[str], second: list[str] | None = None) -> None:
    """Rescale and shift a random 2-class head so the logit difference has mean 0 and spread
    ``bench_textdetox2024.HEAD_SPREAD`` on ``sample`` (as its ``build_sta`` does): P varies."""
    with torch.no_grad():
        diff = []
        for i in range(0, len(sample), 16):
            texts = [sample[i : i + 16]] + ([second[i : i + 16]] if second else [])
            logits = model(**tok(*texts, return_tensors="pt", padding=True, truncation=True)).logits
            diff.append(logits[:, 0] - logits[:, 1])
        diff = torch.cat(diff)
        scale = b24.HEAD_SPREAD / max(float(diff.std()), 1e-6)
        head.weight.mul_(scale)
        head.bias.mul_(scale)
        shift = scale * float(diff.mean()) / 2
        head.bias.add_(torch.tensor([-shift, shift]))


def build_mera(work: Path, texts: list[str], sample: list[str], small: bool) -> dict[str, Path]:
    """ruDetox's three classifiers with random weights (spread heads), saved with tokenizers:
    STA and SIM conversational RuBERT-base (SIM reads pairs), FL RoBERTa-large. The BERTs
    get a WordPiece tokenizer, the RoBERTa a Unigram one in RoBERTa's special-token layout
    (``<s>``=0, ``<pad>``=1, ``</s>``=2), all trained on ``texts``."""
    from transformers import BertConfig, BertForSequenceClassification, RobertaConfig, RobertaForSequenceClassification

    out = {role: work / role for role in ("sta", "sim", "fl")}
    if all((f / "config.json").is_file() for f in out.values()):
        return out
    vocab = 8_000 if small else 32_000
    bert_tok, roberta_tok = b24.bert_tokenizer(texts, vocab), b24.xlmr_tokenizer(texts, vocab)
    bert = {**RUBERT_CONV, **SMALL, "vocab_size": SMALL_VOCAB} if small else RUBERT_CONV
    roberta = {**RUROBERTA_LARGE, **SMALL, "vocab_size": SMALL_VOCAB} if small else RUROBERTA_LARGE
    for seed, role in enumerate(("sta", "sim", "fl"), start=3):
        labels = MERA_LABELS[role]
        extra = dict(num_labels=2, id2label=labels, label2id={v: k for k, v in labels.items()})
        torch.manual_seed(seed)
        if role == "fl":
            cfg = RobertaConfig(**roberta, type_vocab_size=1, layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0,
                                eos_token_id=2, **extra)
            model, tok = RobertaForSequenceClassification(cfg).eval(), roberta_tok
            _spread_head(model, model.classifier.out_proj, tok, sample)
        else:
            model, tok = BertForSequenceClassification(BertConfig(**bert, **extra)).eval(), bert_tok
            second = [b24.rewrite(t) for t in sample] if role == "sim" else None  # SIM reads (input, output)
            _spread_head(model, model.classifier, tok, sample, second)
        model.save_pretrained(out[role])
        tok.save_pretrained(out[role])
        del model
        gc.collect()
    return out


def build_textdetox(work: Path, texts: list[str], sample: list[str], small: bool) -> dict[str, Path]:
    """The 2024 and 2025 models: ``bench_textdetox2025.build_models`` (full size), or the same
    builders with tiny configs."""
    if not small:
        return b25.build_models(work, texts, sample)
    out = {"sta25": work / "sta-large", "sta24": work / "sta-base", "sim": work / "sim",
           "sta_tokenizer": work / "cardiffnlp-tokenizer"}
    xlmr = {**b24.XLMR_FULL, **SMALL, "vocab_size": SMALL_VOCAB}
    labse = {**b24.LABSE_FULL, **SMALL, "vocab_size": SMALL_VOCAB}
    if not (out["sta_tokenizer"] / "tokenizer.json").is_file():
        b24.xlmr_tokenizer(texts[::-1], vocab_size=8_000).save_pretrained(out["sta_tokenizer"])
    tok = b24.xlmr_tokenizer(texts, vocab_size=8_000)  # both classifiers' own (2025 reads the one above)
    for key, seed in (("sta25", 0), ("sta24", 1)):
        if not (out[key] / "config.json").is_file():
            b24.build_sta(out[key], tok, xlmr, sample, seed=seed)
    if not (out["sim"] / "modules.json").is_file():
        b24.build_sim(out["sim"], b24.bert_tokenizer(texts, vocab_size=8_000), labse)
    mdeberta = {**b25.MDEBERTA_BASE, **SMALL, "vocab_size": SMALL_VOCAB}
    lite = {**b25.XCOMET_LITE, "hidden_sizes": [128, 64], "word_layer": SMALL["num_hidden_layers"]}
    with _patched(b25, MDEBERTA_BASE=mdeberta, XCOMET_LITE=lite):
        out["fl"], out["encoder"] = b25.build_xcomet(work, texts)
    return out


def build_russe2022(work: Path, texts: list[str], small: bool) -> dict[str, Path]:
    """``bench_scoring.build_models``; tiny ones with a wider random init (0.2, as the tests'
    tiny models) so that SIM and FL vary between texts (at 0.02 a 2-layer model gives every
    text the same J to 1e-4, which would let a reordering pass the equality check)."""
    if (work / "sim" / "config.json").is_file():
        return {role: work / role for role in ("sta", "fl", "sim")}
    small_arch = {**SMALL, "vocab_size": SMALL_VOCAB, "initializer_range": 0.2}
    return b22.build_models(work, texts, small_arch if small else None)


# ----------------------------------------------------------------------------- the recipes


def _on_device(tokenizer, device: str) -> Callable:
    """The tokenizer, its batches moved to ``device`` (``.to(model.device)`` in MERA's code)."""
    return lambda *args, **kwargs: tokenizer(*args, **kwargs).to(device)


def official_xcomet(loaded, src: list[str], mt: list[str], ref: list[str], batch_size: int = 512) -> np.ndarray:
    """xCOMET-lite scores as ``CometFluency.get_scores(batch_size=512)`` gets them: batches in
    comet's length-batching order (by source length), fp32, no memo."""
    order = np.argsort([len(s) for s in src], kind="stable")
    out = np.empty(len(src))
    for start in trange(0, len(order), batch_size, desc="Calculating xCOMET-lite scores"):
        idx = order[start : start + batch_size]
        res = xcomet._run(loaded, [xcomet.item(src[i], mt[i], ref[i]) for i in idx])
        out[idx] = [float(r[0]) for r in res]
    return out


def _official_2025_modules():
    """The vendored official toxicity.py and similarity.py (similarity.py sets every existing
    logger to WARNING on import: their levels are restored)."""
    import logging

    levels = {name: logging.getLogger(name).level for name in list(logging.root.manager.loggerDict)}
    try:
        tox = _load_by_path(ROOT / "tests" / "comet" / "official_toxicity.py", "official_toxicity")
        sim = _load_by_path(ROOT / "tests" / "comet" / "official_similarity.py", "official_similarity")
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
    return tox, sim


@dataclass
class Recipe:
    """How one preset is run both ways."""

    name: str
    describe: str
    dataset: str  # "russe2022" or "textdetox"
    load_official: Callable[[dict[str, Path], str], Any]
    score_official: Callable[[Any, list[str], list[str], list[str] | None], np.ndarray]  # per-sentence J
    preset_models: Callable[[dict[str, Path]], dict[str, str]]
    model_map: Callable[[dict[str, Path]], dict[str, str]] = lambda folders: {}
    calibrated: bool = True


def _load_2022(folders, device):
    b22.naive_score(folders, *WARM_UP, device=device)  # loads the models into NAIVE_CACHE
    return folders, device


def _free_2022(device: str) -> None:
    for key in [k for k in b22.NAIVE_CACHE if k[1] == device]:
        del b22.NAIVE_CACHE[key]


def _load_mera(folders, device):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    return {role: (AutoModelForSequenceClassification.from_pretrained(folders[role]).eval().to(device),
                   _on_device(AutoTokenizer.from_pretrained(folders[role]), device)) for role in ("sta", "sim", "fl")}


def _score_mera(loaded, inputs, outputs, references):
    preds = [o.strip() for o in outputs]  # run_evaluation: sentence.strip()
    sta = mera_official.classify_texts(*loaded["sta"], preds, target_label=0)
    sim = mera_official.classify_texts(*loaded["sim"], list(inputs), preds, target_label="paraphrase")
    fl = mera_official.classify_texts(*loaded["fl"], preds, target_label=1)
    return np.asarray(sta * sim * fl, dtype=np.float64)


def _load_2025(folders, device):
    tox_module, sim_module = _official_2025_modules()
    tox = tox_module.ToxicityMeasurement(tox_module.ToxicityConfig(
        tox_model_name=str(folders["sta25"]), tokenizer_name=str(folders["sta_tokenizer"]), device=device))
    sim = sim_module.SimilarityMeasurement(sim_module.SimilarityConfig(sim_model_name=str(folders["sim"]),
                                                                       device=device))
    pool = ModelPool(device=device, precision="float32", backend="torch",
                     model_map={xcomet.ENCODER: str(folders["encoder"])})
    fl = pool.get(xcomet.MODEL, xcomet.KIND, "fl", str(folders["fl"]), xcomet.ENCODER)
    return tox, sim, fl


def _score_2025(loaded, inputs, outputs, references):
    tox, sim, fl = loaded
    sta = np.asarray(tox.compare_toxicity(original_texts=inputs, rewritten_texts=outputs, reference_texts=references))
    similarity = np.asarray(sim.evaluate_similarity(original_texts=inputs, rewritten_texts=outputs,
                                                    reference_texts=references))
    return sta * similarity * official_xcomet(fl, inputs, outputs, references)


RECIPES = {
    "russe2022": Recipe(
        "russe2022", "BERT-base STA and FL (vocab 119,547), LaBSE-en-ru's BERT-base SIM (vocab 55,083)", "russe2022",
        _load_2022, lambda h, x, y, r: b22.naive_score(h[0], x, y, device=h[1])["j"],
        lambda f: {role: str(f[role]) for role in ("sta", "sim", "fl")}),
    "rudetox-mera": Recipe(
        "rudetox-mera", "conversational RuBERT-base STA and pair SIM (vocab 119,547), RoBERTa-large FL (vocab "
        "50,265); raw scores", "russe2022", _load_mera, _score_mera,
        lambda f: {role: str(f[role]) for role in ("sta", "sim", "fl")}, calibrated=False),
    "textdetox2024": Recipe(
        "textdetox2024", "XLM-R (the checkpoint's base size, vocab 250,002) STA, LaBSE (vocab 501,153) SIM, chrF FL",
        "textdetox", lambda f, device: b24.load_official({"sta": f["sta24"], "sim": f["sim"]}, device),
        lambda h, x, y, r: b24.official_scores(h, x, y, r)["J"],
        lambda f: {"sta": str(f["sta24"]), "sim": str(f["sim"])}),
    "textdetox2025": Recipe(
        "textdetox2025", "XLM-R large STA (another tokenizer), LaBSE SIM, xCOMET-lite on mDeBERTa-v3-base FL "
        "(always fp32 in the pool)", "textdetox", _load_2025, _score_2025,
        lambda f: {"sta": str(f["sta25"]), "sim": str(f["sim"]), "fl": str(f["fl"])},
        model_map=lambda f: {STA_TOKENIZER: str(f["sta_tokenizer"]), xcomet.ENCODER: str(f["encoder"])}),
}


# ----------------------------------------------------------------------------- measuring


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _reset_peak(device: str) -> None:
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    else:
        try:  # Linux: reset the process's peak RSS (VmHWM)
            Path("/proc/self/clear_refs").write_text("5")
        except OSError:
            pass


def _peak(device: str) -> str:
    if device.startswith("cuda"):
        return f"{torch.cuda.max_memory_allocated() / 2**30:.2f}GiB-GPU"
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return f"{int(line.split()[1]) / 2**20:.2f}GiB-RSS"
    except OSError:
        pass
    import resource

    return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f}GiB-RSS(process)"


@dataclass
class Row:
    side: str
    precision: str
    load: float
    score: float
    pairs: int
    peak: str
    j: dict[str, np.ndarray]  # per system, per sentence


def _timed(device: str, side: str, precision: str, load: Callable[[], Any], score: Callable[[Any, str], np.ndarray],
           systems: Systems, free: Callable[[Any], None]) -> Row:
    _reset_peak(device)
    t = time.perf_counter()
    handle = load()
    _sync(device)
    load_time = time.perf_counter() - t
    t = time.perf_counter()
    scores = {}
    for name in tqdm(systems.outputs, desc=f"{side} {precision}", unit="system", leave=False):
        scores[name] = np.asarray(score(handle, name), dtype=np.float64)
    _sync(device)
    row = Row(side, precision, load_time, time.perf_counter() - t, systems.pairs, _peak(device), scores)
    free(handle)
    del handle
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return row


def run_official(recipe: Recipe, folders, systems: Systems, device: str) -> Row:
    def free(handle):
        if recipe.name == "russe2022":
            _free_2022(device)

    def load():
        handle = recipe.load_official(folders, device)
        recipe.score_official(handle, *WARM_UP, WARM_UP[1])  # first calls (kernels, allocator) off the clock
        return handle

    return _timed(device, "official", "float32", load,
                  lambda h, name: recipe.score_official(h, systems.inputs, systems.outputs[name],
                                                        systems.references[name]),
                  systems, free)


def run_pool(recipe: Recipe, folders, systems: Systems, device: str, precision: str) -> Row:
    def load():
        pool = ModelPool(device=device, precision=precision, backend="torch", model_map=recipe.model_map(folders))
        preset = get_preset(recipe.name, pool=pool, models=recipe.preset_models(folders))
        for role, kind in preset.model_kinds.items():
            pool.get(preset.models[role], kind, role, preset.sources.get(role), preset.companions.get(role))
        preset.score(*WARM_UP, [[t] for t in WARM_UP[1]], calibrated=recipe.calibrated)
        return preset

    def score(preset, name):
        refs = systems.references[name]
        frame = preset.score(systems.inputs, systems.outputs[name], None if refs is None else [[r] for r in refs],
                             calibrated=recipe.calibrated, progress=b24.tqdm_progress())
        return frame["j"].to_numpy(dtype=np.float64)

    return _timed(device, "pool", precision, load, score, systems, lambda preset: None)


def system_scores(j: np.ndarray, langs: list[str]) -> tuple[float, dict[str, float]]:
    """The official system score (mean over languages of the per-language means) and the
    per-language means."""
    per_lang = {lang: float(np.mean(j[[k == lang for k in langs]])) for lang in dict.fromkeys(langs)}
    return float(np.mean(list(per_lang.values()))), per_lang


def differences(row: Row, reference: Row, langs: list[str]) -> dict[str, float]:
    """Largest |J difference| to ``reference``: per sentence, per (system, language), per system."""
    out = {"sentence": 0.0, "language": 0.0, "system": 0.0}
    for name, j in row.j.items():
        ref = reference.j[name]
        out["sentence"] = max(out["sentence"], float(np.max(np.abs(j - ref))))
        (s, per_lang), (s_ref, per_lang_ref) = system_scores(j, langs), system_scores(ref, langs)
        out["system"] = max(out["system"], abs(s - s_ref))
        out["language"] = max(out["language"], max(abs(per_lang[k] - per_lang_ref[k]) for k in per_lang))
    return out


HEADER = (f"{'preset':<14}{'side':<9}{'precision':<10}{'load_s':>8}{'score_s':>9}{'pairs/s':>10}{'speedup':>9}"
          f"{'dJ_sent':>10}{'dJ_lang':>10}{'dJ_sys':>10}  {'<=5e-4':<7}peak_memory")


def format_row(preset: str, row: Row, official: Row, diffs: dict[str, float]) -> str:
    verdict = "PASS" if diffs["system"] <= TOLERANCE else "FAIL"
    if row is official:
        verdict = "ref"
    return (f"{preset:<14}{row.side:<9}{row.precision:<10}{row.load:8.1f}{row.score:9.2f}"
            f"{row.pairs / row.score:10.1f}{official.score / row.score:8.2f}x"
            f"{diffs['sentence']:10.1e}{diffs['language']:10.1e}{diffs['system']:10.1e}  {verdict:<7}{row.peak}")


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_device = "cuda" if torch.cuda.is_available() else "cpu"
    parser.add_argument("--device", choices=("cuda", "cpu"), default=default_device,
                        help=f"where both sides run (default here: {default_device})")
    parser.add_argument("--limit", type=int, metavar="N",
                        help="first N pairs of each RUSSE-2022 submission and of each 2024 language (default: all)")
    parser.add_argument("--presets", nargs="+", choices=PRESETS, default=list(PRESETS), metavar="PRESET",
                        help=f"presets to run (default: all: {' '.join(PRESETS)})")
    parser.add_argument("--precisions", nargs="+", choices=PRECISIONS, metavar="P",
                        help="pool precisions (default: all three on cuda; the CPU runs float32 only)")
    parser.add_argument("--small", action="store_true",
                        help="tiny models of the same architectures (2 layers, hidden 64): the test suite's run")
    parser.add_argument("--keep", metavar="DIR", help="build the models here and keep them (default: a temporary "
                        "folder); a second run reuses them")
    args = parser.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: no CUDA device here (use --device cpu)")
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    precisions = list(args.precisions or (PRECISIONS if args.device == "cuda" else ("float32",)))
    if args.device == "cpu" and any(p != "float32" for p in precisions):
        print(f"half precision needs a GPU: {', '.join(p for p in precisions if p != 'float32')} not run on cpu "
              "(the pool runs float32 on the CPU)")
        precisions = ["float32"]
    elif args.device == "cpu":
        print("half precision needs a GPU: float16 and bfloat16 are not run on cpu")
    if "float32" not in precisions:
        precisions.insert(0, "float32")  # the pool's fp32 row is the equality check

    try:
        systems = {name: (russe2022_systems(args.limit) if RECIPES[name].dataset == "russe2022"
                          else textdetox_systems(name, args.limit)) for name in args.presets}
        train_2022 = editions.load_dataset("russe2022", ["train"]) if any(
            RECIPES[n].dataset == "russe2022" for n in args.presets) else None
        dev_2024 = b24.load_inputs("dev") if any(RECIPES[n].dataset == "textdetox" for n in args.presets) else None
        test_2024 = b24.load_inputs("test") if dev_2024 is not None else None
    except (data.DataMissingError, data.DetoxInputError) as err:
        print(f"{err}\n(fetch the data first: .venv/bin/python -m detox_core fetch-data)")
        return 1

    device_name = torch.cuda.get_device_name() if args.device == "cuda" else f"cpu ({torch.get_num_threads()} threads)"
    print(f"device: {device_name}; models: {'tiny (--small)' if args.small else 'full size'}, random weights; "
          f"pool precisions: {' '.join(precisions)}; torch {torch.__version__}")
    print("peak_memory: GPU memory allocated by PyTorch" if args.device == "cuda" else
          "peak GPU memory: n/a (cpu); peak_memory is the process's peak RSS")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-gpu-"))
    work = work / ("small" if args.small else "full")
    work.mkdir(parents=True, exist_ok=True)
    results: dict[str, tuple[Row, list[Row]]] = {}
    try:
        t = time.perf_counter()
        folders: dict[str, dict[str, Path]] = {}
        # Tokenizers trained on the corpus (2022: the train set; 2024: the test inputs; tiny
        # models: a part of them); the heads' spread set on dev inputs, which are not scored.
        if train_2022 is not None:
            texts = train_2022["toxic_comment"].tolist() + train_2022["neutral_comment1"].tolist()
            texts = texts[:3000] if args.small else texts
        if "russe2022" in args.presets:
            folders["russe2022"] = build_russe2022(work / "russe2022", texts, args.small)
        if "rudetox-mera" in args.presets:
            sample = editions.load_dataset("russe2022", ["dev"])["toxic_comment"].tolist()[:64]
            folders["rudetox-mera"] = build_mera(work / "rudetox-mera", texts, sample, args.small)
        if dev_2024 is not None:
            tdx_texts = b24.pick_rows(test_2024, 200)[0] if args.small else test_2024["toxic_comment"].tolist()
            tdx = build_textdetox(work / "textdetox", tdx_texts, b24.pick_rows(dev_2024, 8)[0], args.small)
            folders["textdetox2024"] = folders["textdetox2025"] = tdx
        print(f"models ready in {time.perf_counter() - t:.0f} s (built, or reused from --keep) under {work}\n")

        for name in args.presets:
            recipe, sys_ = RECIPES[name], systems[name]
            tiny = " (here tiny versions: 2 layers, hidden 64)" if args.small else ""
            print(f"== {name}: {recipe.describe}{tiny}\n   data: {sys_.label}: {len(sys_.outputs)} system(s) x "
                  f"{len(sys_.inputs)} pairs = {sys_.pairs} pairs, {len(set(sys_.langs))} language(s)", flush=True)
            official = run_official(recipe, folders[name], sys_, args.device)
            rows = [run_pool(recipe, folders[name], sys_, args.device, p) for p in precisions]
            results[name] = (official, rows)
            j_all = np.concatenate(list(official.j.values()))
            print(f"   official J per sentence: mean {j_all.mean():.4f}, sd {j_all.std():.4f}, "
                  f"range {j_all.min():.4f}-{j_all.max():.4f}")
            print(HEADER)
            for row in [official, *rows]:
                print(format_row(name, row, official, differences(row, official, sys_.langs)))
            print(flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work.parent, ignore_errors=True)

    print(f"verdicts: largest per-system |J difference| to the official fp32 scores <= {TOLERANCE:g} "
          "(what would make half precision the GPU default)")
    for name, (official, rows) in results.items():
        parts = []
        for row in rows:
            d = differences(row, official, systems[name].langs)["system"]
            parts.append(f"{row.precision} {'PASS' if d <= TOLERANCE else 'FAIL'} ({d:.1e})")
        spread = float(np.concatenate(list(official.j.values())).std())
        weak = f"  [J sd {spread:.1e} on these random models: weak evidence]" if spread < 0.01 else ""
        print(f"  {name:<14}" + ", ".join(parts) + weak)
    if "russe2022" in results:
        official, rows = results["russe2022"]
        best = min(rows, key=lambda r: r.score)
        ratio = official.score / best.score
        print(f"russe2022: the pool ({best.precision}) is {ratio:.1f}x the official procedure (target >= "
              f"{TARGET_2022:g}x on a GPU, full-size models): {'met' if ratio >= TARGET_2022 else 'not met'}"
              + ("" if args.device == "cuda" and not args.small else " [not a GPU measurement]"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
