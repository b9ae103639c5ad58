"""The TextDetox 2025 recipes (Protasov et al., 2025, "Evaluating Text Style Transfer
Evaluation: Are There Any Reliable Metrics?"), from per-sentence model outputs.

- CLS-NEW = max([P(ref) <= P(gen)], (P(gen) + [P(in) <= P(gen)]) / 2), P = P(neutral)
  of ``textdetox/xlmr-large-toxicity-classifier-v2``;
- SIM-JOINED = 0.4 cos(in, gen) + 0.6 cos(gen, ref) with ``sentence-transformers/LaBSE``;
- J-2025 = CLS-NEW x SIM-JOINED x XCOMET-LITE.

The human-evaluation files of ``textdetox/eval-of-detox-eval`` carry those models'
per-sentence outputs as columns (:data:`FILE_METRICS`); :func:`add_2025_recipes`
builds the recipes from them. The ``textdetox2025`` preset (:class:`TextDetox2025`)
computes them from the models, as the official evaluation does
(``pan-webis-de/pan-code``, ``clef25/text-detoxification/evaluation``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from detox_core.errors import DetoxInputError
from detox_core.metrics.base import Preset, Signature, StepProgress, check_pairs, make_score_frame
from detox_core.metrics.chrf import sentence_chrf
from detox_core.metrics.registry import register_preset
from detox_core.models import xcomet
from detox_core.languages import TEXTDETOX2025, in_edition


def cls_new(p_in: np.ndarray, p_gen: np.ndarray, p_ref: np.ndarray) -> np.ndarray:
    """CLS-NEW from P(neutral) of the input, the output and the reference; where ``p_ref``
    is NaN (no reference) the first term alone, ``(P(gen) + [P(in) <= P(gen)]) / 2``, as the
    official code computes it without references."""
    p_in, p_gen, p_ref = (np.asarray(x, dtype=float) for x in (p_in, p_gen, p_ref))
    first = (p_gen + (p_in <= p_gen).astype(float)) / 2
    return np.where(np.isnan(p_ref), first, np.maximum((p_ref <= p_gen).astype(float), first))


def sim_joined(cos_in_gen: np.ndarray, cos_gen_ref: np.ndarray) -> np.ndarray:
    """SIM-JOINED = 0.4 cos(input, output) + 0.6 cos(output, reference); where
    ``cos_gen_ref`` is NaN (no reference) cos(input, output) alone."""
    cos_in_gen, cos_gen_ref = np.asarray(cos_in_gen, dtype=float), np.asarray(cos_gen_ref, dtype=float)
    return np.where(np.isnan(cos_gen_ref), cos_in_gen, 0.4 * cos_in_gen + 0.6 * cos_gen_ref)


#: Precomputed columns of the humaneval files and the human axis each one estimates.
FILE_METRICS = {
    "CLS_OLD_GEN": "sta", "CLS_NEW_GEN": "sta", "CLS-NEW": "sta",
    "SIM-INPUT-GEN": "sim", "SIM-GEN-REF": "sim", "SIM-JOINED": "sim", "chrf": "sim",
    "XCOMET-LITE": "fl", "XCOMET-XL": "fl", "XCOMET-XXL": "fl", "wmt22-comet-da": "fl",
    "J-2025": "j", "J-OLD": "j",
}


def add_2025_recipes(frame: pd.DataFrame) -> pd.DataFrame:
    """Add CLS-NEW, SIM-JOINED, J-2025 and J-OLD where their input columns exist."""
    out = frame.copy()
    if {"CLS_NEW_INPUT", "CLS_NEW_GEN", "CLS_NEW_REF"} <= set(out.columns):
        out["CLS-NEW"] = cls_new(out["CLS_NEW_INPUT"], out["CLS_NEW_GEN"], out["CLS_NEW_REF"])
    if {"SIM-INPUT-GEN", "SIM-GEN-REF"} <= set(out.columns):
        out["SIM-JOINED"] = sim_joined(out["SIM-INPUT-GEN"], out["SIM-GEN-REF"])
    if {"CLS-NEW", "SIM-JOINED", "XCOMET-LITE"} <= set(out.columns):
        out["J-2025"] = out["CLS-NEW"] * out["SIM-JOINED"] * out["XCOMET-LITE"]
    if {"CLS_OLD_GEN", "SIM-INPUT-GEN", "XCOMET-LITE"} <= set(out.columns):
        out["J-OLD"] = out["CLS_OLD_GEN"] * out["SIM-INPUT-GEN"] * out["XCOMET-LITE"]
    return out


#: The official STA model reads its texts with another model's tokenizer (toxicity.py).
STA_TOKENIZER = "cardiffnlp/twitter-xlm-roberta-large-2022"


@register_preset
class TextDetox2025(Preset):
    """The official TextDetox 2025 evaluation: CLS-NEW x SIM-JOINED x xCOMET-lite.

    Follows the official code (``evaluate.py``, ``metrics/toxicity.py``,
    ``metrics/similarity.py``, ``metrics/fluency/xcomet.py``) where it differs from the
    paper's description: an output more toxic than its input scores P(y) / 2, not 0; SIM is
    the cosine unclipped. A classifier batch that fails is an error here (the official code
    scores it 0 silently). With several references per input, the first is the reference
    (the official data has one); an input without references gets the reference-free forms:
    STA (P(y) + [P(x) <= P(y)]) / 2, SIM cos(x, y), xCOMET on [mt:src] alone.
    """

    name = "textdetox2025"
    version = "1"
    title = "TextDetox 2025 official (GPU models: XLM-R v2 toxicity, LaBSE, xCOMET-lite)"
    label = "TextDetox 2025"
    # The 2025 toxicity classifier's languages (the 2025 edition's 15).
    languages = in_edition(TEXTDETOX2025)
    description = ("The official 2025 recipe: CLS-NEW toxicity against the input and the reference, LaBSE "
                   "similarity to the input and the reference, xCOMET-lite fluency.")
    axis_help = {
        "sta": "Style accuracy in the 2025 recipe (CLS-NEW): with P = P(neutral) of the XLM-R v2 classifier, "
        "1 when the rewrite is at most as toxic as the **reference**, else (P(rewrite) + 1) / 2 when it is at "
        "most as toxic as the input, else P(rewrite) / 2 (the official code; the paper says 0). From 0 to 1.",
        "sim": "Content in the 2025 recipe (SIM-JOINED): 0.4 x cosine(input, rewrite) + 0.6 x cosine(reference, "
        "rewrite) of LaBSE embeddings; cosine(input, rewrite) alone without a reference (the first reference "
        "when there are several). At most 1; unclipped, as the official code.",
        "fl": "Fluency in the 2025 recipe: the xCOMET-lite score of the rewrite (mt) given the input (src) and "
        "the reference (ref), as unbabel-comet computes it; without a reference its source-only score. "
        "At most 1, about 0 to 1.",
    }
    model_kinds = {"sta": "classifier", "sim": "sentence-transformer", "fl": xcomet.KIND}
    sta_of_text_alone = False  # STA compares the output with the input
    needs_download = True  # three hub models, and the companions' tokenizer and config files
    #: role -> the id of another model the role's model is read with (tokenizer, encoder)
    companions = {"sta": STA_TOKENIZER, "fl": xcomet.ENCODER}

    @classmethod
    def default_models(cls) -> dict[str, str]:
        return {"sta": "textdetox/xlmr-large-toxicity-classifier-v2", "sim": "sentence-transformers/LaBSE",
                "fl": xcomet.MODEL}

    def score(self, inputs: Sequence[str], outputs: Sequence[str], references: Sequence[Sequence[str]] | None = None,
              *, calibrated: bool = True, progress: StepProgress | None = None,
              langs: Sequence[str] | None = None) -> pd.DataFrame:
        refs = check_pairs(inputs, outputs, references)
        first = [r[0] if r else None for r in refs]
        has = np.array([r is not None for r in first])
        pool, src, sta_id, sim_id = self.get_pool(), self.sources.get, self.models["sta"], self.models["sim"]

        def step(name: str):
            return (lambda done, total: progress(name, done, total)) if progress else None

        def p_neutral(texts: list[str], what: str) -> np.ndarray:
            # Label 0 is neutral (toxicity.py's target_label); one logit: its sigmoid.
            probs = pool.probabilities(sta_id, texts, role="sta", progress=step(f"STA {what}"), source=src("sta"),
                                       tokenizer=STA_TOKENIZER)
            return probs[:, 0] if len(texts) else np.zeros(0)

        def embed(texts: list[str], what: str) -> np.ndarray:
            return pool.embeddings(sim_id, texts, kind="sentence-transformer", role="sim",
                                   progress=step(f"SIM {what}"), source=src("sim"))

        ref_texts = [r for r in first if r is not None]
        p_ref = np.full(len(outputs), np.nan)
        cos_ref = np.full(len(outputs), np.nan)
        p_in, p_out = p_neutral(list(inputs), "inputs"), p_neutral(list(outputs), "outputs")
        if ref_texts:
            p_ref[has] = p_neutral(ref_texts, "references")
        emb_in, emb_out = embed(list(inputs), "inputs"), embed(list(outputs), "outputs")
        cos_in = np.sum(emb_in * emb_out, axis=1)
        if ref_texts:
            cos_ref[has] = np.sum(embed(ref_texts, "references") * emb_out[has], axis=1)
        items = [xcomet.item(x, y, r) for x, y, r in zip(inputs, outputs, first)]
        fl = pool.run_custom(self.models["fl"], xcomet.KIND, items, role="fl", progress=step("FL (xCOMET-lite)"),
                             source=src("fl"), tokenizer=xcomet.ENCODER)
        fl = fl[:, 0] if len(items) else np.zeros(0)
        sta, sim = cls_new(p_in, p_out, p_ref), sim_joined(cos_in, cos_ref)
        for name, values in (("STA", sta), ("SIM", sim), ("FL", fl)):
            if not np.all(np.isfinite(values)):
                raise DetoxInputError(f"the {name} model returned a non-finite score for "
                                      f"{int(np.sum(~np.isfinite(values)))} of {len(values)} pairs")
        return make_score_frame(sta, sim, fl, sentence_chrf(outputs, refs), self.signature(calibrated))

    def signature(self, calibrated: bool = True) -> Signature:
        sig = super().signature(calibrated)
        pool = self.get_pool()
        sig.models = {role: pool.info(self.models[role], kind, role, self.sources.get(role), self.companions.get(role))
                      for role, kind in self.model_kinds.items()}
        sig.models["sta"]["score"] = "CLS-NEW: max((P(y) + [P(x) <= P(y)]) / 2, [P(r) <= P(y)]), P = P(label 0)"
        sig.models["sim"]["score"] = "SIM-JOINED: 0.4 cos(x, y) + 0.6 cos(r, y); cos(x, y) without r"
        sig.models["fl"]["score"] = ("xCOMET-lite: unbabel-comet 2.2 XCOMETMetric score (src x, mt y, ref r; "
                                     "src only without r)")
        sig.calibration = None
        return sig
