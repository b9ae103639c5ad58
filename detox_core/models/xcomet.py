"""xCOMET-lite (Larionov et al., 2024, "xCOMET-lite: Bridging the Gap Between Efficiency
and Quality in Learned MT Evaluation Metrics"), the fluency model of the official
TextDetox 2025 evaluation, computed here the way unbabel-comet 2.2.x computes it.

The official code loads ``myyycroft/XCOMET-lite`` as unbabel-comet's ``XCOMETMetric`` with
a DeBERTa encoder (``microsoft/mdeberta-v3-base``; word layer 8, estimator hidden sizes
(3072, 1024), softmax layer mix) and calls ``predict(...).scores``. This module runs the
same forward pass with the project's transformers (no unbabel-comet, no numpy < 2):

- inputs: mt, src and ref are tokenized apart (truncated to ``max_position_embeddings - 4``
  tokens with their [CLS]/[SEP]), then joined as ``[CLS] mt [SEP] src [SEP]``,
  ``[CLS] mt [SEP] ref [SEP]`` and ``[CLS] mt [SEP] src [SEP] ref [SEP]``, each cut at
  ``max_position_embeddings - 2`` tokens; token type 0 over the mt part, 1 after it;
- sentence score: the estimator (Linear-Tanh twice, then Linear) on the [CLS] vector of
  the softmax-weighted sum of all hidden states (embeddings included) times gamma;
- word tags: ``hidden2tag`` on hidden state 8 -> P(O, minor, major, critical) per mt
  subword; the three inputs' probabilities weighted 0.1667 / 0.3333 / 0.5, argmax per
  subword ([CLS] and the closing [SEP] included); a span is a run of error tags closed by
  an O tag (a run still open at the end is not counted: comet's decoder drops it); its
  severity is its first subword's; MQM = (25 - min(25, minor + 5 major + 10 critical)) / 25;
- score = 0.12 min(s_src, 1) + 0.33 min(s_ref, 1) + 0.33 min(s_unified, 1) + 0.22 MQM;
  without a reference comet falls back to the [mt:src] input alone:
  0.78 min(s_src, 1) + 0.22 MQM (tags from that input only). Scores are not clipped below.

It runs in fp32 on every device, as the official evaluation does (not the pool's fp16 on
CUDA): an error tag is an argmax, and one flipped tag moves the score by 0.0088 or more.

The tokenizer is built as transformers 4.x builds mdeberta's from ``spm.model``
(sentencepiece's NFKC charsmap normaliser): transformers 5 replaces that normaliser with
NFC, which tokenizes full-width punctuation (Chinese, Japanese) differently.

Items are JSON lists ``[src, mt]`` or ``[src, mt, ref]`` (:func:`item`), run through
``ModelPool.run_custom(model_id, KIND, items, tokenizer=ENCODER)``; the result per item is
``[score, mqm]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from detox_core.models.kinds import CustomKind, register_kind

KIND = "xcomet-lite"
MODEL = "myyycroft/XCOMET-lite"
ENCODER = "microsoft/mdeberta-v3-base"
#: unbabel-comet's XCOMETMetric: weights of [mt:src], [mt:ref], [mt:src:ref] and MQM ...
SCORE_WEIGHTS = (0.12, 0.33, 0.33, 0.22)
#: ... and of the three inputs' subword tag probabilities.
SPAN_WEIGHTS = (0.1667, 0.3333, 0.5)
SEVERITY = {1: 1, 2: 5, 3: 10}  # label id -> MQM penalty (I-minor, I-major, I-critical)


def item(src: str, mt: str, ref: str | None = None) -> str:
    """One (src, mt[, ref]) triple as the string the pool memoises."""
    return json.dumps([src, mt] if ref is None else [src, mt, ref], ensure_ascii=False)


def _file(where: str, local: bool, name: str, cache_only: bool) -> Path | None:
    if local:
        path = Path(where) / name
        return path if path.is_file() else None
    # Imported here: the hub client only for a download or a cache lookup.
    from huggingface_hub import hf_hub_download

    try:
        return Path(hf_hub_download(where, name, local_files_only=cache_only))
    except Exception:  # noqa: BLE001  (absent file: the caller tries the next name)
        return None


def _tokenizer(where: str, local: bool, cache_only: bool):
    """mdeberta's tokenizer with the normaliser transformers 4.x gives it (see module doc)."""

    # Imported here: transformers takes seconds to import: only a model's load needs it.
    from transformers import AutoTokenizer
    from transformers.convert_slow_tokenizer import DebertaV2Converter

    tok = AutoTokenizer.from_pretrained(where, local_files_only=cache_only)
    spm = getattr(tok, "vocab_file", None) or tok.init_kwargs.get("vocab_file")
    if spm and Path(spm).is_file():
        shim = SimpleNamespace(vocab_file=str(spm), do_lower_case=tok.init_kwargs.get("do_lower_case", False),
                               split_by_punct=tok.init_kwargs.get("split_by_punct", False),
                               convert_tokens_to_ids=tok.convert_tokens_to_ids)
        converted = DebertaV2Converter(shim).converted()
        tok.backend_tokenizer.normalizer = converted.normalizer
        tok.backend_tokenizer.pre_tokenizer = converted.pre_tokenizer
    return tok


