"""Calibrators of one or more features fitted on the human judgements on screen, and how well they do.

Calibrators are always evaluated with leave-one-system-out cross-validation: fitted on
the other systems, applied to the held-out one (a calibrator never sees the system it
is judged on). Reliability curves show predictions against what humans said.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from detox_core.calibration.fitted import isotonic_predict, isotonic_thresholds
from detox_core.stats.agreement import agreement
from detox_core.errors import DetoxInputError
from detox_core.text import lexicon_hits, words


Kind = Literal["linear", "isotonic", "logistic"]


def simple_features(frame: pd.DataFrame, lexicon: frozenset[str] = frozenset()) -> pd.DataFrame:
    """Length ratio, copy rate (share of output words found in the input) and lexicon hits."""
    ratio, copy, hits = [], [], []
    for src, out in zip(frame["toxic_sentence"], frame["neutral_sentence"]):
        a, b = words(src), words(out)
        ratio.append(len(b) / max(len(a), 1))
        copy.append(sum(w in set(a) for w in b) / max(len(b), 1))
        hits.append(len(lexicon_hits(out, lexicon)))
    return pd.DataFrame({"length_ratio": ratio, "copy_rate": copy, "lexicon_hits": hits}, index=frame.index)


FORMAT = "detox-dashboard calibrator v1"


@dataclass
class Calibrator:
    """A fitted map from automatic scores to a human label.

    It is fitted with scikit-learn and kept as plain numbers (``params_``), which is
    what it predicts from and what :meth:`save` writes as JSON: never a pickle, so a
    calibrator file cannot run code when it is read.

    Attributes:
        kind: ``linear``, ``isotonic`` or ``logistic``.
        features: the input columns, in order.
        target: the human label column.
        params_: the fitted state: isotonic ``x``/``y`` thresholds (predicted by linear
            interpolation, held constant outside, as scikit-learn's ``predict`` with
            ``out_of_bounds="clip"``); logistic ``mean``/``scale`` (standardisation),
            ``coef``/``intercept``; linear ``coef``/``intercept`` (clipped to [0, 1]).
    """

    kind: Kind
    features: list[str]
    target: str
    params_: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def fit(self, frame: pd.DataFrame) -> "Calibrator":
        # Imported here: scikit-learn takes about a second to import: only fitting and clustering need it.
        from sklearn.linear_model import LinearRegression, LogisticRegression

        x = frame[self.features].to_numpy(dtype=float)
        y = frame[self.target].to_numpy(dtype=float)
        if self.kind == "isotonic":
            if len(self.features) != 1:
                raise ValueError("isotonic calibration maps one score")
            xs, ys = isotonic_thresholds(x[:, 0], y)
            self.params_ = {"x": xs, "y": ys}
        elif self.kind == "logistic":
            mean, scale = x.mean(axis=0), x.std(axis=0)
            scale = np.where(scale > 0, scale, 1.0)  # StandardScaler's rule for constant columns
            model = LogisticRegression(max_iter=1000).fit((x - mean) / scale, (y >= 0.5).astype(int))
            self.params_ = {"mean": mean.tolist(), "scale": scale.tolist(), "coef": model.coef_[0].tolist(),
                            "intercept": float(model.intercept_[0])}
        elif self.kind == "linear":
            model = LinearRegression().fit(x, y)
            self.params_ = {"coef": np.atleast_1d(model.coef_).tolist(), "intercept": float(model.intercept_)}
        else:
            raise ValueError(f"unknown calibrator kind {self.kind!r}; known: linear, isotonic, logistic")
        return self

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        if self.params_ is None:
            raise ValueError("the calibrator is not fitted")
        x = frame[self.features].to_numpy(dtype=float)
        p = self.params_
        if self.kind == "isotonic":
            return isotonic_predict(x[:, 0], p["x"], p["y"])
        z = x if self.kind == "linear" else (x - np.asarray(p["mean"])) / np.asarray(p["scale"])
        z = z @ np.asarray(p["coef"], float) + p["intercept"]
        return 1.0 / (1.0 + np.exp(-z)) if self.kind == "logistic" else np.clip(z, 0.0, 1.0)

    def save(self, path: Path) -> None:
        """Write the calibrator as JSON."""
        state = {"format": FORMAT, "kind": self.kind, "features": self.features, "target": self.target,
                 "params": self.params_, "meta": self.meta}
        Path(path).write_text(json.dumps(state, ensure_ascii=False, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> "Calibrator":
        """Read a calibrator written by :meth:`save`.

        Raises:
            DetoxInputError: not such a file (the message names it and what is wrong).
        """
        try:
            state = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise DetoxInputError(f"{path}: not a calibrator file ({err})") from None
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise DetoxInputError(f"{path}: not a calibrator file (expected format {FORMAT!r})")
        keys = {"isotonic": ("x", "y"), "logistic": ("mean", "scale", "coef", "intercept"),
                "linear": ("coef", "intercept")}
        kind, params = state.get("kind"), state.get("params")
        if kind not in keys or not isinstance(params, dict) or any(k not in params for k in keys[kind]):
            raise DetoxInputError(f"{path}: calibrator kind {kind!r} needs the parameters {keys.get(kind)}")
        return cls(kind, list(state.get("features") or []), str(state.get("target")), params,
                   dict(state.get("meta") or {}))

    def signature(self) -> dict[str, Any]:
        return {"calibrator": self.kind, "features": self.features, "target": self.target, **self.meta}


def leave_one_system_out(frame: pd.DataFrame, kind: Kind, features: Sequence[str], target: str) -> np.ndarray:
    """Held-out predictions: each system's rows predicted by a calibrator fitted on the others."""
    systems = frame["participant_name"].to_numpy()
    out = np.full(len(frame), np.nan)
    for system in sorted(set(systems)):
        held = systems == system
        train = frame[~held]
        if train[target].nunique() < 2:
            continue
        cal = Calibrator(kind, list(features), target).fit(train)
        out[held] = cal.predict(frame[held])
    return out


