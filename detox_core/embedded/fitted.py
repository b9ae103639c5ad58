"""Learning from people: a model fitted on human judgements, and the protocol that
decides whether it scores.

``python -m detox_core train-embedded`` fits it when judgements exist (the RUSSE-2022
human evaluation that ships with the data, an annotation project's results, an uploaded
file in the same schema):

- features of each pair: the recipe's axes and what they are made of (STA's logit,
  the input's own STA logit, soft recall, chrF, the grammaticality of input and output
  and their difference), and toxic-lexicon words left in the output, the length ratio,
  whether the output is the input unchanged;
- one logistic regression per human axis on standardised features: P(non-toxic),
  P(same meaning), P(not less fluent); FL is 1 for an output whose words are the input's
  (people are asked whether the output is less fluent than the input);
  J = their product;
- leave one system out: for every judged system, the fit on the other systems scores its
  rows. Sentence-level ROC-AUC against human J (pooled and per held-out system) and the
  system-level Spearman of mean J against mean human J are measured for the fit and for
  the corpus-only recipe on the same rows.

The fit scores in place of the recipe's axes only when it does at least as well on all
three (pooled AUC, worst held-out system, system-level Spearman): a fit that agrees with
people on the systems it learnt from but not on new ones would rank new submissions
worse. Either way the artifact (``fitted.json`` beside the models, plain numbers, never a
pickle) keeps the figures, the decision and its reason, and the SHA-256 of the judgements
it learnt from, which the preset's signature records.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core.text import lexicon_hits, normalise_spacing, words

FEATURES = {
    "non-toxicity": ["sta_logit", "sta_in_logit", "lexicon_left"],
    "content": ["recall", "chrf_lc", "length_ratio"],
    "fluency": ["g_out", "g_delta", "length_ratio"],
}
ARTIFACT = "fitted.json"
C = 1.0


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, float), 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def features(inputs, outputs, axes: dict, models) -> pd.DataFrame:
    """The fitted model's features of each pair (``axes``: the preset's :meth:`axes`)."""
    sta_in = models.p_neutral(list(inputs))
    return pd.DataFrame({
        "sta_logit": _logit(axes["sta"]), "sta_in_logit": _logit(sta_in),
        "lexicon_left": [len(lexicon_hits(o, models.lexicon)) for o in outputs],
        "recall": axes["recall"], "chrf_lc": axes["chrf_lc"],
        "length_ratio": [np.log((len(words(o)) + 1) / (len(words(i)) + 1)) for i, o in zip(inputs, outputs)],
        "g_out": axes["g_out"], "g_delta": axes["g_out"] - axes["g_in"],
        "same": [words(normalise_spacing(i)) == words(normalise_spacing(o)) for i, o in zip(inputs, outputs)],
    })


@dataclass
class AxisModel:
    features: list[str]
    mean: list[float]
    std: list[float]
    coef: list[float]
    intercept: float

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        x = (frame[self.features].to_numpy(float) - np.array(self.mean)) / np.array(self.std)
        return 1.0 / (1.0 + np.exp(-(x @ np.array(self.coef) + self.intercept)))


def fit_axes(frame: pd.DataFrame, labels: pd.DataFrame) -> dict[str, AxisModel]:
    """One standardised logistic regression per human axis (labels >= 0.5 are yes)."""
    from sklearn.linear_model import LogisticRegression

    out = {}
    for axis, cols in FEATURES.items():
        x = frame[cols].to_numpy(float)
        y = (labels[axis].to_numpy(float) >= 0.5).astype(int)
        mean, std = x.mean(axis=0), x.std(axis=0)
        std[std == 0] = 1.0
        if len(set(y)) < 2:  # one class only: a constant
            out[axis] = AxisModel(cols, mean.tolist(), std.tolist(), [0.0] * len(cols), float(_logit(np.array([y.mean()]))[0]))
            continue
        lr = LogisticRegression(C=C, max_iter=1000).fit((x - mean) / std, y)
        out[axis] = AxisModel(cols, mean.tolist(), std.tolist(), lr.coef_[0].tolist(), float(lr.intercept_[0]))
    return out


def predict_axes(axis_models: dict[str, AxisModel], frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sta = axis_models["non-toxicity"].predict(frame)
    sim = axis_models["content"].predict(frame)
    fl = np.where(frame["same"].to_numpy(bool), 1.0, axis_models["fluency"].predict(frame))
    return sta, sim, fl


@dataclass
class FittedModel:
    """The fitted axes, where they came from, and what leaving systems out measured."""

    axes: dict[str, AxisModel]
    digest: str
    source: str
    n_pairs: int
    systems: list[str]
    evaluation: dict = field(default_factory=dict)
    used: bool = False
    reason: str = ""
    #: held-out system -> the axes fitted without it (what scores that system's pairs
    #: when agreement is measured: never a fit that saw the system)
    folds: dict[str, dict[str, AxisModel]] = field(default_factory=dict)

    def apply(self, inputs, outputs, axes: dict, models) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return predict_axes(self.axes, features(inputs, outputs, axes, models))

    def save(self, folder: Path) -> Path:
        path = folder / ARTIFACT
        raw = asdict(self)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(raw, indent=2, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)
        _CACHE.pop(folder, None)
        return path

    @classmethod
    def from_json(cls, raw: dict) -> "FittedModel":
        raw = dict(raw)
        raw["axes"] = {k: AxisModel(**v) for k, v in raw["axes"].items()}
        raw["folds"] = {s: {k: AxisModel(**v) for k, v in axes.items()} for s, axes in raw.get("folds", {}).items()}
        return cls(**raw)

    def apply_held_out(self, system: str, inputs, outputs, axes: dict, models):
        """The axes of a judged system's pairs by the fit that left it out (the full fit for
        a system it never saw)."""
        return predict_axes(self.folds.get(system, self.axes), features(inputs, outputs, axes, models))


_CACHE: dict[Path, tuple[float, FittedModel | None]] = {}
_LOCK = threading.Lock()


def fitted_model(folder: Path) -> FittedModel | None:
    """The fitted model saved beside the embedded models in ``folder``, if any (read again
    when the file changes)."""
    path = folder / ARTIFACT
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    with _LOCK:
        cached = _CACHE.get(folder)
        if cached is None or cached[0] != mtime:
            try:
                model = FittedModel.from_json(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError, KeyError):
                model = None  # damaged: the recipe scores, as without a fit
            _CACHE[folder] = (mtime, model)
        return _CACHE[folder][1]


def judgements_digest(judged: pd.DataFrame) -> str:
    """SHA-256 of the judged pairs and their labels (what the fit learnt from)."""
    cols = ["participant_name", "toxic_sentence", "neutral_sentence", "neutral_sentence_reference",
            "non-toxicity", "content", "fluency"]
    payload = json.dumps(judged[cols].astype(str).to_numpy().tolist(), ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
