"""BERTScore F1 (Zhang et al., 2020, "BERTScore: Evaluating Text Generation with BERT"),
as the ``bert-score`` package (0.3.13) computes it by default, through the model pool.

Defaults, from ``bert_score/utils.py`` and ``score.py``: for Russian (and any language
but English and Chinese) the model is ``bert-base-multilingual-cased``, layer 9 (the
output of the 9th transformer layer); no idf weighting (every token weighs 1, ``[CLS]``
and ``[SEP]`` weigh 0); no baseline rescaling. Each sentence is encoded with special
tokens, truncated to the model's length; token embeddings are L2-normalised; a
candidate token's precision is its best cosine against every token of the reference
(special tokens included), and likewise for recall; P and R are their weighted means,
F1 = 2PR / (P + R). An empty candidate or reference scores 0. With several references
the best one counts (``bert-score`` takes the maximum over a group of references).

One difference: ``bert-score`` pads a batch and takes the maximum over padded positions
as well (their similarity is 0), so a token whose cosines are all negative gets 0 there
and its own best cosine here; with real BERT models cosines between contextual
embeddings are positive and the numbers are the same (tested on a tiny BERT).

The pool loads the model as a registered kind (``bertscore@LAYER``): loaded once, shared,
memoised per (candidate, reference) pair. It is computed only when asked
(``DETOX_BERTSCORE=1``, ``score --bertscore``, or the organizers' setting in the app):
the model comes from the hub.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from detox_core import config
from detox_core.models import CUSTOM_KINDS, CustomKind, ModelPool, register_kind
from detox_core.models.pool import PAIR_SEP, torch_dtype

#: bert-score's default model for Russian (``lang2model["ru"]``, and for any language
#: other than English and Chinese) and its layer (``model2layers``).
DEFAULT_MODEL = "bert-base-multilingual-cased"
#: ``model2layers`` of bert-score for the multilingual models a user may pick here.
MODEL_LAYERS = {"bert-base-multilingual-cased": 9, "xlm-roberta-base": 9, "xlm-roberta-large": 17,
                "distilbert-base-multilingual-cased": 5, "google-bert/bert-base-multilingual-cased": 9}
_BATCH = 32


@dataclass(frozen=True)
class BertScoreSetting:
    """Whether BERTScore is computed, with which model and layer."""

    enabled: bool
    model: str
    layer: int

    def describe(self) -> str:
        return f"BERTScore F1|{self.model}|L{self.layer}|idf:no|rescale:no|refs:best"


_LOCK = threading.Lock()
_SETTING: BertScoreSetting | None = None


def setting() -> BertScoreSetting:
    """The process-wide setting: the environment (``DETOX_BERTSCORE``,
    ``DETOX_BERTSCORE_MODEL``, ``DETOX_BERTSCORE_LAYER``) unless :func:`configure` changed it."""
    global _SETTING
    with _LOCK:
        if _SETTING is None:
            model = config.bertscore_model() or DEFAULT_MODEL
            layer = config.bertscore_layer()
            _SETTING = BertScoreSetting(config.bertscore_enabled(), model,
                                        layer if layer is not None else MODEL_LAYERS.get(model, 9))
        return _SETTING


def configure(enabled: bool | None = None, model: str | None = None, layer: int | None = None) -> BertScoreSetting:
    """Change the setting for the whole process (the CLI's ``--bertscore``, the organizers'
    setting). A new model without a layer takes bert-score's layer for it."""
    global _SETTING
    current = setting()
    if model and layer is None and model != current.model:
        layer = MODEL_LAYERS.get(model, current.layer)
    new = replace(current, **{k: v for k, v in (("enabled", enabled), ("model", model), ("layer", layer))
                              if v is not None})
    with _LOCK:
        _SETTING = new
    return new


def off_reason() -> str | None:
    s = setting()
    return None if s.enabled else (f"BERTScore is computed only when asked (it needs the model {s.model} "
                                   "from the hub): organizers turn it on in the sidebar under Metric models, the command line "
                                   "with its bertscore option")


def signature() -> str:
    return setting().describe()


# ------------------------------------------------------------------ the model kind


def _load(loaded, cache_only: bool) -> None:
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch
    from transformers import AutoModel, AutoTokenizer

    loaded.tokenizer = AutoTokenizer.from_pretrained(loaded.source, local_files_only=cache_only)
    model = AutoModel.from_pretrained(loaded.source, local_files_only=cache_only).eval().to(loaded.device)
    loaded.model = model.to(torch_dtype(loaded.dtype))


