"""Throughput of the russe2022 preset on the CPU: the model pool against a naive loop.

Builds full-size models with the real architectures and random weights (no download):
BERT-base with a ~120k vocabulary for STA and FL (as ``s-nlp/russian_toxicity_classifier``
and ``s-nlp/rubert-base-corruption-detector``) and BERT-base for SIM (as
``cointegrated/LaBSE-en-ru``), with a WordPiece tokenizer trained on the corpus. Then
scores 3 submissions of the 875 test inputs two ways:

- naive: each submission alone, batches of 32 in file order, PyTorch fp32, the inputs
  scored again for every submission (the original evaluation script's procedure);
- pool: :class:`detox_core.models.ModelPool` as the app and the CLI use it (length-sorted
  batches, inputs memoised across submissions, ONNX Runtime on the CPU).

Prints both throughputs, their ratio (target >= 2.5x) and the largest difference of any
per-sentence score (target <= 1e-4). Run: ``.venv/bin/python benchmarks/bench_scoring.py``
(about 10 minutes on 2 cores; ``--n 200`` for a quick look).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from detox_core import data  # noqa: E402
from detox_core import editions
from detox_core.metrics.russe2022 import Russe2022  # noqa: E402
from detox_core.metrics.registry import get_preset  # noqa: E402
from detox_core.models import ModelPool  # noqa: E402

SUBMISSIONS = ("delete_test.txt", "t5_base_10000_test.txt", "ruprompts_test.txt")


def build_models(folder: Path, texts: list[str]) -> dict[str, Path]:
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertForSequenceClassification, BertModel, BertTokenizerFast

    wp = BertWordPieceTokenizer(lowercase=False, strip_accents=False)
    wp.train_from_iterator(texts, vocab_size=30_000, min_frequency=2)
    tok = BertTokenizerFast(tokenizer_object=wp._tokenizer, model_max_length=512, unk_token="[UNK]",
                            sep_token="[SEP]", pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]")
    out = {}
    torch.manual_seed(0)
    for role, vocab, labels in (("sta", 119_547, {0: "neutral", 1: "toxic"}), ("fl", 119_547, {0: "corrupted", 1: "clean"}),
                                ("sim", 55_083, None)):
        cfg = BertConfig(vocab_size=vocab)  # BERT-base: 12 layers, hidden 768, 12 heads
        if labels:
            cfg.num_labels, cfg.id2label, cfg.label2id = 2, labels, {v: k for k, v in labels.items()}
            model = BertForSequenceClassification(cfg)
        else:
            model = BertModel(cfg, add_pooling_layer=True)
        target = folder / role
        model.eval().save_pretrained(target)
        tok.save_pretrained(target)
        out[role] = target
        del model
    return out


def naive_score(folders: dict[str, Path], inputs: list[str], outputs: list[str]) -> dict[str, np.ndarray]:
    """The original procedure: file order, batches of 32, fp32, nothing reused."""
    from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

    def run(folder: Path, texts: list[str], head: str) -> np.ndarray:
        if folder not in NAIVE_CACHE:  # loaded once, outside the timed runs
            cls = AutoModelForSequenceClassification if head == "probs" else AutoModel
            NAIVE_CACHE[folder] = (AutoTokenizer.from_pretrained(folder), cls.from_pretrained(folder).eval())
        tok, model = NAIVE_CACHE[folder]
        res = []
        for i in range(0, len(texts), 32):
            batch = tok(texts[i : i + 32], return_tensors="pt", padding=True, truncation=True, max_length=512)
            with torch.no_grad():
                out = model(**batch)
                if head == "probs":
                    res.append(torch.softmax(out.logits, -1).numpy())
                else:
                    res.append(torch.nn.functional.normalize(out.pooler_output).numpy())
        return np.concatenate(res).astype(np.float64)

    p_neutral = run(folders["sta"], outputs, "probs")[:, 0]
    cos = (run(folders["sim"], inputs, "emb") * run(folders["sim"], outputs, "emb")).sum(1)
    p_in = run(folders["fl"], inputs, "probs")[:, 1]
    p_out = run(folders["fl"], outputs, "probs")[:, 1]
    cal = Russe2022.calibration
    sta, sim, fl = cal.apply("sta", p_neutral), cal.apply("sim", cos), cal.apply("fl", np.minimum(0, p_out - p_in))
    return {"sta": sta, "sim": sim, "fl": fl, "j": sta * sim * fl}


NAIVE_CACHE: dict = {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=875, help="sentences per submission (default: all 875)")
    parser.add_argument("--keep", metavar="DIR", help="build the models here and keep them (default: a temporary folder)")
    args = parser.parse_args()
    try:
        test = editions.load_dataset("russe2022", ["test"])
        train = editions.load_dataset("russe2022", ["train"])
    except data.DataMissingError as err:
        print(err)
        return 1
    inputs = test["toxic_comment"].tolist()[: args.n]
    subs = {}
    for name in SUBMISSIONS:
        path = data.data_dir() / "russe2022" / "outputs" / name
        subs[name] = data.load_submission(path)["neutral_sentence"].tolist()[: args.n]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-models-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        texts = train["toxic_comment"].tolist() + train["neutral_comment1"].tolist()
        folders = {r: work / r for r in ("sta", "fl", "sim")} if (work / "sim" / "config.json").is_file() else build_models(work, texts)
        print(f"models: BERT-base x3 (vocab 119,547 / 119,547 / 55,083), random weights, in {time.perf_counter() - t:.0f} s")
        print(f"torch threads: {torch.get_num_threads()}; {len(SUBMISSIONS)} submissions x {len(inputs)} pairs\n")

        # ---- naive
        naive_scores = {}
        naive_score(folders, inputs[:4], subs[SUBMISSIONS[0]][:4])  # load the models outside the timing
        t0 = time.perf_counter()
        for name, outputs in subs.items():
            t = time.perf_counter()
            naive_scores[name] = naive_score(folders, inputs, outputs)
            print(f"naive  {name:<26} {time.perf_counter() - t:7.1f} s")
        naive_total = time.perf_counter() - t0

        # ---- pool
        pool = ModelPool(device="cpu", backend="auto", cache_dir=work / "onnx")
        preset = get_preset("russe2022", pool=pool, models={r: str(f) for r, f in folders.items()})
        t = time.perf_counter()
        for role, kind in (("sta", "classifier"), ("sim", "encoder"), ("fl", "classifier")):
            pool.get(preset.models[role], kind, role)
        print(f"\npool backend: {pool.backend}; loading (and the one-off ONNX export) {time.perf_counter() - t:.0f} s")
        t0 = time.perf_counter()
        worst = 0.0
        for name, outputs in subs.items():
            t = time.perf_counter()
            frame = preset.score(inputs, outputs)
            print(f"pool   {name:<26} {time.perf_counter() - t:7.1f} s")
            for axis in ("sta", "sim", "fl", "j"):
                worst = max(worst, float(np.abs(frame[axis].to_numpy() - naive_scores[name][axis]).max()))
        pool_total = time.perf_counter() - t0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    pairs = len(inputs) * len(subs)
    print(f"\nnaive: {pairs / naive_total:6.1f} pairs/s ({naive_total:.0f} s)")
    print(f"pool:  {pairs / pool_total:6.1f} pairs/s ({pool_total:.0f} s)")
    ratio = naive_total / pool_total
    print(f"speed-up: {ratio:.2f}x (target >= 2.5x); largest score difference: {worst:.2e} (target <= 1e-4)")
    return 0 if ratio >= 2.5 and worst <= 1e-4 else 2


if __name__ == "__main__":
    sys.exit(main())
