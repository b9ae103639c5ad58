"""The 2022 shared task's calibration: a rotation of each axis's score around a point (Dementieva
et al., 2022), with the coefficients a preset declares."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def rotation_calibration(x: np.ndarray, coef: float, px: float, py: float = 1.0) -> np.ndarray:
    """``clip((x - px) * coef + py, 0, 1)``: a rotation around ``(px, py)`` (the 2022
    shared task's calibration, Dementieva et al., 2022).

    With ``coef = 1`` it is the identity for scores in [0, 1] at ``px = 1`` (STA, SIM),
    and ``1 + x`` at ``px = 0`` (FL from a non-positive difference).
    """
    return np.clip((np.asarray(x, dtype=np.float64) - px) * coef + py, 0.0, 1.0)


@dataclass(frozen=True)
class Calibration:
    """Coefficients ``(coef, px)`` of :func:`rotation_calibration` for the three axes
    (a preset that has one declares its values)."""

    sta: tuple[float, float]
    sim: tuple[float, float]
    fl: tuple[float, float]

    def apply(self, axis: str, x: np.ndarray) -> np.ndarray:
        coef, px = getattr(self, axis)
        return rotation_calibration(x, coef, px)

    def raw(self, axis: str, x: np.ndarray) -> np.ndarray:
        """The same formula with coefficient 1 (no rotation)."""
        _, px = getattr(self, axis)
        return rotation_calibration(x, 1.0, px)


NO_CALIBRATION = Calibration((1.0, 1.0), (1.0, 1.0), (1.0, 0.0))