def _build(config: dict[str, Any], encoder_config):
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch
    from torch import nn
    from transformers import AutoModel

    if config.get("layer_transformation", "softmax") != "softmax" or config.get("layer_norm", False):
        raise ValueError("only the softmax layer mix without layer norm (xCOMET-lite's) is implemented")
    if config.get("encoder_model", "DeBERTa") != "DeBERTa":
        raise ValueError(f"encoder {config.get('encoder_model')!r} is not xCOMET-lite's DeBERTa")
    width = encoder_config.hidden_size
    act = getattr(nn, str(config.get("activations", "Tanh")).title())
    sizes = [width, *config.get("hidden_sizes", (3072, 1024))]
    layers: list[nn.Module] = []
    for a, b in zip(sizes, sizes[1:]):
        layers += [nn.Linear(a, b), act(), nn.Dropout(0.0)]
    layers.append(nn.Linear(sizes[-1], 1))

    model = nn.Module()
    model.encoder = nn.Module()
    model.encoder.model = AutoModel.from_config(encoder_config)
    model.layerwise_attention = nn.Module()
    n_layers = encoder_config.num_hidden_layers + 1
    model.layerwise_attention.scalar_parameters = nn.ParameterList(
        [nn.Parameter(torch.zeros(1)) for _ in range(n_layers)])
    model.layerwise_attention.gamma = nn.Parameter(torch.ones(1))
    model.estimator = nn.Module()
    model.estimator.ff = nn.Sequential(*layers)
    model.hidden2tag = nn.Linear(width, 4)
    return model


def _load(loaded, cache_only: bool) -> None:
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch
    from transformers import AutoConfig

    config_file = _file(loaded.source, loaded.local, "config.json", cache_only)
    if config_file is None:
        raise FileNotFoundError(f"no config.json in {loaded.source}")
    config = json.loads(config_file.read_text(encoding="utf-8"))
    if loaded.tokenizer_from:  # the encoder's id, resolved through the pool's local folders
        _, enc_where, enc_local = loaded.tokenizer_from
    else:
        enc_where, enc_local = config.get("pretrained_model", ENCODER), False
    enc_cache_only = enc_local or cache_only
    encoder_config = AutoConfig.from_pretrained(enc_where, local_files_only=enc_cache_only)
    model = _build(config, encoder_config)
    weights = _file(loaded.source, loaded.local, "model.safetensors", cache_only)
    if weights is not None:
        # Imported here: read with the model's weights only.
        from safetensors.torch import load_file

        state = load_file(str(weights))
    else:
        weights = _file(loaded.source, loaded.local, "pytorch_model.bin", cache_only)
        if weights is None:
            raise FileNotFoundError(f"no model.safetensors or pytorch_model.bin in {loaded.source}")
        state = torch.load(weights, map_location="cpu", weights_only=True)
    missing = [k for k in model.load_state_dict(state, strict=False).missing_keys if not k.endswith("position_ids")]
    if missing:
        raise ValueError(f"the checkpoint lacks {len(missing)} weights ({', '.join(missing[:3])}...)")
    model.eval()
    # fp32 on a GPU too: the error tags are argmax decisions (a flip moves the score by
    # 0.22 x 1/25 or more), and the official evaluation runs comet in fp32.
    loaded.dtype = "float32"
    model.to(loaded.device, dtype=torch.float32)
    loaded.model = model
    loaded.tokenizer = _tokenizer(enc_where, enc_local, enc_cache_only)
    loaded.id2label = {0: "O", 1: "I-minor", 2: "I-major", 3: "I-critical"}
    # comet's encoder.max_positions: the positions less two
    model.word_layer, model.max_positions = int(config.get("word_layer", 8)), encoder_config.max_position_embeddings - 2


