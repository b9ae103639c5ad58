"""Human judgements beside automatic metrics: metric columns, meta-evaluation, calibration.

Automatic metrics come from two places: scores the engine computes with a preset, and
precomputed metric columns of a human-evaluation file (the
``textdetox/humaneval_textdetox_ru`` files carry the original GPU metrics' scores).
The 2025 recipes (Protasov et al., 2025) are built from those columns:

- CLS-NEW = max([P(ref) <= P(gen)], (P(gen) + [P(in) <= P(gen)]) / 2), P = P(neutral)
  of the new classifier (``CLS_NEW_INPUT/GEN/REF``);
- SIM-JOINED = 0.4 cos(in, gen) + 0.6 cos(gen, ref) (``SIM-INPUT-GEN``, ``SIM-GEN-REF``);
- J-2025 = CLS-NEW x SIM-JOINED x XCOMET-LITE.

Calibrators map an automatic score to a human label and are always evaluated with
leave-one-system-out cross-validation: fitted on the other systems, applied to the
held-out one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from detox_core.analysis import agreement, system_agreement
from detox_core.text import lexicon_hits, words

HUMAN_AXES = {"sta": "non-toxicity", "sim": "content", "fl": "fluency", "j": "J"}

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
        p_in, p_gen, p_ref = out["CLS_NEW_INPUT"], out["CLS_NEW_GEN"], out["CLS_NEW_REF"]
        out["CLS-NEW"] = np.maximum((p_ref <= p_gen).astype(float), (p_gen + (p_in <= p_gen).astype(float)) / 2)
    if {"SIM-INPUT-GEN", "SIM-GEN-REF"} <= set(out.columns):
        out["SIM-JOINED"] = 0.4 * out["SIM-INPUT-GEN"] + 0.6 * out["SIM-GEN-REF"]
    if {"CLS-NEW", "SIM-JOINED", "XCOMET-LITE"} <= set(out.columns):
        out["J-2025"] = out["CLS-NEW"] * out["SIM-JOINED"] * out["XCOMET-LITE"]
    if {"CLS_OLD_GEN", "SIM-INPUT-GEN", "XCOMET-LITE"} <= set(out.columns):
        out["J-OLD"] = out["CLS_OLD_GEN"] * out["SIM-INPUT-GEN"] * out["XCOMET-LITE"]
    return out


def embedded_scores(frame: pd.DataFrame, cache_dir: Path | None = None, progress=None) -> pd.DataFrame:
    """The embedded preset's scores of every judged pair, kept on disk.

    Scoring a judged sample (2,600 pairs for RUSSE-2022) takes seconds; the result is
    written under ``data/cache/`` keyed by the pairs' text and the embedded models'
    folder, so a restarted server, or another one on the same data folder, reads it
    instead. ``progress(step, done, total)`` follows the scoring.
    """
    from detox_core.data import data_dir
    from detox_core.embedded.recipe import RECIPE_VERSION, find_artifacts
    from detox_core.metrics import score

    inputs, outputs = frame["toxic_sentence"].tolist(), frame["neutral_sentence"].tolist()
    refs = [[r] if r else [] for r in frame["neutral_sentence_reference"]]
    digest = hashlib.sha1(json.dumps([RECIPE_VERSION, find_artifacts().name, inputs, outputs, refs],
                                     ensure_ascii=False).encode("utf-8")).hexdigest()[:20]
    if digest in _EMBEDDED_MEMO:
        return _EMBEDDED_MEMO[digest]
    path = (cache_dir or data_dir() / "cache") / f"embedded-scores-{digest}.pkl"
    if path.is_file():
        try:
            cached = pd.read_pickle(path)
            if len(cached) == len(frame):
                return _remember(digest, cached)
        except Exception:  # noqa: BLE001 - a damaged cache file is scored again and replaced
            pass
    scores = score(inputs, outputs, refs, preset="embedded", progress=progress)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        scores.to_pickle(tmp)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only data folder: the scores stay in memory only
    return _remember(digest, scores)


#: The last few judged files' embedded scores, in memory (also when the data folder is read-only).
_EMBEDDED_MEMO: dict[str, pd.DataFrame] = {}


def _remember(digest: str, scores: pd.DataFrame, keep: int = 4) -> pd.DataFrame:
    _EMBEDDED_MEMO.pop(digest, None)
    _EMBEDDED_MEMO[digest] = scores
    while len(_EMBEDDED_MEMO) > keep:
        _EMBEDDED_MEMO.pop(next(iter(_EMBEDDED_MEMO)))
    return scores


def add_preset_scores(frame: pd.DataFrame, scores: pd.DataFrame, preset: str) -> pd.DataFrame:
    """Add a score frame's STA/SIM/FL/J as ``<preset>:sta`` ... columns (row for row)."""
    out = frame.copy()
    for axis in HUMAN_AXES:
        out[f"{preset}:{axis}"] = scores[axis].to_numpy()
    return out


