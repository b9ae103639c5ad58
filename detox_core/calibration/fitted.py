"""Calibrators fitted on human judgements, kept as plain data (JSON), never as pickles.

A calibrator maps one raw axis score to the probability that people say yes on that
axis. Two kinds, with the state they are stored as:

- ``isotonic``: scikit-learn's ``IsotonicRegression(increasing=True, y_min=0, y_max=1,
  out_of_bounds="clip")`` (the kind of the MERA ruDetox calibrators); stored as its
  ``X_thresholds_`` / ``y_thresholds_``, applied as linear interpolation between them,
  clipped at both ends, exactly as its ``predict`` does;
- ``logistic``: ``sigmoid(slope * x + intercept)``, a one-feature logistic regression
  of the human label (yes when >= 0.5).

A :class:`CalibratorSet` holds one calibrator per axis (``sta``, ``sim``, ``fl``), what
it was fitted on (a description, the number of pairs and a SHA-256 of the scores and
labels) and serialises to JSON. The app keeps a preset's set in
``<data dir>/models/calibrators/<preset>.json`` (:func:`saved_path`); the CLI's
``fit-calibrators`` writes there or to any file, and ``score --calibrators FILE`` reads
one. Loading validates every field and raises :class:`DetoxInputError` naming the file.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from detox_core import config
from detox_core.errors import DetoxInputError

Kind = Literal["isotonic", "logistic"]
KINDS: tuple[str, ...] = ("isotonic", "logistic")
AXES: tuple[str, ...] = ("sta", "sim", "fl")
FORMAT = "detox-dashboard calibrators v1"


def isotonic_thresholds(x: np.ndarray, y: np.ndarray) -> tuple[list[float], list[float]]:
    """scikit-learn's ``IsotonicRegression(increasing=True, y_min=0, y_max=1, out_of_bounds="clip")``
    fitted on ``x`` -> ``y``, kept as its thresholds (plain numbers, what the JSON files hold)."""
    # Imported here: scikit-learn takes about a second to import: only fitting and clustering need it.
    from sklearn.isotonic import IsotonicRegression

    model = IsotonicRegression(increasing=True, y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x, y)
    return [float(v) for v in model.X_thresholds_], [float(v) for v in model.y_thresholds_]


def isotonic_predict(x: np.ndarray, xs: list[float], ys: list[float]) -> np.ndarray:
    """What the fitted isotonic regression predicts from its thresholds: linear interpolation,
    the end values held outside ``[xs[0], xs[-1]]`` (scikit-learn's clip)."""
    return np.interp(np.asarray(x, float), np.asarray(xs, float), np.asarray(ys, float))


@dataclass(frozen=True)
class AxisCalibrator:
    """One fitted map from a raw score in [0, 1] to a calibrated one (see the module
    docstring). ``params``: isotonic ``{"x": [...], "y": [...]}`` (x increasing);
    logistic ``{"slope": a, "intercept": b}``."""

    kind: Kind
    params: dict[str, Any]

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Calibrated scores; NaN stays NaN."""
        x = np.asarray(x, dtype=np.float64)
        if self.kind == "isotonic":
            out = isotonic_predict(x, self.params["x"], self.params["y"])
        else:
            out = 1.0 / (1.0 + np.exp(-(self.params["slope"] * x + self.params["intercept"])))
        return np.where(np.isnan(x), np.nan, out)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **{k: v for k, v in self.params.items()}}


@dataclass(frozen=True)
class CalibratorSet:
    """One calibrator per axis of a preset, and what they were fitted on."""

    preset: str
    axes: dict[str, AxisCalibrator]
    fitted_on: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "preset": self.preset, "fitted_on": self.fitted_on,
                "axes": {a: c.as_dict() for a, c in self.axes.items()}}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False, indent=1)

    def digest(self) -> str:
        """SHA-256 (first 16 hex digits) of the set's JSON: names it in signatures and caches."""
        return hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode("utf-8")).hexdigest()[:16]

    def signature(self) -> dict[str, Any]:
        """What a score frame's signature records: kinds, parameters, fitted-on data."""
        return {"type": "fitted", "sha256": self.digest(), "fitted_on": self.fitted_on,
                "axes": {a: c.as_dict() for a, c in self.axes.items()}}

    def describe(self) -> str:
        """``isotonic, fitted on <description> (N pairs) on <date>``."""
        kinds = sorted({c.kind for c in self.axes.values()})
        f = self.fitted_on
        if f.get("published"):
            return f"{'/'.join(kinds)}, published: {f.get('description', '')}"
        return (f"{'/'.join(kinds)}, fitted on {f.get('description', 'unnamed data')} ({f.get('n', '?')} pairs"
                + (f", {f['fitted_at']}" if f.get("fitted_at") else "") + ")")


def _number_list(value: Any, where: str) -> list[float]:
    if not isinstance(value, list) or not value or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                          and math.isfinite(v) for v in value):
        raise DetoxInputError(f"{where}: expected a non-empty list of finite numbers")
    return [float(v) for v in value]


