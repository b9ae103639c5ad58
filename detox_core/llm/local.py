"""The LLM judge on a local Hugging Face causal LM (the 2025 fine-tuned Llama judges are
such models), run through the model pool (shared, locked, memoised, on the GPU when
there is one).

Constrained choice: for each question the model's log-likelihood of every allowed answer
after the prompt is computed, and the most likely answer is taken, so every question
gets a readable answer (no re-ask needed).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from detox_core.llm.prompts import BUILTIN, Template
from detox_core.llm.runner import Progress, Usage
from detox_core.models import ModelPool, default_pool
from detox_core.models.kinds import CustomKind, register_kind
from detox_core.models.pool import torch_dtype

KIND = "causal-lm"
#: Answers per question at most (the 3-point questions): shorter rows are padded with -inf.
MAX_ANSWERS = 3


def _load(loaded: Any, cache_only: bool) -> None:
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    loaded.tokenizer = AutoTokenizer.from_pretrained(loaded.source, local_files_only=cache_only)
    model = AutoModelForCausalLM.from_pretrained(loaded.source, local_files_only=cache_only)
    model.eval()
    if loaded.device != "cpu":
        model = model.to(loaded.device, dtype=torch_dtype(loaded.dtype))
    loaded.model = model
    loaded.revision = getattr(model.config, "_commit_hash", None)


def render_chat(tokenizer: Any, messages: list[dict[str, str]]) -> str:
    """The prompt text: the tokenizer's chat template when it has one, else plain turns."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "


def _run(loaded: Any, items: list[str]) -> list[np.ndarray]:
    """Per item (JSON ``{"messages", "answers"}``): the summed log-probability of each
    answer's tokens after the prompt, padded to :data:`MAX_ANSWERS` with -inf."""
    # Imported here: torch takes seconds to import: only a model's load or forward pass needs it.
    import torch

    tok, model = loaded.tokenizer, loaded.model
    out = []
    for item in items:
        spec = json.loads(item)
        prompt_ids = tok(render_chat(tok, spec["messages"]), add_special_tokens=False)["input_ids"]
        scores = np.full(MAX_ANSWERS, -np.inf)
        for i, answer in enumerate(spec["answers"][:MAX_ANSWERS]):
            answer_ids = tok(answer, add_special_tokens=False)["input_ids"]
            ids = torch.tensor([prompt_ids + answer_ids], device=model.device)
            with torch.inference_mode():
                logits = model(input_ids=ids).logits[0].float()
            logp = torch.log_softmax(logits[len(prompt_ids) - 1:-1], dim=-1)
            scores[i] = float(logp[torch.arange(len(answer_ids)), torch.tensor(answer_ids)].sum())
        out.append(scores)
    return out


register_kind(KIND, CustomKind(load=_load, run=_run))


class LocalJudge:
    """The judge's questions answered by a local causal LM (constrained choice).

    Args:
        model: a hub id or a local folder.
        template: the prompts (the same templates as the HTTP judge).
        pool: the model pool (default: the process-wide one).
    """

    def __init__(self, model: str, template: Template = BUILTIN, pool: ModelPool | None = None,
                 source: str | None = None) -> None:
        self.model, self.template, self.pool, self.source = model, template, pool or default_pool(), source

    def info(self) -> dict[str, Any]:
        return self.pool.info(self.model, KIND, "judge", self.source)

    def judge(self, inputs: Sequence[str], outputs: Sequence[str], langs: Sequence[str] | None = None,
              progress: Progress | None = None) -> tuple[pd.DataFrame, Usage]:
        """Like :meth:`detox_core.llm.runner.LLMJudge.judge`."""
        langs = list(langs) if langs is not None else [""] * len(inputs)
        asks = {"sta": [], "sim": [], "fl_in": [], "fl_out": []}
        for x, y, lang in zip(inputs, outputs, langs):
            for name, question, fields in (("sta", "sta", {"input": x, "output": y}),
                                           ("sim", "sim", {"input": x, "output": y}),
                                           ("fl_in", "fl", {"text": x}), ("fl_out", "fl", {"text": y})):
                asks[name].append((question, json.dumps({
                    "messages": self.template.messages(question, fields, lang),
                    "answers": list(self.template.questions[question].answers)}, ensure_ascii=False)))
        items = [item for name in asks for _, item in asks[name]]
        unique = list(dict.fromkeys(items))
        step = (lambda done, total: progress("LLM judge (local model)", done, total)) if progress else None
        scores = self.pool.run_custom(self.model, KIND, unique, role="judge", progress=step, source=self.source)
        by_item = dict(zip(unique, scores))
        frame = pd.DataFrame(index=range(len(inputs)), dtype="float64")
        for name, pairs in asks.items():
            values = []
            for question, item in pairs:
                row = by_item[item]
                answers = list(self.template.questions[question].answers.values())
                values.append(answers[int(np.argmax(row[:len(answers)]))] if np.isfinite(row).any() else np.nan)
            frame[name] = np.asarray(values, dtype="float64")
        fl = np.where(frame["fl_out"] >= frame["fl_in"], 1.0, 0.0)
        frame["fl"] = np.where(frame["fl_in"].isna() | frame["fl_out"].isna(), np.nan, fl)
        frame["j"] = frame["sta"] * frame["sim"] * frame["fl"]
        usage = Usage(requests=len(unique), answered=len(unique),
                      missing={a: int(frame[a].isna().sum()) for a in ("sta", "sim", "fl", "j")})
        return frame, usage