def _judged_pairs(frame: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(system key, input, output) of every judged row, as the joins match them."""
    from detox_core.leaderboard import system_key

    return list(zip(frame["participant_name"].map(system_key), frame["toxic_sentence"].str.strip(),
                    frame["neutral_sentence"].str.strip()))


def _fill_scores(out: pd.DataFrame, pairs: list[tuple[str, str, str]], key: str, scores: pd.DataFrame,
                 preset: str) -> int:
    """Fill ``<preset>:<axis>`` columns of ``out`` from one system's per-sentence scores,
    row by row where the (system, input, output) matches; other rows keep their value.
    Returns how many judged rows matched."""
    lookup = {(key, str(i).strip(), str(o).strip()): vals for i, o, vals in
              zip(scores["input"], scores["output"], scores[list(HUMAN_AXES)].itertuples(index=False))}
    for pos, axis in enumerate(HUMAN_AXES):
        col = f"{preset}:{axis}"
        values = pd.Series([lookup[p][pos] if p in lookup else np.nan for p in pairs], index=out.index)
        out[col] = out[col].where(out[col].notna(), values) if col in out else values
    return sum(1 for p in pairs if p in lookup)


def join_score_files(frame: pd.DataFrame, folder: Path) -> pd.DataFrame:
    """Add the engine's scores from a ``score --out`` folder as ``<preset>:<axis>`` columns.

    A row of ``frame`` takes the scores of the file whose submission name matches its
    ``participant_name`` and whose (input, output) pair equals its own; rows without a
    match stay NaN (and drop out of that metric's statistics).
    """
    from detox_core.leaderboard import system_key

    out = frame.copy()
    pairs = _judged_pairs(frame)
    for path in sorted(Path(folder).glob("*.scores.csv")):
        sig_path = path.with_name(path.name.replace(".scores.csv", ".signature.json"))
        preset = json.loads(sig_path.read_text(encoding="utf-8"))["preset"] if sig_path.is_file() else "scores"
        scores = pd.read_csv(path, keep_default_na=False, na_values=[""])
        _fill_scores(out, pairs, system_key(path.name.removesuffix(".scores.csv") + ".txt"), scores, preset)
    return out


def join_stored(frame: pd.DataFrame, store) -> pd.DataFrame:
    """Add scores of submissions stored by the app (any preset) as ``<preset>:<axis>``
    columns, matched by system name and (input, output) text like :func:`join_score_files`."""
    return join_stored_report(frame, store)[0]


def join_stored_report(frame: pd.DataFrame, store) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`join_stored`, and what it joined: one row per stored submission whose name
    matches a judged system (``submission``, ``system``, ``preset``, ``columns`` added,
    ``rows`` of the judgements matched by input and output text)."""
    from detox_core.leaderboard import system_key

    out = frame.copy()
    pairs = _judged_pairs(frame)
    wanted = {key: name for key, name in zip(frame["participant_name"].map(system_key), frame["participant_name"])}
    report = []
    for row in store.list().itertuples(index=False):
        key = system_key(row.name)
        if key in wanted:
            preset = row.preset if row.calibrated or row.preset != "russe2022" else f"{row.preset}-raw"
            matched = _fill_scores(out, pairs, key, store.scores(row.id), preset)
            report.append({"submission": row.name, "system": wanted[key], "preset": preset,
                           "columns": ", ".join(f"{preset}:{a}" for a in HUMAN_AXES), "rows": matched})
    return out, pd.DataFrame(report, columns=["submission", "system", "preset", "columns", "rows"])


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


def available_metrics(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Human axis -> automatic metric columns of ``frame`` that estimate it."""
    out: dict[str, list[str]] = {axis: [] for axis in HUMAN_AXES}
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]) or frame[col].notna().sum() < 2:
            continue
        if col in FILE_METRICS:
            out[FILE_METRICS[col]].append(col)
        elif ":" in col and col.split(":", 1)[1] in HUMAN_AXES:
            out[col.split(":", 1)[1]].append(col)
    return out


def meta_eval(frame: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """For each human axis, every available metric's agreement at sentence and system level.

    Columns: ``axis``, ``human``, ``metric``, ``level`` (sentence/system), ``n``, and
    ``spearman``/``pearson``/``roc_auc``/``ranking_accuracy`` with ``_low``/``_high``;
    sorted by axis, level and agreement (ROC-AUC at sentence level, Spearman at system
    level).
    """
    rows = []
    systems = frame["participant_name"].to_numpy()
    for axis, metrics in available_metrics(frame).items():
        if HUMAN_AXES[axis] not in frame:
            continue
        human = frame[HUMAN_AXES[axis]].to_numpy(dtype=float)
        for metric in metrics:
            values = frame[metric].to_numpy(dtype=float)
            scored = ~np.isnan(values)
            a = agreement(values, human, n_boot=n_boot, seed=seed)
            row = {"axis": axis, "human": HUMAN_AXES[axis], "metric": metric, "level": "sentence", "n": a.n}
            for name in ("spearman", "pearson", "roc_auc"):
                value, lo, hi = getattr(a, name)
                row.update({name: value, f"{name}_low": lo, f"{name}_high": hi})
            rows.append(row)
            s = system_agreement(values[scored], human[scored], systems[scored], n_boot=n_boot, seed=seed)
            row = {"axis": axis, "human": HUMAN_AXES[axis], "metric": metric, "level": "system", "n": s["n_systems"]}
            for name in ("spearman", "pearson", "ranking_accuracy"):
                value, lo, hi = s[name]
                row.update({name: value, f"{name}_low": lo, f"{name}_high": hi})
            rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["_key"] = np.where(table["level"] == "sentence", table.get("roc_auc"), table.get("spearman"))
    order = {a: i for i, a in enumerate(HUMAN_AXES)}
    table["_axis"] = table["axis"].map(order)
    table = table.sort_values(["_axis", "level", "_key"], ascending=[True, True, False], na_position="last")
    return table.drop(columns=["_key", "_axis"]).reset_index(drop=True)


def disagreements(frame: pd.DataFrame, axis: str, metric: str, threshold: float) -> dict[str, pd.DataFrame]:
    """Rows where the human says yes and the metric says no (below threshold), and the reverse."""
    human = frame[HUMAN_AXES[axis]] >= 0.5
    auto = frame[metric] >= threshold
    return {"human yes, metric no": frame[human & ~auto], "human no, metric yes": frame[~human & auto]}


def confusion(frame: pd.DataFrame, axis: str, metric: str, threshold: float) -> pd.DataFrame:
    """2x2 counts: human label (rows) by metric >= threshold (columns)."""
    human = np.where(frame[HUMAN_AXES[axis]] >= 0.5, "human: yes", "human: no")
    auto = np.where(frame[metric] >= threshold, "metric: yes", "metric: no")
    return pd.crosstab(pd.Series(human, name="human"), pd.Series(auto, name="metric")).reindex(
        index=["human: yes", "human: no"], columns=["metric: yes", "metric: no"], fill_value=0)


# ------------------------------------------------------------------ calibration

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


@dataclass
class Calibrator:
    """A fitted map from automatic scores to a human label.

    Attributes:
        kind: ``linear``, ``isotonic`` or ``logistic``.
        features: the input columns, in order.
        target: the human label column.
        model_: the fitted scikit-learn estimator.
    """

    kind: Kind
    features: list[str]
    target: str
    model_: Any = None
    meta: dict[str, Any] = field(default_factory=dict)

    def _estimator(self):
        from sklearn.isotonic import IsotonicRegression
        from sklearn.linear_model import LinearRegression, LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        if self.kind == "isotonic":
            if len(self.features) != 1:
                raise ValueError("isotonic calibration maps one score")
            return IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
        if self.kind == "linear":
            return LinearRegression()
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))

    def fit(self, frame: pd.DataFrame) -> "Calibrator":
        x = frame[self.features].to_numpy(dtype=float)
        y = frame[self.target].to_numpy(dtype=float)
        model = self._estimator()
        if self.kind == "isotonic":
            model.fit(x[:, 0], y)
        elif self.kind == "logistic":
            model.fit(x, (y >= 0.5).astype(int))
        else:
            model.fit(x, y)
        self.model_ = model
        return self

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        x = frame[self.features].to_numpy(dtype=float)
        if self.kind == "isotonic":
            return self.model_.predict(x[:, 0])
        if self.kind == "logistic":
            return self.model_.predict_proba(x)[:, 1]
        return np.clip(self.model_.predict(x), 0.0, 1.0)

    def save(self, path: Path) -> None:
        import joblib

        joblib.dump({"kind": self.kind, "features": self.features, "target": self.target, "model": self.model_,
                     "meta": self.meta}, path)

    @classmethod
    def load(cls, path: Path) -> "Calibrator":
        import joblib

        state = joblib.load(path)
        return cls(state["kind"], state["features"], state["target"], state["model"], state["meta"])

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
        parts += [held, raw]
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
    for name, (kind, features, target) in candidates.items():
        held = leave_one_system_out(frame, kind, features, target)
        a_cal = agreement(held, frame[target].to_numpy(float), n_boot=n_boot)
        a_raw = agreement(frame[features[0]].to_numpy(float), frame[target].to_numpy(float), n_boot=n_boot)
        rows.append({"calibrator": name, "kind": kind, "features": ", ".join(features), "human": target,
                     "raw_auc": a_raw.roc_auc[0], "held_out_auc": a_cal.roc_auc[0],
                     "held_out_low": a_cal.roc_auc[1], "held_out_high": a_cal.roc_auc[2],
                     "raw_spearman": a_raw.spearman[0], "held_out_spearman": a_cal.spearman[0]})
    return pd.DataFrame(rows)