def _axis_from_dict(raw: Any, where: str) -> AxisCalibrator:
    if not isinstance(raw, Mapping) or raw.get("kind") not in KINDS:
        raise DetoxInputError(f"{where}: expected an object with kind {' or '.join(KINDS)}")
    if raw["kind"] == "isotonic":
        xs, ys = _number_list(raw.get("x"), f"{where}.x"), _number_list(raw.get("y"), f"{where}.y")
        if len(xs) != len(ys):
            raise DetoxInputError(f"{where}: x has {len(xs)} values and y {len(ys)}; expected as many")
        if any(b < a for a, b in zip(xs, xs[1:])):
            raise DetoxInputError(f"{where}.x: expected thresholds in increasing order")
        return AxisCalibrator("isotonic", {"x": xs, "y": ys})
    params = {}
    for name in ("slope", "intercept"):
        v = raw.get(name)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise DetoxInputError(f"{where}.{name}: expected a finite number, found {v!r}")
        params[name] = float(v)
    return AxisCalibrator("logistic", params)


def from_json(text: str, label: str = "calibrators") -> CalibratorSet:
    """Parse and validate a calibrator set (plain JSON: nothing in it is executed).

    Raises:
        DetoxInputError: not JSON, another format, a missing axis or a bad value, with ``label``.
    """
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise DetoxInputError(f"{label}: not JSON ({err.msg}, line {err.lineno})") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise DetoxInputError(f"{label}: expected a calibrator file written by fit-calibrators (format {FORMAT!r})")
    axes = raw.get("axes")
    if not isinstance(axes, dict) or set(axes) != set(AXES):
        raise DetoxInputError(f"{label}: expected calibrators for the axes {', '.join(AXES)}, found "
                              f"{', '.join(axes) if isinstance(axes, dict) else 'none'}")
    fitted = raw.get("fitted_on") if isinstance(raw.get("fitted_on"), dict) else {}
    return CalibratorSet(str(raw.get("preset", "")), {a: _axis_from_dict(axes[a], f"{label}: axes.{a}") for a in AXES},
                         fitted)


def load(path: Path) -> CalibratorSet:
    """Read a calibrator file (see :func:`from_json`)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise DetoxInputError(f"{path}: cannot read the calibrators ({err.strerror or err})") from None
    return from_json(text, str(path))


def saved_path(preset: str) -> Path:
    """Where the app keeps the calibrators fitted for ``preset``."""
    return config.data_dir() / "models" / "calibrators" / f"{preset}.json"


def load_saved(preset: str) -> CalibratorSet | None:
    """The calibrators saved for ``preset``, or None when none were fitted.

    Raises:
        DetoxInputError: the saved file is damaged (never silently ignored).
    """
    path = saved_path(preset)
    try:
        stat = path.stat()
    except OSError:
        return None
    # Pages ask on every rerun (the preset picker, every preset label): read the file
    # again only when it changed.
    stamp = (str(path), stat.st_mtime_ns, stat.st_size)
    held = _SAVED.get(preset)
    if held is None or held[0] != stamp:
        held = _SAVED[preset] = (stamp, load(path))
    return held[1]


_SAVED: dict[str, tuple[tuple, CalibratorSet]] = {}


def save(cals: CalibratorSet, path: Path | None = None) -> Path:
    """Write the set as JSON (atomically); default :func:`saved_path` of its preset."""
    path = Path(path) if path else saved_path(cals.preset)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(cals.to_json(), encoding="utf-8")
    tmp.replace(path)
    return path


def fit_axis(x: np.ndarray, y: np.ndarray, kind: Kind) -> AxisCalibrator:
    """Fit one calibrator on raw scores ``x`` and human labels ``y`` in [0, 1] (NaN pairs left out).

    Raises:
        DetoxInputError: fewer than 2 usable pairs, or (logistic) a single label.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if len(x) < 2:
        raise DetoxInputError(f"expected at least 2 pairs with a score and a human label, found {len(x)}")
    if kind == "isotonic":
        xs, ys = isotonic_thresholds(x, y)
        return AxisCalibrator("isotonic", {"x": xs, "y": ys})
    if kind != "logistic":
        raise DetoxInputError(f"unknown calibrator kind {kind!r}; expected {' or '.join(KINDS)}")
    labels = (y >= 0.5).astype(int)
    if len(set(labels)) < 2:
        raise DetoxInputError("a logistic calibrator needs both human answers (yes and no) among the pairs")
    # Imported here: scikit-learn takes about a second to import: only fitting and clustering need it.
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(max_iter=1000).fit(x[:, None], labels)
    return AxisCalibrator("logistic", {"slope": float(model.coef_[0, 0]), "intercept": float(model.intercept_[0])})


def data_digest(raw: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray]) -> str:
    """SHA-256 of the scores and labels a set is fitted on (what ``fitted_on`` records)."""
    h = hashlib.sha256()
    for axis in AXES:
        for arr in (raw[axis], human[axis]):
            h.update(np.ascontiguousarray(np.asarray(arr, dtype=np.float64)).tobytes())
    return h.hexdigest()


def fit_set(preset: str, raw: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray], kind: Kind,
            description: str, fitted_at: str = "") -> CalibratorSet:
    """Fit one calibrator per axis: ``raw[axis]`` (the preset's uncalibrated scores)
    against ``human[axis]`` (the human label of that axis, in [0, 1])."""
    axes = {}
    for axis in AXES:
        try:
            axes[axis] = fit_axis(raw[axis], human[axis], kind)
        except DetoxInputError as err:
            raise DetoxInputError(f"{axis}: {err}") from None
    n = int(np.sum(~np.isnan(np.asarray(raw["sta"], float))))
    fitted = {"description": description, "n": n, "kind": kind, "sha256": data_digest(raw, human)}
    if fitted_at:
        fitted["fitted_at"] = fitted_at
    return CalibratorSet(preset, axes, fitted)
