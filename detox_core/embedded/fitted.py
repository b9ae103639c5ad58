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
import os
import tempfile
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
#: the fitting code's version: a change of features, model or decision rule fits anew
FIT_VERSION = "1"


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
    # Imported here: scikit-learn takes about a second to import: only fitting and clustering need it.
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


def pair_hash(source: str, output: str) -> str:
    """A short hash of one (input, output) pair: what a fit saw, kept without the texts."""
    return hashlib.sha256(f"{source.strip()}\x00{output.strip()}".encode("utf-8")).hexdigest()[:12]


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
    #: system -> hashes of its judged (input, output) pairs: which pairs each fit saw
    pairs: dict[str, list[str]] = field(default_factory=dict)
    version: str = FIT_VERSION
    #: SHA-1 of the saved file (set when read): what the numbers depend on
    file_sha1: str = ""

    def apply(self, inputs, outputs, axes: dict, models) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return predict_axes(self.axes, features(inputs, outputs, axes, models))

    def model_names(self) -> list[str]:
        """``full`` (fitted on every judged pair) and one name per fold (its held-out system)."""
        return ["full", *self.folds]

    def model(self, name: str) -> dict[str, AxisModel]:
        return self.axes if name == "full" else self.folds[name]

    def saw(self, name: str) -> set[str]:
        """The pair hashes model ``name`` learnt from (built once per model)."""
        cache = self.__dict__.setdefault("_saw", {})
        if name not in cache:
            cache[name] = frozenset(h for system, hashes in self.pairs.items() if system != name for h in hashes)
        return cache[name]

    def unseen_model(self, source: str, output: str) -> str | None:
        """A model that never saw this pair: ``full`` when no fit did, else the fold that held
        out the system it came from; None when every model saw it."""
        h = pair_hash(source, output)
        for name in self.model_names():
            if h not in self.saw(name):
                return name
        return None

    def apply_unseen(self, inputs, outputs, axes: dict, models) -> tuple[np.ndarray, ...]:
        """The axes of each pair by a model that never saw it (NaN when every model saw it)."""
        frame = features(inputs, outputs, axes, models)
        names = [self.unseen_model(i, o) for i, o in zip(inputs, outputs)]
        out = [np.full(len(frame), np.nan) for _ in range(3)]
        for name in set(n for n in names if n is not None):
            rows = np.array([n == name for n in names])
            for k, values in enumerate(predict_axes(self.model(name), frame[rows])):
                out[k][rows] = values
        return tuple(out)

    def seen_share(self, name: str, inputs, outputs) -> float:
        """The share of these pairs model ``name`` learnt from."""
        saw = self.saw(name)
        return float(np.mean([pair_hash(i, o) in saw for i, o in zip(inputs, outputs)])) if len(inputs) else 0.0

    def save(self, folder: Path) -> Path:
        path = folder / ARTIFACT
        raw = asdict(self)
        raw.pop("file_sha1")
        fd, tmp = tempfile.mkstemp(prefix=f".{ARTIFACT}.", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(raw, fh, indent=1, ensure_ascii=False)
        os.replace(tmp, path)
        with _LOCK:
            _CACHE.pop(folder, None)
        return path

    @classmethod
    def from_json(cls, raw: dict) -> "FittedModel":
        raw = dict(raw)
        raw["axes"] = {k: AxisModel(**v) for k, v in raw["axes"].items()}
        raw["folds"] = {s: {k: AxisModel(**v) for k, v in axes.items()} for s, axes in raw.get("folds", {}).items()}
        return cls(**raw)


_CACHE: dict[Path, tuple[tuple, FittedModel | None]] = {}
_LOCK = threading.Lock()


def fitted_model(folder: Path) -> FittedModel | None:
    """The fitted model saved beside the embedded models in ``folder``, if any (read again
    when the file changes)."""
    path = folder / ARTIFACT
    try:
        st = path.stat()
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    with _LOCK:
        cached = _CACHE.get(folder)
        if cached is None or cached[0] != stamp:
            try:
                content = path.read_bytes()
                model = FittedModel.from_json(json.loads(content.decode("utf-8")))
                model.file_sha1 = hashlib.sha1(content).hexdigest()
            except (OSError, ValueError, TypeError, KeyError):
                model = None  # damaged: the recipe scores, as without a fit
            _CACHE[folder] = (stamp, model)
        return _CACHE[folder][1]


def judgements_digest(judged: pd.DataFrame) -> str:
    """SHA-256 of the judged pairs and their labels (what the fit learnt from)."""
    cols = ["participant_name", "toxic_sentence", "neutral_sentence", "neutral_sentence_reference",
            "non-toxicity", "content", "fluency", "J"]
    payload = json.dumps(judged[cols].astype(str).to_numpy().tolist(), ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