def _encode(tok, model, sentence: str) -> list[int]:
    """bert-score's ``sent_encode``: stripped, special tokens added, truncated."""
    sentence = sentence.strip()
    if not sentence:  # bert-score's build_inputs_with_special_tokens([]) (gone in transformers 5)
        return tok.encode("", add_special_tokens=True)
    limit = min(tok.model_max_length, getattr(model.config, "max_position_embeddings", tok.model_max_length))
    return tok.encode(sentence, add_special_tokens=True, max_length=limit, truncation=True)


def _embeddings(loaded, layer: int, sentences: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """sentence -> (L2-normalised token embeddings of ``layer``, token weights)."""
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch

    tok, model = loaded.tokenizer, loaded.model
    ids = {s: _encode(tok, model, s) for s in sentences}
    special = {tok.cls_token_id, tok.sep_token_id}
    order = sorted(sentences, key=lambda s: -len(ids[s]))
    out = {}
    for start in range(0, len(order), _BATCH):
        batch = order[start : start + _BATCH]
        width = max(len(ids[s]) for s in batch)
        pad = tok.pad_token_id or 0
        x = torch.tensor([ids[s] + [pad] * (width - len(ids[s])) for s in batch], device=loaded.device)
        mask = torch.tensor([[1] * len(ids[s]) + [0] * (width - len(ids[s])) for s in batch], device=loaded.device)
        with torch.inference_mode():
            hidden = model(input_ids=x, attention_mask=mask, output_hidden_states=True).hidden_states[layer]
        hidden = hidden.float().cpu().numpy().astype(np.float64)
        for k, s in enumerate(batch):
            emb = hidden[k, : len(ids[s])]
            emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
            out[s] = (emb, np.array([0.0 if t in special else 1.0 for t in ids[s]]))
    return out


def _prf(hyp: tuple[np.ndarray, np.ndarray], ref: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    (h, wh), (r, wr) = hyp, ref
    if len(h) <= 2 or len(r) <= 2:  # an empty sentence: [CLS] [SEP] only
        return np.zeros(3)
    sim = h @ r.T
    p = float((sim.max(axis=1) * wh).sum() / wh.sum())
    rec = float((sim.max(axis=0) * wr).sum() / wr.sum())
    f = 2 * p * rec / (p + rec) if p + rec else 0.0
    return np.array([p, rec, f])


def _run(loaded, items: list[str]) -> list[np.ndarray]:
    layer = int(loaded.kind.rsplit("@", 1)[1])
    pairs = [item.split(PAIR_SEP, 1) for item in items]
    embs = _embeddings(loaded, layer, list(dict.fromkeys(s for pair in pairs for s in pair)))
    return [_prf(embs[c], embs[r]) for c, r in pairs]


def kind_for(layer: int) -> str:
    """The pool kind of BERTScore at ``layer`` (registered on first use)."""
    name = f"bertscore@{layer}"
    if name not in CUSTOM_KINDS:
        register_kind(name, CustomKind(load=_load, run=_run))
    return name


def bertscore_prf(pool: ModelPool, outputs: Sequence[str], references: Sequence[Sequence[str]],
                  model: str | None = None, layer: int | None = None, source: str | None = None) -> np.ndarray:
    """(P, R, F1) of each output against its best reference (by each of the three, as
    bert-score does); NaN rows where an output has no reference."""
    s = setting()
    if model is None:
        model, layer = s.model, s.layer if layer is None else layer
    elif layer is None:
        layer = MODEL_LAYERS.get(model, s.layer)
    items, owner = [], []
    for i, (hyp, refs) in enumerate(zip(outputs, references)):
        for ref in (r for r in refs if r):
            # The separator of the memo key never stays in a text (BERT tokenizers drop control characters).
            items.append(f"{hyp.replace(PAIR_SEP, ' ')}{PAIR_SEP}{ref.replace(PAIR_SEP, ' ')}")
            owner.append(i)
    out = np.full((len(outputs), 3), np.nan)
    if not items:
        return out
    values = pool.run_custom(model, kind_for(layer), items, role="bertscore", source=source)
    for i, row in zip(owner, values):
        out[i] = row if np.isnan(out[i, 0]) else np.maximum(out[i], row)
    return out


def bertscore_f1(pool: ModelPool, outputs: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """BERTScore F1 with the process-wide setting's model and layer."""
    s = setting()
    return bertscore_prf(pool, outputs, references, s.model, s.layer)[:, 2]