def _encode(tok, texts: list[str], limit: int) -> list[list[int]]:
    return [list(ids) for ids in tok(texts, truncation=True, max_length=limit)["input_ids"]]


def _forward(loaded, seqs: list[list[int]], mt_lens: list[int]):
    """(sentence scores, word-tag probabilities) of joined sequences, as float32 tensors."""
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch

    model, tok = loaded.model, loaded.tokenizer
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), tok.pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    types = torch.ones((len(seqs), width), dtype=torch.long)
    for row, (seq, n_mt) in enumerate(zip(seqs, mt_lens)):
        ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
        types[row, :n_mt] = 0
    dev = loaded.device
    with torch.inference_mode():
        out = model.encoder.model(input_ids=ids.to(dev), attention_mask=mask.to(dev), token_type_ids=types.to(dev),
                                  output_hidden_states=True)
        hidden = out.hidden_states
        lw = model.layerwise_attention
        weights = torch.softmax(torch.cat(list(lw.scalar_parameters)), dim=0)
        mixed = lw.gamma * sum(w * h[:, 0, :] for w, h in zip(torch.split(weights, 1), hidden))
        scores = model.estimator.ff(mixed).view(-1).float()
        probs = torch.softmax(model.hidden2tag(hidden[model.word_layer]).float(), dim=2)
    return scores.cpu(), probs.cpu()


def _mqm(labels: list[int]) -> float:
    """MQM from one sentence's subword tags, as comet's ``decode`` + ``_compute_mqm_from_spans``."""
    total, in_span, severity = 0, False, 0
    for label in labels:
        if label and not in_span:
            in_span, severity = True, SEVERITY[label]
        elif not label and in_span:
            total += severity
            in_span = False
    return (25 - min(total, 25)) / 25


def _run(loaded, items: list[str]) -> list[np.ndarray]:
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch

    tok, limit = loaded.tokenizer, loaded.model.max_positions
    triples = [json.loads(it) for it in items]
    out: list[np.ndarray] = [np.zeros(2)] * len(items)
    for with_ref in (True, False):
        idx = [i for i, t in enumerate(triples) if (len(t) == 3) == with_ref]
        if not idx:
            continue
        mts = _encode(tok, [triples[i][1] for i in idx], limit - 2)
        others = [_encode(tok, [triples[i][k] for i in idx], limit - 2) for k in ((0, 2) if with_ref else (0,))]
        pad, cls, sep = tok.pad_token_id, tok.cls_token_id, tok.sep_token_id

        def join(*parts: list[int]) -> list[int]:
            seq = [cls]
            for part in parts:
                seq += [t for t in part if t != pad][1:-1] + [sep]
            return seq[:limit]

        mt_kept = [len([t for t in m if t != pad]) for m in mts]
        inputs = [[join(m, s) for m, s in zip(mts, others[0])]]
        if with_ref:
            inputs += [[join(m, r) for m, r in zip(mts, others[1])],
                       [join(m, s, r) for m, s, r in zip(mts, *others)]]
        runs = [_forward(loaded, seqs, mt_kept) for seqs in inputs]
        if with_ref:
            reg = torch.stack([torch.where(s > 1.0, 1.0, s) * w for (s, _), w in zip(runs, SCORE_WEIGHTS[:3])]).sum(0)
            n = max(p.shape[1] for _, p in runs)
            probs = torch.stack([torch.nn.functional.pad(p, (0, 0, 0, n - p.shape[1])) * w
                                 for (_, p), w in zip(runs, torch.tensor(SPAN_WEIGHTS))]).sum(0)
        else:
            scores, probs = runs[0]
            reg = torch.where(scores > 1.0, 1.0, scores) * sum(SCORE_WEIGHTS[:3])
        for row, i in enumerate(idx):
            # comet tags the first len(mt tokens) positions of the joined input ([CLS] mt [SEP]).
            labels = probs[row, : len(mts[row])].argmax(dim=1).tolist()
            mqm = torch.tensor(_mqm(labels), dtype=torch.float32)
            out[i] = np.array([float(reg[row] + mqm * SCORE_WEIGHTS[3]), float(mqm)])
    return out


register_kind(KIND, CustomKind(load=_load, run=_run))
