"""The textdetox2025 preset's cost on the CPU, per axis, against the textdetox2024 preset.

Both presets run as the app runs them (``get_preset(name, models={role: folder})`` over a
fresh :class:`detox_core.models.ModelPool`, PyTorch fp32, batches of 32) on the same
pairs, in one run, with their models loaded before the clock starts. Per axis:

- 2025: STA = CLS-NEW, the classifier over inputs, outputs and references (3 passes);
  SIM = SIM-JOINED, LaBSE over inputs, outputs and references; FL = xCOMET-lite, three
  joined inputs ([mt:src], [mt:ref], [mt:src:ref]) per pair through mdeberta-v3-base;
- 2024: STA = the classifier over the outputs; SIM = LaBSE over inputs and outputs;
  FL = chrF (no model).

Models: full size, random weights, built offline with the real architectures (the
builders of ``bench_textdetox2024.py``): the 2025 STA an XLM-R *large* classifier
(``textdetox/xlmr-large-toxicity-classifier-v2``: 1024 wide, 24 layers, vocab 250,002),
read with a separate tokenizer folder standing in for
``cardiffnlp/twitter-xlm-roberta-large-2022``; the 2024 STA the 2024 checkpoint's
config (XLM-R base size); SIM LaBSE's layout (BERT-base, vocab 501,153, CLS, Dense tanh,
Normalize), shared by both; FL xCOMET-lite: ``microsoft/mdeberta-v3-base``'s config
(768 wide, 12 layers, vocab 251,000, relative attention) with the estimator (3072, 1024)
and the word-tag head, saved in the hub-mixin layout and loaded through the preset's
``xcomet-lite`` model kind. Tokenizers are trained on the 2025 test inputs.

Data: the first ``--rows-per-language`` (default 8) test inputs of each of the 9
languages of ``textdetox2025/test_inputs.tsv``; outputs: the input without its longest
word; references (none are public): the input without its two longest words. Time per
1,000 pairs = measured wall time / pairs x 1,000 (a linear extrapolation: batches are
full from 32 pairs on). Run: ``.venv/bin/python benchmarks/bench_textdetox2025.py``
(``--keep DIR`` builds the models once; 4.2 GB of memory at the peak).

Measured on a shared 2-core CPU (three runs, other jobs running; seconds per 1,000 pairs):
2025 STA 1,393-2,988, SIM 457-858, FL 1,089-1,866, total 3,054-4,882; 2024 STA 89-194,
SIM 282-425, total 378-620; the 2025 recipe 6.5-12.9x the 2024 one. Building the models
took 136 s.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import bench_textdetox2024 as b24  # noqa: E402
from detox_core import data  # noqa: E402
from detox_core.data.multilingual import load_multilingual_inputs  # noqa: E402
from detox_core.metrics import get_preset  # noqa: E402
from detox_core.metrics.textdetox2025 import STA_TOKENIZER  # noqa: E402
from detox_core.models import ModelPool, xcomet  # noqa: E402

# microsoft/mdeberta-v3-base's config.json
MDEBERTA_BASE = dict(vocab_size=251_000, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                     intermediate_size=3072, max_position_embeddings=512, relative_attention=True,
                     position_buckets=256, norm_rel_ebd="layer_norm", share_att_key=True, pos_att_type=["p2c", "c2p"],
                     layer_norm_eps=1e-7, max_relative_positions=-1, position_biased_input=False, type_vocab_size=0,
                     hidden_act="gelu", pad_token_id=0)
# myyycroft/XCOMET-lite's config.json (the XCOMETLite wrapper's init arguments)
XCOMET_LITE = dict(encoder_model="DeBERTa", pretrained_model=xcomet.ENCODER, word_layer=8, validation_data=[],
                   word_level_training=True, hidden_sizes=[3072, 1024], load_pretrained_weights=False,
                   layer_transformation="softmax")
SPECIALS = dict(bos_token="[CLS]", eos_token="[SEP]", unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]",
                cls_token="[CLS]", mask_token="[MASK]")


def build_xcomet(work: Path, texts: list[str], seed: int = 2) -> tuple[Path, Path]:
    """xCOMET-lite with random weights (checkpoint folder) and mdeberta's layout (encoder folder)."""
    import sentencepiece as spm
    from safetensors.torch import save_file
    from transformers import DebertaV2Config

    ckpt, enc = work / "xcomet-lite", work / "mdeberta"
    if (ckpt / "model.safetensors").is_file() and (enc / "spm.model").is_file():
        return ckpt, enc
    enc.mkdir(parents=True, exist_ok=True)
    ckpt.mkdir(parents=True, exist_ok=True)
    corpus = work / "spm-corpus.txt"
    corpus.write_text("\n".join(t.replace("\n", " ") for t in texts), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(enc / "spm"), vocab_size=16_000, model_type="unigram",
        character_coverage=0.9995, pad_id=0, pad_piece="[PAD]", bos_id=1, bos_piece="[CLS]", eos_id=2,
        eos_piece="[SEP]", unk_id=3, unk_piece="[UNK]", hard_vocab_limit=False, minloglevel=2)
    (enc / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "DebertaV2Tokenizer", "do_lower_case": False, "split_by_punct": False,
         "vocab_type": "spm", "model_max_length": 512, **SPECIALS}), encoding="utf-8")
    encoder_config = DebertaV2Config(**MDEBERTA_BASE)
    encoder_config.save_pretrained(enc)
    torch.manual_seed(seed)
    model = xcomet._build(XCOMET_LITE, encoder_config)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(ckpt / "model.safetensors"))
    (ckpt / "config.json").write_text(json.dumps(XCOMET_LITE, indent=2), encoding="utf-8")
    del model
    gc.collect()
    return ckpt, enc


