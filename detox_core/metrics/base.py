"""What every metric returns: a score frame with a signature.

A score frame has one row per (input, output) pair and the columns ``sta``, ``sim``,
``fl``, ``j``, ``chrf`` and the uncalibrated ``sta_raw``, ``sim_raw``, ``fl_raw``,
``j_raw``. Its ``attrs["signature"]`` records everything the numbers depend on: the
preset, its version, the models (ids, where they were loaded from, revisions),
the calibration and the library version. Same inputs + same signature = same numbers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from detox_core import __version__

SCORE_COLUMNS = ("sta", "sim", "fl", "j", "chrf")
RAW_COLUMNS = ("sta_raw", "sim_raw", "fl_raw", "j_raw")


def rotation_calibration(x: np.ndarray, coef: float, px: float, py: float = 1.0) -> np.ndarray:
    """``clip((x - px) * coef + py, 0, 1)``: the RUSSE-2022 calibration.

    With ``coef = 1`` it is the identity for scores in [0, 1] at ``px = 1`` (STA, SIM),
    and ``1 + x`` at ``px = 0`` (FL from a non-positive difference).
    """
    return np.clip((np.asarray(x, dtype=np.float64) - px) * coef + py, 0.0, 1.0)


@dataclass(frozen=True)
class Calibration:
    """Coefficients of :func:`rotation_calibration` for the three axes.

    The official RUSSE-2022 values (Dementieva et al., 2022): STA coef 0.90 at px 1,
    SIM coef 1.50 at px 1, FL coef 1.15 at px 0.
    """

    sta: tuple[float, float] = (0.90, 1.0)
    sim: tuple[float, float] = (1.50, 1.0)
    fl: tuple[float, float] = (1.15, 0.0)

    def apply(self, axis: str, x: np.ndarray) -> np.ndarray:
        coef, px = getattr(self, axis)
        return rotation_calibration(x, coef, px)

    def raw(self, axis: str, x: np.ndarray) -> np.ndarray:
        """The same formula with coefficient 1 (no rotation)."""
        _, px = getattr(self, axis)
        return rotation_calibration(x, 1.0, px)


NO_CALIBRATION = Calibration((1.0, 1.0), (1.0, 1.0), (1.0, 0.0))


@dataclass
class Signature:
    """Everything a score frame's numbers depend on."""

    preset: str
    preset_version: str
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None
    calibrated: bool = True
    chrf: str = ""
    library: str = __version__

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_score_frame(
    sta_raw: np.ndarray,
    sim_raw: np.ndarray,
    fl_raw: np.ndarray,
    chrf: np.ndarray,
    signature: Signature,
    sta: np.ndarray | None = None,
    sim: np.ndarray | None = None,
    fl: np.ndarray | None = None,
) -> pd.DataFrame:
    """Assemble a score frame; J is the per-sentence product of the three axes."""
    sta = sta_raw if sta is None else sta
    sim = sim_raw if sim is None else sim
    fl = fl_raw if fl is None else fl
    frame = pd.DataFrame(
        {
            "sta": sta, "sim": sim, "fl": fl, "j": np.asarray(sta) * np.asarray(sim) * np.asarray(fl), "chrf": chrf,
            "sta_raw": sta_raw, "sim_raw": sim_raw, "fl_raw": fl_raw,
            "j_raw": np.asarray(sta_raw) * np.asarray(sim_raw) * np.asarray(fl_raw),
        }
    ).astype("float64")
    frame.attrs["signature"] = signature.as_dict()
    return frame


def system_scores(frame: pd.DataFrame) -> dict[str, float]:
    """System-level scores: the mean of each per-sentence column."""
    return {c: float(frame[c].mean()) for c in (*SCORE_COLUMNS, *RAW_COLUMNS) if c in frame}
