"""Batches of texts for a transformer: token-budget batches of texts of about one length,
padded to their own longest, and the probabilities or embeddings of each batch (the model
pool's inference, :class:`detox_core.models.ModelPool`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

#: A batch of at least BUCKET_MIN texts takes no text shorter than BUCKET_RATIO of its longest.
BUCKET_RATIO = 0.9
BUCKET_MIN = 4
#: Separates the two texts of a sentence pair in memo keys (never in user text: control char).
PAIR_SEP = "\x1f"


def plan_batches(lengths: Sequence[int], budget: int, cap: int) -> list[list[int]]:
    """Indices of ``lengths`` grouped into batches, longest first. A batch ends when one
    more text would take it past ``budget`` (its size times its longest
    length, padding included; at least one text a batch), past ``cap``
    texts, or, once it holds :data:`BUCKET_MIN` texts, when the next text is shorter
    than :data:`BUCKET_RATIO` of its longest: texts of a batch have about one length,
    so padding stays near zero whatever the mix of lengths."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        if current:
            width = lengths[current[0]]
            if ((len(current) + 1) * width > budget or len(current) >= cap
                    or (len(current) >= BUCKET_MIN and lengths[i] < BUCKET_RATIO * width)):
                batches.append(current)
                current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def token_limit(loaded: Any, max_length: int) -> int:
    """Tokens kept per text: ``max_length``, or fewer when the model has fewer positions
    (RoBERTa-like models reserve ``pad_token_id + 1`` of them: XLM-R's 514 keep 512)."""
    limit = max_length
    declared = getattr(loaded.tokenizer, "model_max_length", None)
    if isinstance(declared, int) and declared < 1_000_000:
        limit = min(limit, declared)
    config = getattr(loaded.model, "config", None)
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int):
        reserved = (getattr(config, "pad_token_id", 1) or 0) + 1 if getattr(config, "model_type", "") in {
            "roberta", "xlm-roberta", "camembert"} else 0
        limit = min(limit, positions - reserved)
    return limit


def run_batches(pool: Any, loaded: Any, texts: list[str], pairs: bool = False):
    """Run ``texts`` through ``loaded`` (a classifier or an encoder of ``pool``); yield
    ``(texts, values)`` per batch, longest texts first, each batch within the pool's token
    budget (:func:`plan_batches`), padded to its own longest text. Values: class
    probabilities (a single logit's sigmoid) or L2-normalised pooler outputs."""
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch

    prof = pool.profile
    clock = time.perf_counter
    started = clock()
    tok = loaded.tokenizer
    if pairs:
        firsts, seconds = zip(*(t.split(PAIR_SEP, 1) for t in texts)) if texts else ((), ())
        encoded = tok(list(firsts), list(seconds), truncation=True, max_length=token_limit(loaded, pool.max_length))
    else:
        encoded = tok(texts, truncation=True, max_length=token_limit(loaded, pool.max_length))
    if prof is not None:
        prof["tokenize"] = prof.get("tokenize", 0.0) + clock() - started
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in encoded]
    columns = {n: encoded[n] for n in names}
    lengths = [len(ids) for ids in columns["input_ids"]]
    pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
    left = getattr(tok, "padding_side", "right") == "left"
    for idx in plan_batches(lengths, pool.token_budget, 8 * pool.batch_size):
        started = clock()
        width = lengths[idx[0]]
        arrays = {}
        for name in names:
            filler = pad_id if name == "input_ids" else 0
            arr = np.full((len(idx), width), filler, dtype=np.int64)
            for row, i in enumerate(idx):
                seq = columns[name][i]
                if left:
                    arr[row, width - len(seq):] = seq
                else:
                    arr[row, : len(seq)] = seq
            arrays[name] = arr
        pool.forward_tokens += sum(lengths[i] for i in idx)
        pool.padded_tokens += len(idx) * width
        if prof is not None:
            padded = clock()
            prof["pad"] = prof.get("pad", 0.0) + padded - started
            prof.setdefault("batches", []).append((loaded.model_id, len(idx), width, sum(lengths[i] for i in idx)))
        if loaded.backend == "onnx":
            feed = {n: arrays[n] for n in loaded.input_names}
            raw = loaded.model.run(None, feed)[0].astype(np.float64)
        else:
            with torch.inference_mode():
                inputs = {k: torch.from_numpy(v).to(pool.device) for k, v in arrays.items()}
                out = loaded.model(**inputs)
                raw = (out.logits if loaded.kind == "classifier" else out.pooler_output).float().cpu().numpy()
            raw = raw.astype(np.float64)
        if prof is not None:
            forwarded = clock()
            prof["forward"] = prof.get("forward", 0.0) + forwarded - padded
        if loaded.kind == "classifier" and raw.shape[1] == 1:
            values = 1.0 / (1.0 + np.exp(-raw))  # one logit: its sigmoid, as the official code
        elif loaded.kind == "classifier":
            raw = raw - raw.max(axis=1, keepdims=True)
            values = np.exp(raw) / np.exp(raw).sum(axis=1, keepdims=True)
        else:
            values = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)
        if prof is not None:
            prof["post"] = prof.get("post", 0.0) + clock() - forwarded
        yield [texts[i] for i in idx], list(values)


def torch_dtype(name: str):
    """The torch type of a precision name (``"float32"``, ``"float16"``, ``"bfloat16"``)."""
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch

    return {"float16": torch.float16, "bfloat16": torch.bfloat16}.get(name, torch.float32)
