"""Throughput of the russe2022 preset on the CPU: the model pool against the official
procedure run naively, with a profile of where the time goes.

Builds full-size models with the real architectures and random weights (no download):
BERT-base with a ~120k vocabulary for STA and FL (as ``s-nlp/russian_toxicity_classifier``
and ``s-nlp/rubert-base-corruption-detector``) and BERT-base for SIM (as
``cointegrated/LaBSE-en-ru``), with a WordPiece tokenizer trained on the corpus. Then
scores 3 submissions of the 875 test inputs:

- naive: each submission alone, batches of 32 in file order, PyTorch fp32, the inputs
  scored again for every submission (the original evaluation script's procedure);
- pool: :class:`detox_core.models.ModelPool` as the app and the CLI use it (token-budget
  batches of texts of about one length, inputs and repeated texts run once, PyTorch);
- the two sides take the submissions in turn (naive, pool, naive, pool...), so that a load
  on the machine that comes and goes weighs on both alike;
- pool, second run: a new pool (a restarted server or a second ``score`` command) on the
  on-disk cache the first run filled: no text is run again;
- a GEMM probe: this machine's fp32 matmul peak in torch, in the same run.

Prints the times, pairs/s, the ratio (target >= 4x) and the largest difference of any
per-sentence and per-system score (target <= 1e-4); then the profile of both sides:
seconds in tokenization, padding, model forward, post-processing and the rest (Python,
I/O), the share of padding tokens, the model FLOPs each side ran and the GFLOP/s reached
against the probe's peak. Run: ``.venv/bin/python benchmarks/bench_scoring.py`` (about
10 minutes on 2 cores; ``--n 200`` for a quick look; ``--keep DIR`` to build the models once).
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


def build_models(folder: Path, texts: list[str], arch: dict | None = None) -> dict[str, Path]:
    """STA, FL and SIM as above; ``arch`` overrides BertConfig sizes (e.g. tiny ones for a test)."""
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
        cfg = BertConfig(**{"vocab_size": vocab, **(arch or {})})  # BERT-base: 12 layers, hidden 768, 12 heads
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


def naive_score(folders: dict[str, Path], inputs: list[str], outputs: list[str],
                device: str = "cpu") -> dict[str, np.ndarray]:
    """The original procedure: file order, batches of 32, fp32, nothing reused (on ``device``)."""
    from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

    def run(folder: Path, texts: list[str], head: str) -> np.ndarray:
        if (folder, device) not in NAIVE_CACHE:  # loaded once, outside the timed runs
            cls = AutoModelForSequenceClassification if head == "probs" else AutoModel
            NAIVE_CACHE[folder, device] = (AutoTokenizer.from_pretrained(folder),
                                           cls.from_pretrained(folder).eval().to(device))
        tok, model = NAIVE_CACHE[folder, device]
        res = []
        for i in range(0, len(texts), 32):
            batch = tok(texts[i : i + 32], return_tensors="pt", padding=True, truncation=True,
                        max_length=512).to(device)
            with torch.no_grad():
                out = model(**batch)
                if head == "probs":
                    res.append(torch.softmax(out.logits, -1).cpu().numpy())
                else:
                    res.append(torch.nn.functional.normalize(out.pooler_output).cpu().numpy())
        return np.concatenate(res).astype(np.float64)

    p_neutral = run(folders["sta"], outputs, "probs")[:, 0]
    cos = (run(folders["sim"], inputs, "emb") * run(folders["sim"], outputs, "emb")).sum(1)
    p_in = run(folders["fl"], inputs, "probs")[:, 1]
    p_out = run(folders["fl"], outputs, "probs")[:, 1]
    cal = Russe2022.calibration
    sta, sim, fl = cal.apply("sta", p_neutral), cal.apply("sim", cos), cal.apply("fl", np.minimum(0, p_out - p_in))
    return {"sta": sta, "sim": sim, "fl": fl, "j": sta * sim * fl}


NAIVE_CACHE: dict = {}


def bert_flops(n: int, width: int, hidden: int = 768, layers: int = 12) -> float:
    """FLOPs of a BERT-base forward pass on ``n`` sequences of ``width`` tokens: per layer
    the Q, K, V, output and feed-forward projections (24 w d^2) and attention (4 w^2 d)."""
    return float(n) * layers * (24 * width * hidden**2 + 4 * width**2 * hidden)


def gemm_peak(trials: int = 10) -> float:
    """GFLOP/s of an fp32 matmul the size of BERT-base's feed-forward on 2,048 tokens: the
    best of ``trials`` short trials (taken at the start and at the end of the run: the
    machine's peak, not the moment's)."""
    a, b = torch.randn(2048, 768), torch.randn(768, 3072)
    torch.matmul(a, b)
    best = 0.0
    for _ in range(trials):
        t = time.perf_counter()
        for _ in range(5):
            torch.matmul(a, b)
        best = max(best, 5 * 2 * 2048 * 768 * 3072 / (time.perf_counter() - t) / 1e9)
    return best


def naive_shapes(folders: dict[str, Path], inputs: list[str], subs: dict[str, list[str]]) -> list[tuple[int, int, int]]:
    """(texts, padded width, real tokens) of every batch the naive procedure runs."""
    from transformers import AutoTokenizer

    shapes = []
    for outputs in subs.values():
        for role, texts in (("sta", outputs), ("sim", inputs), ("sim", outputs), ("fl", inputs), ("fl", outputs)):
            tok = AutoTokenizer.from_pretrained(folders[role])
            for i in range(0, len(texts), 32):
                lengths = [len(x) for x in tok(texts[i : i + 32], truncation=True, max_length=512)["input_ids"]]
                shapes.append((len(lengths), max(lengths), sum(lengths)))
    return shapes


def per_system(frame_j: np.ndarray, ref_j: np.ndarray) -> float:
    return abs(float(np.mean(frame_j)) - float(np.mean(ref_j)))


def run_pool(pool: ModelPool, folders: dict[str, Path], inputs: list[str], subs: dict[str, list[str]],
             label: str) -> tuple[float, dict]:
    preset = get_preset("russe2022", pool=pool, models={r: str(f) for r, f in folders.items()})
    for role, kind in (("sta", "classifier"), ("sim", "encoder"), ("fl", "classifier")):
        pool.get(preset.models[role], kind, role, preset.sources.get(role))
    frames = {}
    t0 = time.perf_counter()
    for name, outputs in subs.items():
        t = time.perf_counter()
        frames[name] = preset.score(inputs, outputs)
        print(f"{label:<13} {name:<26} {time.perf_counter() - t:7.1f} s")
    return time.perf_counter() - t0, frames


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=875, help="sentences per submission (default: all 875)")
    parser.add_argument("--keep", metavar="DIR", help="build the models here and keep them (default: a temporary folder)")
    parser.add_argument("--token-budget", type=int, default=None, help="the pool's tokens per batch (default: its own)")
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
    cache_dir = Path(tempfile.mkdtemp(prefix="bench-cache-"))
    try:
        t = time.perf_counter()
        texts = train["toxic_comment"].tolist() + train["neutral_comment1"].tolist()
        folders = {r: work / r for r in ("sta", "fl", "sim")} if (work / "sim" / "config.json").is_file() else build_models(work, texts)
        print(f"models: BERT-base x3 (vocab 119,547 / 119,547 / 55,083), random weights, in {time.perf_counter() - t:.0f} s")
        print(f"torch threads: {torch.get_num_threads()}; {len(SUBMISSIONS)} submissions x {len(inputs)} pairs")
        peak = gemm_peak()
        print(f"GEMM probe (fp32, 2048x768 @ 768x3072, torch), best of 10 at the start: {peak:.1f} GFLOP/s\n")

        # ---- naive and pool, submission by submission in turn (a load on the machine that
        # comes and goes then weighs on both sides alike)
        from detox_core.models.disk_cache import DiskCache

        naive_scores, frames = {}, {}
        naive_total = pool_total = 0.0
        naive_score(folders, inputs[:4], subs[SUBMISSIONS[0]][:4])  # load the models outside the timing
        disk_path = cache_dir / "outputs.sqlite"
        pool = ModelPool(device="cpu", backend="auto", token_budget=args.token_budget,
                         disk_cache=DiskCache(disk_path, 512 * 1024 * 1024))
        preset = get_preset("russe2022", pool=pool, models={r: str(f) for r, f in folders.items()})
        for role, kind in (("sta", "classifier"), ("sim", "encoder"), ("fl", "classifier")):
            pool.get(preset.models[role], kind, role, preset.sources.get(role))
        pool.profile = {}
        print(f"pool backend: {pool.backend}; token budget {pool.token_budget} tokens a batch")
        for name, outputs in subs.items():
            t = time.perf_counter()
            naive_scores[name] = naive_score(folders, inputs, outputs)
            took = time.perf_counter() - t
            naive_total += took
            print(f"naive         {name:<26} {took:7.1f} s")
            t = time.perf_counter()
            frames[name] = preset.score(inputs, outputs)
            took = time.perf_counter() - t
            pool_total += took
            print(f"pool          {name:<26} {took:7.1f} s")
        peak = max(peak, gemm_peak())
        profile, tokens, padded = pool.profile, pool.forward_tokens, pool.padded_tokens
        again = ModelPool(device="cpu", backend="auto", token_budget=args.token_budget,
                          disk_cache=DiskCache(disk_path, 512 * 1024 * 1024))
        again_total, again_frames = run_pool(again, folders, inputs, subs, "pool, 2nd run")
        sent_diff = sys_diff = again_diff = 0.0
        for name in subs:
            for axis in ("sta", "sim", "fl", "j"):
                sent_diff = max(sent_diff, float(np.abs(frames[name][axis].to_numpy() - naive_scores[name][axis]).max()))
                again_diff = max(again_diff, float(np.abs(frames[name][axis].to_numpy() - again_frames[name][axis].to_numpy()).max()))
            sys_diff = max(sys_diff, per_system(frames[name]["j"].to_numpy(), naive_scores[name]["j"]))
        shapes = naive_shapes(folders, inputs, subs)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(cache_dir, ignore_errors=True)
    pairs = len(inputs) * len(subs)
    ratio = naive_total / pool_total
    print(f"\nnaive:          {pairs / naive_total:8.1f} pairs/s ({naive_total:.1f} s)")
    print(f"pool:           {pairs / pool_total:8.1f} pairs/s ({pool_total:.1f} s)  {ratio:.2f}x (target >= 4x)")
    print(f"pool, 2nd run:  {pairs / again_total:8.1f} pairs/s ({again_total:.2f} s)  {naive_total / again_total:.0f}x, "
          f"{again.forward_texts} texts run, differences to the 1st run {again_diff:.1e}")
    print(f"largest difference to naive: per sentence {sent_diff:.2e}, per system J {sys_diff:.2e} (target <= 1e-4)")

    # ---- profile
    n_flops = sum(bert_flops(n, w) for n, w, _ in shapes)
    n_useful = sum(_useful(n, w, real) for n, w, real in shapes)
    p_batches = profile.get("batches", [])
    p_flops = sum(bert_flops(n, w) for _, n, w, _ in p_batches)
    p_useful = sum(_useful(n, w, real) for _, n, w, real in p_batches)
    n_tokens, n_padded = sum(r for *_, r in shapes), sum(n * w for n, w, _ in shapes)
    stages = {k: profile.get(k, 0.0) for k in ("tokenize", "pad", "forward", "post")}
    other = pool_total - sum(stages.values())
    print("\nwhere the pool's first run goes:")
    for k, v in {**stages, "other (Python, chrF, I/O)": other}.items():
        print(f"  {k:<26} {v:7.1f} s  {100 * v / pool_total:5.1f}%")
    print(f"texts run: naive {sum(n for n, _, _ in shapes):,}, pool {pool.forward_texts:,} "
          f"(inputs once, repeated outputs once)")
    print(f"padding: naive {100 * (1 - n_tokens / n_padded):.1f}% of the tokens run, pool {100 * (1 - tokens / padded):.1f}%")
    print(f"model FLOPs: naive {n_flops / 1e12:.2f} TFLOP ({n_useful / 1e12:.2f} on real tokens), "
          f"pool {p_flops / 1e12:.2f} TFLOP ({p_useful / 1e12:.2f} on real tokens): {n_flops / max(p_flops, 1):.2f}x less work")
    print(f"GEMM probe, best of the start and the end of the run: {peak:.1f} GFLOP/s")
    print(f"GFLOP/s in the forward passes: pool {p_flops / max(stages['forward'], 1e-9) / 1e9:.1f} "
          f"({100 * p_flops / max(stages['forward'], 1e-9) / 1e9 / peak:.0f}% of the probe's {peak:.1f}); "
          f"naive overall {n_flops / naive_total / 1e9:.1f} ({100 * n_flops / naive_total / 1e9 / peak:.0f}%)")
    bound = n_flops / p_flops * (p_flops / stages["forward"]) / (n_flops / naive_total) if stages["forward"] else 0
    print(f"ratio the FLOPs allow at the pool's forward speed, with nothing else: {bound:.2f}x")
    return 0 if ratio >= 4 and sys_diff <= 1e-4 and sent_diff <= 1e-4 else 2


def _useful(n: int, width: int, real: int) -> float:
    """FLOPs on real tokens only: the batch as if every text had the batch's mean length."""
    return bert_flops(n, max(1, round(real / max(n, 1))))


if __name__ == "__main__":
    sys.exit(main())
