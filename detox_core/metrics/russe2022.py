"""The official RUSSE-2022 metrics (Dementieva et al., 2022, "RUSSE-2022: Findings of
the First Russian Detoxification Shared Task").

STA = P(neutral | output) of ``s-nlp/russian_toxicity_classifier``; SIM = cosine of the
L2-normalised ``pooler_output`` of ``cointegrated/LaBSE-en-ru`` for input and output;
FL = P(clean | output) - P(clean | input) of ``s-nlp/rubert-base-corruption-detector``,
capped at 0; each calibrated as ``clip((x - px) * coef + 1, 0, 1)`` (STA 0.90/1,
SIM 1.50/1, FL 1.15/0), switchable to raw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict

import numpy as np
import pandas as pd

from detox_core.calibration.rotation import NO_CALIBRATION, Calibration
from detox_core.metrics.base import Preset, Signature, StepProgress, check_pairs, make_score_frame
from detox_core.metrics.chrf import sentence_chrf
from detox_core.metrics.registry import register_preset


@register_preset
class Russe2022(Preset):
    """The official RUSSE-2022 metrics (see the module docstring)."""

    name = "russe2022"
    version = "1"
    title = "RUSSE-2022 official (GPU models)"
    label = "RUSSE-2022 official"
    languages = ("ru",)  # trained on Russian data only
    description = "The official metrics of RUSSE-2022: Russian classifiers, LaBSE-en-ru, calibrated."
    # Dementieva et al. (2022): STA coef 0.90 at px 1, SIM 1.50 at px 1, FL 1.15 at px 0.
    calibration = Calibration(sta=(0.90, 1.0), sim=(1.50, 1.0), fl=(1.15, 0.0))
    axis_help = {
        "sim": "Content similarity: how much of the input's **meaning** the rewrite keeps, the cosine of "
        "LaBSE-en-ru embeddings; calibrated, 1 = same meaning and about 0.5 or less = another meaning.",
    }
    model_kinds = {"sta": "classifier", "sim": "encoder", "fl": "classifier"}

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {
            "sta": "s-nlp/russian_toxicity_classifier",
            "sim": "cointegrated/LaBSE-en-ru",
            "fl": "s-nlp/rubert-base-corruption-detector",
        }

    def axes(self, inputs: Sequence[str], outputs: Sequence[str], progress: StepProgress | None = None) -> dict[str, np.ndarray]:
        """The uncalibrated quantities: P(neutral|out), cosine, P(clean|out) - P(clean|in)."""
        pool = self.get_pool()

        def step(name: str) -> Callable[[int, int], None] | None:
            return (lambda done, total: progress(name, done, total)) if progress else None

        sta_model, sim_model, fl_model = self.models["sta"], self.models["sim"], self.models["fl"]
        src = self.sources.get
        neutral = pool.label_index(sta_model, ["neutral", "non-toxic", "non_toxic", "not toxic"], 0, role="sta",
                                   source=src("sta"))
        p_neutral = pool.probabilities(sta_model, outputs, role="sta", progress=step("STA"), source=src("sta"))[:, neutral]
        emb_in = pool.embeddings(sim_model, inputs, role="sim", progress=step("SIM inputs"), source=src("sim"))
        emb_out = pool.embeddings(sim_model, outputs, role="sim", progress=step("SIM outputs"), source=src("sim"))
        cosine = np.sum(emb_in * emb_out, axis=1)
        # The official evaluation takes class 1 of the corruption detector as "clean".
        clean = pool.label_index(fl_model, ["clean", "not corrupted", "acceptable", "fluent"], 1, role="fl",
                                 source=src("fl"))
        p_in = pool.probabilities(fl_model, inputs, role="fl", progress=step("FL inputs"), source=src("fl"))[:, clean]
        p_out = pool.probabilities(fl_model, outputs, role="fl", progress=step("FL outputs"), source=src("fl"))[:, clean]
        return {"p_neutral": p_neutral, "cosine": cosine, "fl_delta": p_out - p_in}

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None, langs=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        ax = self.axes(inputs, outputs, progress)
        cal = self.calibration
        fl_x = np.minimum(0.0, ax["fl_delta"])
        raw = {"sta": cal.raw("sta", ax["p_neutral"]), "sim": cal.raw("sim", ax["cosine"]), "fl": cal.raw("fl", fl_x)}
        on = {"sta": cal.apply("sta", ax["p_neutral"]), "sim": cal.apply("sim", ax["cosine"]), "fl": cal.apply("fl", fl_x)}
        chosen = on if calibrated else raw
        return make_score_frame(
            raw["sta"], raw["sim"], raw["fl"], sentence_chrf(outputs, refs), self.signature(calibrated),
            sta=chosen["sta"], sim=chosen["sim"], fl=chosen["fl"],
        )

    def signature(self, calibrated: bool = True) -> Signature:
        sig = super().signature(calibrated)
        pool = self.get_pool()
        sig.models = {role: pool.info(mid, self.model_kinds[role], role, self.sources.get(role))
                      for role, mid in self.models.items()}
        sig.calibration = asdict(self.calibration) if calibrated else asdict(NO_CALIBRATION)
        return sig
