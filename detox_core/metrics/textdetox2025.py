"""The TextDetox 2025 recipes (Protasov et al., 2025, "Evaluating Text Style Transfer
Evaluation: Are There Any Reliable Metrics?"), from per-sentence model outputs.

- CLS-NEW = max([P(ref) <= P(gen)], (P(gen) + [P(in) <= P(gen)]) / 2), P = P(neutral)
  of ``textdetox/xlmr-large-toxicity-classifier-v2``;
- SIM-JOINED = 0.4 cos(in, gen) + 0.6 cos(gen, ref) with ``sentence-transformers/LaBSE``;
- J-2025 = CLS-NEW x SIM-JOINED x XCOMET-LITE.

The human-evaluation files of ``textdetox/eval-of-detox-eval`` carry those models'
per-sentence outputs as columns (:data:`FILE_METRICS`); :func:`add_2025_recipes`
builds the recipes from them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def cls_new(p_in: np.ndarray, p_gen: np.ndarray, p_ref: np.ndarray) -> np.ndarray:
    """CLS-NEW from P(neutral) of the input, the output and the reference."""
    p_in, p_gen, p_ref = (np.asarray(x, dtype=float) for x in (p_in, p_gen, p_ref))
    return np.maximum((p_ref <= p_gen).astype(float), (p_gen + (p_in <= p_gen).astype(float)) / 2)


def sim_joined(cos_in_gen: np.ndarray, cos_gen_ref: np.ndarray) -> np.ndarray:
    """SIM-JOINED = 0.4 cos(input, output) + 0.6 cos(output, reference)."""
    return 0.4 * np.asarray(cos_in_gen, dtype=float) + 0.6 * np.asarray(cos_gen_ref, dtype=float)


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
