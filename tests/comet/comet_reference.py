"""The reference side of the xCOMET-lite equivalence test; runs inside ``.venv-comet``.

``build FOLDER``: a tiny random-weight xCOMET-lite of the real architecture (the official
``XCOMETLite`` wrapper on a DeBERTa-v2 encoder with a sentencepiece tokenizer, like
``microsoft/mdeberta-v3-base``), saved in the hub-mixin layout the real checkpoint has:
``FOLDER/xcomet`` (config.json naming ``microsoft/mdeberta-v3-base`` + model.safetensors)
and ``FOLDER/encoder`` (the encoder's config and tokenizer, standing in for mdeberta).

``score FOLDER SAMPLES OUT``: unbabel-comet's own ``predict(...).scores`` of the samples
(a JSON list of {src, mt[, ref]}: those with a reference and those without are predicted
apart, as comet takes one input kind per call), written to OUT as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

CORPUS = [
    "you are a stupid idiot, get out of here", "you are wrong, please leave", "this jerk is lying again",
    "this person is lying again", "what a load of crap this news is", "what nonsense this news is",
    "ты дебил, иди отсюда", "ты неправ, иди отсюда", "этот мудак опять врёт", "этот человек опять врёт",
    "какая хрень эта ваша новость", "какая ерунда эта ваша новость", "заткнись уже, идиот",
    "你这个白痴，滚出去", "你错了，请离开", "这个混蛋又在撒谎", "这个人又在撒谎", "这条新闻真是胡说八道",
    "du bist ein Idiot, verschwinde", "du liegst falsch, bitte geh", "eres un idiota, vete de aquí",
]


def build(folder: Path) -> None:
    import random

    import sentencepiece as spm
    import torch
    import transformers as tr

    from official_deberta_encoder import XCOMETLite

    enc, ckpt = folder / "encoder", folder / "xcomet"
    enc.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    words = sorted({w for s in CORPUS for w in s.split()})
    lines = CORPUS + [" ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) for _ in range(400)]
    (folder / "corpus.txt").write_text("\n".join(lines), encoding="utf-8")
    # mdeberta-v3's sentencepiece layout: a unigram model with [PAD] [CLS] [SEP] [UNK] first.
    spm.SentencePieceTrainer.train(
        input=str(folder / "corpus.txt"), model_prefix=str(folder / "spm"), vocab_size=250, model_type="unigram",
        character_coverage=1.0, pad_id=0, pad_piece="[PAD]", bos_id=1, bos_piece="[CLS]", eos_id=2,
        eos_piece="[SEP]", unk_id=3, unk_piece="[UNK]", hard_vocab_limit=False)
    tok = tr.DebertaV2Tokenizer(vocab_file=str(folder / "spm.model"), do_lower_case=False)
    tok.save_pretrained(enc)  # spm.model + tokenizer_config.json, as the hub repo (no tokenizer.json)
    # mdeberta-v3-base's architecture, with a tiny width; 8 layers so word_layer 8 exists.
    cfg = tr.DebertaV2Config(
        vocab_size=len(tok), hidden_size=32, num_hidden_layers=8, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=512, relative_attention=True, position_buckets=256, norm_rel_ebd="layer_norm",
        share_att_key=True, pos_att_type=["p2c", "c2p"], position_biased_input=False, type_vocab_size=0,
        layer_norm_eps=1e-7, max_relative_positions=-1, hidden_act="gelu", pad_token_id=0)
    cfg.save_pretrained(enc)
    torch.manual_seed(0)
    model = XCOMETLite(pretrained_model=str(enc), hidden_sizes=(48, 24))
    with torch.no_grad():
        # Random init is near-constant; spread every weight so scores, layer mixes and
        # error-span tags all vary between sentences.
        for name, p in model.named_parameters():
            if "LayerNorm" in name or "layer_norm" in name:
                p.add_(torch.randn_like(p) * 0.1)
            else:
                p.copy_(torch.randn_like(p) * (0.6 if "scalar_parameters" in name else 0.08))
        model.layerwise_attention.gamma.fill_(1.3)
        model.hidden2tag.weight.mul_(8)
        model.hidden2tag.bias.copy_(torch.tensor([3.0, -1.5, 1.0, 1.5]))
        model.estimator.ff[-1].weight.mul_(20)
        model.estimator.ff[-1].bias.fill_(0.6)
    model.save_pretrained(ckpt)
    config = json.loads((ckpt / "config.json").read_text())
    config["pretrained_model"] = "microsoft/mdeberta-v3-base"  # what the real checkpoint names
    (ckpt / "config.json").write_text(json.dumps(config, indent=2))


def score(folder: Path, samples_path: Path, out_path: Path) -> None:
    from official_deberta_encoder import XCOMETLite

    model = XCOMETLite.from_pretrained(str(folder / "xcomet"), pretrained_model=str(folder / "encoder"))
    samples = json.loads(samples_path.read_text(encoding="utf-8"))
    scores: list[float | None] = [None] * len(samples)
    mqm: list[float | None] = [None] * len(samples)
    for with_ref in (True, False):
        idx = [i for i, s in enumerate(samples) if ("ref" in s) == with_ref]
        if not idx:
            continue
        pred = model.predict([samples[i] for i in idx], batch_size=4, gpus=0, progress_bar=False)
        for i, value, m in zip(idx, pred.scores, pred.metadata.mqm_scores):
            scores[i], mqm[i] = float(value), float(m)
    out_path.write_text(json.dumps({
        "scores": scores, "mqm": mqm,
        "layer_norm": bool(model.layerwise_attention.layer_norm),
    }), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(Path(sys.argv[2]))
    else:
        score(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