def reliability_curve(predicted: np.ndarray, observed: np.ndarray, bins: int = 10) -> pd.DataFrame:
    """Binned predictions against what humans said: one row per non-empty bin of equal
    width over [0, 1] (``bin``, ``predicted``: mean prediction, ``observed``: mean human
    label, ``n``). A calibrated score lies on the diagonal."""
    predicted, observed = np.asarray(predicted, dtype=float), np.asarray(observed, dtype=float)
    keep = ~(np.isnan(predicted) | np.isnan(observed))
    predicted, observed = np.clip(predicted[keep], 0.0, 1.0), observed[keep]
    which = np.minimum((predicted * bins).astype(int), bins - 1)
    rows = [{"bin": b, "predicted": float(predicted[which == b].mean()), "observed": float(observed[which == b].mean()),
             "n": int((which == b).sum())} for b in range(bins) if (which == b).any()]
    return pd.DataFrame(rows, columns=["bin", "predicted", "observed", "n"])


def calibration_curves(frame: pd.DataFrame, candidates: dict[str, tuple[Kind, list[str], str]],
                       bins: int = 10) -> pd.DataFrame:
    """Reliability curves of each candidate's held-out (leave-one-system-out)
    predictions, and of its raw input score, against the human target
    (:func:`reliability_curve` rows plus a ``curve`` name)."""
    parts = []
    for name, (kind, features, target) in candidates.items():
        human = frame[target].to_numpy(float)
        raw = reliability_curve(frame[features[0]].to_numpy(float), human, bins).assign(curve=f"raw {features[0]}")
        held = reliability_curve(leave_one_system_out(frame, kind, features, target), human, bins).assign(curve=name)
        parts += [part for part in (held, raw) if len(part)]
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["bin", "predicted", "observed", "n",
                                                                                  "curve"])
    return out.drop_duplicates(["curve", "bin"]).reset_index(drop=True)


def calibration_report(frame: pd.DataFrame, candidates: dict[str, tuple[Kind, list[str], str]],
                       n_boot: int = 500) -> pd.DataFrame:
    """Held-out (leave-one-system-out) ROC-AUC of each calibrator next to its raw input.

    ``candidates``: name -> (kind, feature columns, human target column). The raw
    column is the first feature.
    """
    rows = []
    nan3 = (np.nan, np.nan, np.nan)
    for name, (kind, features, target) in candidates.items():
        human = frame[target].to_numpy(float)
        held = leave_one_system_out(frame, kind, features, target)
        # One system (or every other system's labels all equal): nothing is held out.
        has_held = bool(np.isfinite(held).any())
        a_cal = agreement(held, human, n_boot=n_boot) if has_held else None
        a_raw = agreement(frame[features[0]].to_numpy(float), human, n_boot=n_boot) if len(frame) > 1 else None
        auc_cal = a_cal.roc_auc if a_cal is not None else nan3
        rows.append({"calibrator": name, "kind": kind, "features": ", ".join(features), "human": target,
                     "raw_auc": a_raw.roc_auc[0] if a_raw is not None else np.nan, "held_out_auc": auc_cal[0],
                     "held_out_low": auc_cal[1], "held_out_high": auc_cal[2],
                     "raw_spearman": a_raw.spearman[0] if a_raw is not None else np.nan,
                     "held_out_spearman": a_cal.spearman[0] if a_cal is not None else np.nan})
    return pd.DataFrame(rows)


def held_out_possible(frame: pd.DataFrame) -> bool:
    """Whether leave-one-system-out has anything to hold out: two systems or more."""
    return "participant_name" in frame and frame["participant_name"].nunique() >= 2


def apply_calibrator(scores: pd.DataFrame, cal: "Calibrator", axis: str) -> pd.DataFrame:
    """A score frame with ``axis`` replaced by the calibrator's output (J recomputed
    when a single axis changes) and the calibrator recorded in its signature.

    The calibrator's features are read from the frame: ``<axis>`` names (``sta`` ...)
    or ``<preset>:<axis>`` names are both accepted.
    """
    feats = pd.DataFrame({f: scores[f.split(":", 1)[-1]] if f not in scores else scores[f] for f in cal.features})
    out = scores.copy()
    out[axis] = cal.predict(feats)
    if axis != "j":
        out["j"] = out["sta"] * out["sim"] * out["fl"]
    sig = dict(scores.attrs.get("signature", {}))
    sig["calibrators"] = {**sig.get("calibrators", {}), axis: cal.signature()}
    out.attrs["signature"] = sig
    return out
