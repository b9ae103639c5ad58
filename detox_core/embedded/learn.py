"""Fit the embedded preset on human judgements and measure it on systems the fit never saw
(the protocol of :mod:`detox_core.embedded.fitted`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core.analysis.stats import spearman
from detox_core.embedded.fitted import FittedModel, features, fit_axes, judgements_digest, predict_axes
from detox_core.embedded.loader import load_models
from detox_core.metrics.embedded import EmbeddedPreset

LABELS = ["non-toxicity", "content", "fluency", "J"]
Say = Callable[[str], None]


def _auc(score: np.ndarray, label: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    y = np.asarray(label, float) >= 0.5
    return float(roc_auc_score(y, score)) if 0 < y.sum() < len(y) else float("nan")


def _figures(j: np.ndarray, judged: pd.DataFrame) -> dict:
    systems = judged["participant_name"].to_numpy()
    human = judged["J"].to_numpy(float)
    names = sorted(set(systems))
    by_system = {s: _auc(j[systems == s], human[systems == s]) for s in names}
    means = [(float(np.mean(j[systems == s])), float(np.mean(human[systems == s]))) for s in names]
    rho = spearman(np.array([m[0] for m in means]), np.array([m[1] for m in means])) if len(names) >= 3 else float("nan")
    return {"auc": _auc(j, human), "auc_by_system": by_system, "worst_system_auc": min(by_system.values()),
            "system_spearman": rho, "system_means": {s: m[0] for s, m in zip(names, means)}}


def leave_one_system_out(judged: pd.DataFrame, folder: Path | None = None) -> tuple[dict, dict]:
    """For every judged system: the fit on the others scores its rows. Returns the
    evaluation (figures of the fit and of the corpus-only recipe on the same rows) and
    the fold models (system -> axis models)."""
    models = load_models(folder)
    preset = EmbeddedPreset(folder=models.folder)
    inputs, outputs = judged["toxic_sentence"].tolist(), judged["neutral_sentence"].tolist()
    refs = [[r] if isinstance(r, str) and r.strip() else [] for r in judged["neutral_sentence_reference"]]
    axes = preset.axes(inputs, outputs, refs)
    frame = features(inputs, outputs, axes, models)
    labels = judged[LABELS].reset_index(drop=True)
    systems = judged["participant_name"].to_numpy()
    fitted_j = np.full(len(judged), np.nan)
    folds = {}
    for name in sorted(set(systems)):
        held = systems == name
        folds[name] = fit_axes(frame[~held], labels[~held])
        sta, sim, fl = predict_axes(folds[name], frame[held])
        fitted_j[held] = sta * sim * fl
    recipe_j = axes["sta"] * axes["sim"] * axes["fl"]
    evaluation = {"n_systems": len(folds), "n_pairs": len(judged), "recipe": _figures(recipe_j, judged),
                  "fitted": _figures(fitted_j, judged)}
    return evaluation, folds


def decide(evaluation: dict) -> tuple[bool, str]:
    """Whether the fit scores in place of the recipe, and why."""
    if evaluation["n_systems"] < 3:
        return False, (f"judgements of {evaluation['n_systems']} system(s): leaving one out needs at least 3, "
                       "so how the fit does on a new system cannot be measured")
    fit, rec = evaluation["fitted"], evaluation["recipe"]
    worse = [name for name, key in (("pooled ROC-AUC", "auc"), ("worst held-out system's ROC-AUC", "worst_system_auc"),
                                    ("system-level Spearman", "system_spearman")) if fit[key] < rec[key] - 1e-12]
    if worse:
        return False, ("on systems it never saw, the fit agreed less with people than the corpus-only recipe "
                       f"({', '.join(worse)}): the recipe scores")
    return True, "on systems it never saw, the fit agreed with people at least as well as the recipe"


def fit_from_judgements(judged: pd.DataFrame, source: str, folder: Path | None = None,
                        say: Say | None = None) -> FittedModel:
    """Fit on every judged pair, measure by leaving each system out, decide, and save
    ``fitted.json`` beside the embedded models."""
    say = say or (lambda msg: None)
    models = load_models(folder)
    say(f"fitted: leaving each of {judged['participant_name'].nunique()} systems out ({len(judged):,} judged pairs)")
    evaluation, folds = leave_one_system_out(judged, models.folder)
    preset = EmbeddedPreset(folder=models.folder)
    inputs, outputs = judged["toxic_sentence"].tolist(), judged["neutral_sentence"].tolist()
    refs = [[r] if isinstance(r, str) and r.strip() else [] for r in judged["neutral_sentence_reference"]]
    frame = features(inputs, outputs, preset.axes(inputs, outputs, refs), models)
    used, reason = decide(evaluation)
    model = FittedModel(axes=fit_axes(frame, judged[LABELS].reset_index(drop=True)), digest=judgements_digest(judged),
                        source=source, n_pairs=len(judged), systems=sorted(judged["participant_name"].unique()),
                        evaluation=evaluation, used=used, reason=reason, folds=folds)
    model.save(models.folder)
    for who in ("recipe", "fitted"):
        e = evaluation[who]
        say(f"  {who:<7} ROC-AUC vs human J {e['auc']:.3f} (worst held-out system {e['worst_system_auc']:.3f}), "
            f"system-level Spearman {e['system_spearman']:.2f}")
    say(f"fitted: {'used' if used else 'not used'}: {reason}")
    return model
