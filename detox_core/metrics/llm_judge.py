"""LLM-as-a-judge (the questions of the 2025 meta-evaluation of detoxification metrics,
``textdetox/eval-of-detox-eval``): STA 1 / 0.5 / 0 from which of input and output is
more toxic, SIM 1 / 0 from "same meaning?", FL 1 when the output is at least as fluent
as the input (3-point fluency of each); J = STA x SIM x FL.

Over any chat-completions server (OpenAI, vLLM, llama.cpp, Ollama; see
:mod:`detox_core.llm.settings` for where the endpoint comes from), or a local Hugging
Face causal LM through the model pool (``local_model=``). An answer that cannot be had
is NaN (that axis and J) and counted in ``frame.attrs["llm_usage"]["missing"]``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import pandas as pd

from detox_core.errors import DetoxInputError
from detox_core.llm.client import JudgeUnavailableError
from detox_core.llm.local import KIND, LocalJudge
from detox_core.llm.prompts import template_info
from detox_core.llm.runner import Estimate, JudgeSettings, LLMJudge, response_cache, unconfigured_message
from detox_core.llm.settings import resolve
from detox_core.metrics.base import Preset, Signature, check_pairs, make_score_frame
from detox_core.metrics.chrf import sentence_chrf
from detox_core.metrics.registry import register_preset
from detox_core.models import ModelPool

if TYPE_CHECKING:  # the response cache brings in SQLAlchemy: the runner imports it when a judge runs
    from detox_core.llm.cache import ResponseCache


@register_preset
class LLMJudgePreset(Preset):
    """LLM-as-a-judge (see the module docstring)."""

    name = "llm-judge"
    version = "1"
    title = "LLM judge (chat-completions server or local causal LM)"
    label = "LLM judge"
    description = ("An LLM answers three questions per pair (which text is more toxic, same meaning, fluency), as in "
                   "the 2025 meta-evaluation; needs an OpenAI-compatible server.")
    axis_help = {
        "sta": "The judge's answer to \"which text is more toxic?\": 1 = the input (the rewrite is less toxic), "
        "0.5 = equally toxic, 0 = the rewrite; n/a when no answer could be had.",
        "sim": "The judge's answer to \"do the texts mean the same?\": 1 yes, 0 no; n/a when no answer could be had.",
        "fl": "1 when the judge rates the rewrite at least as fluent as the input (3-point fluency of each), else 0; "
        "n/a when no answer could be had.",
    }
    sta_of_text_alone = False  # STA compares the output with the input
    needs_download = True
    extra = None  # a chat-completions server needs nothing installed; a local LM needs [models] (llm/local.py)
    paid = True  # the organizers' endpoint bills every request

    def __init__(self, pool: ModelPool | None = None, models: dict[str, str] | None = None,
                 sources: dict[str, str] | None = None, *, settings: JudgeSettings | None = None,
                 cache: ResponseCache | None = None, local_model: str | None = None, langs: list[str] | None = None,
                 **options: Any) -> None:
        """
        Args:
            settings: the judge's settings (default: :func:`detox_core.llm.settings.resolve`
                of ``options``: ``base_url``, ``model``, ``api_key``, ``concurrency``, ...).
            cache: the response cache (default: the app's database).
            local_model: a local folder or hub id of a causal LM to judge with instead of a server.
            langs: each pair's language when :meth:`score` is not told (fills ``{lang}`` and picks
                per-language examples).
        """
        super().__init__(pool, models, sources)
        self.settings = settings or resolve(**options)
        self._cache = cache
        self.local_model = local_model
        self.langs = langs

    @classmethod
    def unavailable(cls) -> str | None:
        try:
            endpoint = resolve().endpoint
        except DetoxInputError as err:
            return f"The LLM judge's settings are wrong: {err}"
        return None if endpoint.configured else unconfigured_message(endpoint)

    def judge(self) -> LLMJudge | LocalJudge:
        """The runner: the local model, else the server (raises :class:`JudgeUnavailableError`
        when no endpoint is configured)."""
        if self.local_model:
            return LocalJudge(self.local_model, self.settings.template, self.get_pool())
        if not self.settings.endpoint.configured:
            raise JudgeUnavailableError(unconfigured_message(self.settings.endpoint))
        if self._cache is None:  # the app's database, opened once, when a judge first runs
            self._cache = response_cache()
        return LLMJudge(self.settings, self._cache)

    def estimate(self, inputs, outputs, langs=None) -> Estimate | None:
        """Requests, tokens and cost before a run (None for a local model: no bill); ``langs``
        as for :meth:`score`."""
        judge = self.judge()
        langs = langs if langs is not None else self.langs
        return judge.estimate(inputs, outputs, langs) if isinstance(judge, LLMJudge) else None

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None, langs=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        langs = list(langs) if langs is not None else self.langs
        if langs is not None and len(langs) != len(inputs):
            raise DetoxInputError(f"expected a language per pair ({len(inputs)}), found {len(langs)}")
        values, usage = self.judge().judge(list(inputs), list(outputs), langs, progress)
        frame = make_score_frame(values["sta"].to_numpy(), values["sim"].to_numpy(), values["fl"].to_numpy(),
                                 sentence_chrf(outputs, refs), self.signature(calibrated))
        frame.attrs["llm_usage"] = asdict(usage)
        return frame

    def signature(self, calibrated: bool = True) -> Signature:
        sig = super().signature(calibrated)
        s = self.settings
        judge: dict[str, Any] = {**template_info(s.template), "temperature": s.temperature, "max_tokens": s.max_tokens}
        if self.local_model:
            judge.update(self.get_pool().info(self.local_model, KIND, "judge"), kind=KIND)
        else:  # never the key
            judge.update(id=s.endpoint.model, endpoint=s.endpoint.public, kind="chat-completions")
        sig.models = {"judge": judge}
        return sig
