"""The multilingual TextDetox 2024 metrics (Dementieva et al., 2024, "Overview of the
Multilingual Text Detoxification Task at PAN 2024").

STA = P(neutral) of ``textdetox/xlmr-large-toxicity-classifier``; SIM = cosine of
``sentence-transformers/LaBSE`` embeddings of input and output; FL = sacrebleu chrF of
the output against the references (defaults) / 100; no calibration.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from detox_core.metrics.base import Preset, Signature, check_pairs, make_score_frame
from detox_core.metrics.chrf import sentence_chrf
from detox_core.metrics.registry import register_preset
from detox_core.languages import TEXTDETOX2024, in_edition


@register_preset
class TextDetox2024(Preset):
    """The multilingual TextDetox 2024 metrics (see the module docstring)."""

    name = "textdetox2024"
    version = "1"
    title = "TextDetox 2024 multilingual (GPU models)"
    label = "TextDetox 2024"
    # The toxicity classifier's training languages (LaBSE and chrF cover many more).
    languages = in_edition(TEXTDETOX2024)
    description = "The multilingual 2024 recipe: XLM-R toxicity, LaBSE similarity, chrF against the references."
    axis_help = {
        "fl": "Fluency in the 2024 recipe: chrF of the rewrite against the **references**, from 0 to 1; n/a without "
        "references.",
    }
    model_kinds = {"sta": "classifier", "sim": "sentence-transformer"}

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {"sta": "textdetox/xlmr-large-toxicity-classifier", "sim": "sentence-transformers/LaBSE"}

    def score(self, inputs, outputs, references=None, *, calibrated=True, progress=None, langs=None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        pool = self.get_pool()

        def step(name: str):
            return (lambda done, total: progress(name, done, total)) if progress else None

        src = self.sources.get
        neutral = pool.label_index(self.models["sta"], ["neutral", "non-toxic", "non_toxic"], 0, role="sta",
                                   source=src("sta"))
        sta = pool.probabilities(self.models["sta"], outputs, role="sta", progress=step("STA"), source=src("sta"))[:, neutral]
        emb_in = pool.embeddings(self.models["sim"], inputs, kind="sentence-transformer", role="sim",
                                 progress=step("SIM inputs"), source=src("sim"))
        emb_out = pool.embeddings(self.models["sim"], outputs, kind="sentence-transformer", role="sim",
                                  progress=step("SIM outputs"), source=src("sim"))
        sim = np.clip(np.sum(emb_in * emb_out, axis=1), 0.0, 1.0)
        chrf = sentence_chrf(outputs, refs)
        # FL is chrF against the references; without references it cannot be computed.
        return make_score_frame(sta, sim, chrf, chrf, self.signature(calibrated))

    def signature(self, calibrated: bool = True) -> Signature:
        sig = super().signature(calibrated)
        pool = self.get_pool()
        sig.models = {
            **{role: pool.info(self.models[role], kind, role, self.sources.get(role))
               for role, kind in self.model_kinds.items()},
            "fl": {"id": "chrf-vs-references"},  # the chrf field spells which chrF
        }
        sig.calibration = None
        return sig
