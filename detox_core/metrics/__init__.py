"""Metrics: one module per axis family, presets that combine them, score frames.

``score(inputs, outputs, references, preset=...)`` is the entry point; see
:mod:`detox_core.metrics.presets`.
"""

from detox_core.metrics.base import SCORE_COLUMNS, Signature, rotation_calibration, system_scores
from detox_core.metrics.presets import PRESETS, Preset, get_preset, score

__all__ = ["PRESETS", "SCORE_COLUMNS", "Preset", "Signature", "get_preset", "rotation_calibration", "score", "system_scores"]