def build_models(work: Path, texts: list[str], sample: list[str]) -> dict[str, Path]:
    out = {"sta25": work / "sta-large", "sta24": work / "sta-base", "sim": work / "sim",
           "sta_tokenizer": work / "cardiffnlp-tokenizer"}
    if not (out["sta_tokenizer"] / "tokenizer.json").is_file():
        b24.xlmr_tokenizer(texts[::-1], vocab_size=32_000).save_pretrained(out["sta_tokenizer"])
    if not (out["sta25"] / "config.json").is_file():
        b24.build_sta(out["sta25"], b24.xlmr_tokenizer(texts, vocab_size=32_000),
                      {**b24.XLMR_FULL, **b24.XLMR_SIZES["large"]}, sample)
    if not (out["sta24"] / "config.json").is_file():
        b24.build_sta(out["sta24"], b24.xlmr_tokenizer(texts, vocab_size=32_000),
                      {**b24.XLMR_FULL, **b24.XLMR_SIZES["base"]}, sample)
    if not (out["sim"] / "modules.json").is_file():
        b24.build_sim(out["sim"], b24.bert_tokenizer(texts, vocab_size=32_000), b24.LABSE_FULL)
    out["fl"], out["encoder"] = build_xcomet(work, texts)
    return out


def run(name: str, models: dict[str, str], pool: ModelPool, inputs, outputs, references) -> tuple[dict, object]:
    """Load the preset's models, then score with a progress callback that times each step."""
    preset = get_preset(name, pool=pool, models=models)
    t = time.perf_counter()
    for role, kind in preset.model_kinds.items():
        pool.get(preset.models[role], kind, role, preset.sources.get(role), preset.companions.get(role))
    load = time.perf_counter() - t
    spans: dict[str, list[float]] = {}

    def progress(step: str, done: int, total: int) -> None:
        now = time.perf_counter()
        span = spans.setdefault(step, [now, now])
        span[1] = now

    t = time.perf_counter()
    frame = preset.score(inputs, outputs, [[r] for r in references], progress=progress)
    total = time.perf_counter() - t
    axes = {axis: sum(b - a for step, (a, b) in spans.items() if step.startswith(axis)) for axis in ("STA", "SIM", "FL")}
    # 2024's FL is chrF, which has no progress step: the rest of the time (with the reference columns).
    axes["FL"] = axes["FL"] or max(total - axes["STA"] - axes["SIM"], 0.0)
    return {"load": load, "total": total, **axes}, frame


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows-per-language", type=int, default=8, metavar="N",
                        help="first N test inputs of each of the 9 languages (default: 8, 72 pairs)")
    parser.add_argument("--keep", metavar="DIR", help="build the models here and keep them (default: a temporary folder)")
    args = parser.parse_args()
    try:
        test = load_multilingual_inputs(data.data_dir() / "textdetox2025" / "test_inputs.tsv")
    except (data.DataMissingError, data.DetoxInputError) as err:
        print(f"{err}\n(fetch the data first: .venv/bin/python -m detox_core fetch-data)")
        return 1
    inputs, _ = b24.pick_rows(test, args.rows_per_language)
    outputs = [b24.rewrite(t) for t in inputs]
    references = [b24.rewrite(b24.rewrite(t)) for t in inputs]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-td2025-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        texts = test["toxic_comment"].tolist()
        folders = build_models(work, texts, texts[-72:])  # the heads' spread: set on inputs not scored
        print(f"models ready in {time.perf_counter() - t:.0f} s (random weights, full size); "
              f"pairs: {len(inputs)} (9 languages x {args.rows_per_language}); torch threads: {torch.get_num_threads()}")
        mapping = {STA_TOKENIZER: str(folders["sta_tokenizer"]), xcomet.ENCODER: str(folders["encoder"])}
        results = {}
        for name, models in (
            ("textdetox2025", {"sta": str(folders["sta25"]), "sim": str(folders["sim"]), "fl": str(folders["fl"])}),
            ("textdetox2024", {"sta": str(folders["sta24"]), "sim": str(folders["sim"])}),
        ):
            pool = ModelPool(device="cpu", backend="torch", model_map=mapping)
            results[name], frame = run(name, models, pool, inputs, outputs, references)
            print(f"{name}: means " + ", ".join(f"{c.upper()} {frame[c].mean():.3f}" for c in ("sta", "sim", "fl", "j")))
            del pool, frame
            gc.collect()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    n = len(inputs)
    print(f"\nseconds per 1,000 pairs (measured on {n} pairs, x 1000 / {n}); loading apart, once per process")
    print(f"{'preset':<15}{'STA':>9}{'SIM':>9}{'FL':>9}{'total':>9}{'loading':>10}")
    for name, r in results.items():
        print(f"{name:<15}" + "".join(f"{r[a] / n * 1000:9.0f}" for a in ("STA", "SIM", "FL", "total"))
              + f"{r['load']:9.1f}s")
    ratio = results["textdetox2025"]["total"] / results["textdetox2024"]["total"]
    print(f"2025 / 2024 scoring time: {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
