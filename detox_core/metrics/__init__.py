"""Metric recipes: a base (score frames, signatures, the Preset class), a
registry, and one module per recipe.

``score_frame(inputs, outputs, references, preset=..., langs=...)`` is the layers' entry point
(the library's is :func:`detox_core.score`). Importing this
package registers every recipe below, in this order after the offline default:

- :mod:`.embedded`: the embedded preset, offline CPU heads the project trains (the default);
- the official RUSSE-2022 metrics;
- the multilingual TextDetox 2024 metrics;
- the official TextDetox 2025 preset (CLS-NEW, SIM-JOINED, xCOMET-lite) and its recipes
  from per-sentence model outputs;
- :mod:`.rudetox_mera`: the MERA benchmark's ruDetox recipe, with calibrators fitted on
  human judgements (:mod:`detox_core.calibration.fitted`);
- :mod:`.llm_judge`: LLM-as-a-judge over a chat-completions server or a local causal LM;
- :mod:`.chrf`: sentence chrF, the reference-based axis every preset reports.
"""

from detox_core.metrics import embedded, russe2022, textdetox2024, textdetox2025  # noqa: F401  (register the presets)
from detox_core.metrics import llm_judge  # noqa: F401,E402  (registers llm-judge)
from detox_core.metrics import rudetox_mera  # noqa: F401  (MERA ruDetox, fitted calibrators)
from detox_core.metrics.base import (
    RAW_COLUMNS,
    SCORE_COLUMNS,
    Preset,
    Signature,
    StepProgress,
    check_pairs,
    make_score_frame,
    system_scores,
)
from detox_core.metrics.registry import (
    DEFAULT_PRESET,
    PRESETS,
    get_preset,
    has_calibration,
    model_roles,
    preset_class,
    preset_label,
    preset_names,
    register_preset,
    registered,
    score_frame,
    unregister_preset,
)

__all__ = [
    "DEFAULT_PRESET", "PRESETS", "RAW_COLUMNS", "SCORE_COLUMNS", "Preset",
    "Signature", "StepProgress", "check_pairs", "get_preset", "has_calibration", "make_score_frame", "model_roles",
    "preset_class", "preset_label", "preset_names", "register_preset", "registered", "score_frame",
    "system_scores", "unregister_preset",
]
