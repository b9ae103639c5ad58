"""Fit the embedded preset on human judgements and measure it on systems the fit never saw
(the protocol of :mod:`detox_core.embedded.fitted`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core.embedded.fitted import FittedModel, features, fit_axes, judgements_digest, pair_hash, predict_axes
from detox_core.embedded.loader import load_models
from detox_core.metrics.embedded import EmbeddedPreset
from detox_core.stats.agreement import roc_auc

LABELS = ["non-toxicity", "content", "fluency", "J"]
Say = Callable[[str], None]


#: Systems whose mean human J differ by less than this are a tie: no order to get right.
TIE = 0.01


def _figures(j: np.ndarray, judged: pd.DataFrame) -> dict:
    systems = judged["participant_name"].to_numpy()
    human = judged["J"].to_numpy(float)
    names = sorted(set(systems))
    by_system = {s: roc_auc(j[systems == s], human[systems == s]) for s in names}
    finite = [v for v in by_system.values() if np.isfinite(v)]
    return {"auc": roc_auc(j, human), "auc_by_system": by_system,
            "worst_system_auc": min(finite) if len(finite) == len(names) else float("nan"),
            "system_means": {s: float(np.mean(j[systems == s])) for s in names}}


def _axes_and_features(judged: pd.DataFrame, folder: Path | None):
    models = load_models(folder)
    preset = EmbeddedPreset(folder=models.folder)
    inputs, outputs = judged["toxic_sentence"].tolist(), judged["neutral_sentence"].tolist()
    refs = [[r] if isinstance(r, str) and r.strip() else [] for r in judged["neutral_sentence_reference"]]
    axes = preset.axes(inputs, outputs, refs)
    return axes, features(inputs, outputs, axes, models)


def leave_one_system_out(judged: pd.DataFrame, folder: Path | None = None) -> tuple[dict, dict]:
    """Measure the fit on systems it never saw, beside the corpus-only recipe on the same rows.

    Sentence level: every judged system's rows scored by the fit on the other systems.
    System level, leaving two systems out: for every pair of judged systems that people
    do not rate as tied, the fit on the other systems scores both, and the pair counts as
    right when it orders them as people do (one model per comparison: numbers of
    different fits are never ranked against each other). Returns the evaluation and the
    folds (held-out system -> axis models); no folds with fewer than 3 systems.
    """
    judged = judged.reset_index(drop=True)
    systems = judged["participant_name"].to_numpy()
    names = sorted(set(systems))
    evaluation: dict = {"n_systems": len(names), "n_pairs": len(judged)}
    if len(names) < 3:
        return evaluation, {}
    axes, frame = _axes_and_features(judged, folder)
    labels = judged[LABELS]
    fitted_j = np.full(len(judged), np.nan)
    folds = {}
    for name in names:
        held = systems == name
        folds[name] = fit_axes(frame[~held], labels[~held])
        fitted_j[held] = np.prod(predict_axes(folds[name], frame[held]), axis=0)
    recipe_j = axes["sta"] * axes["sim"] * axes["fl"]
    evaluation["recipe"], evaluation["fitted"] = _figures(recipe_j, judged), _figures(fitted_j, judged)
    human = {n: float(labels["J"][systems == n].mean()) for n in names}
    right = {"recipe": [], "fitted": []}
    for a, b in combinations(names, 2):
        if abs(human[a] - human[b]) < TIE:
            continue
        rest = (systems != a) & (systems != b)
        pair_model = fit_axes(frame[rest], labels[rest])
        mean = {n: float(np.mean(np.prod(predict_axes(pair_model, frame[systems == n]), axis=0))) for n in (a, b)}
        people = human[a] > human[b]
        right["fitted"].append((mean[a] > mean[b]) == people)
        right["recipe"].append((recipe_j[systems == a].mean() > recipe_j[systems == b].mean()) == people)
    for who, hits in right.items():
        evaluation[who]["pair_accuracy"] = float(np.mean(hits)) if hits else float("nan")
        evaluation[who]["system_pairs"] = len(hits)
    return evaluation, folds


CRITERIA = (("pooled ROC-AUC", "auc"), ("worst held-out system's ROC-AUC", "worst_system_auc"),
            ("system pairs ordered as people do (two systems left out)", "pair_accuracy"))


def decide(evaluation: dict) -> tuple[bool, str]:
    """Whether the fit scores in place of the recipe, and why."""
    if evaluation["n_systems"] < 3:
        return False, (f"judgements of {evaluation['n_systems']} system(s): leaving systems out needs at least 3, "
                       "so how the fit does on a new system cannot be measured")
    fit, rec = evaluation["fitted"], evaluation["recipe"]
    unknown = [name for name, key in CRITERIA if not (np.isfinite(fit[key]) and np.isfinite(rec[key]))]
    if unknown:
        return False, f"{', '.join(unknown)} cannot be measured on these judgements"
    worse = [name for name, key in CRITERIA if fit[key] < rec[key] - 1e-12]
    if worse:
        return False, ("on systems it never saw, the fit agreed less with people than the corpus-only recipe "
                       f"({', '.join(worse)})")
    return True, "on systems it never saw, the fit agreed with people at least as well as the recipe"


def fit_from_judgements(judged: pd.DataFrame, source: str, folder: Path | None = None,
                        say: Say | None = None) -> FittedModel:
    """Fit on every judged pair, measure by leaving each system out, decide, and save
    ``fitted.json`` beside the embedded models."""
    say = say or (lambda msg: None)
    models = load_models(folder)
    say(f"fitted: leaving each of {judged['participant_name'].nunique()} systems out ({len(judged):,} judged pairs)")
    judged = judged.reset_index(drop=True)
    evaluation, folds = leave_one_system_out(judged, models.folder)
    _, frame = _axes_and_features(judged, models.folder)
    used, reason = decide(evaluation)
    pairs = {n: sorted({pair_hash(i, o) for i, o in zip(g["toxic_sentence"], g["neutral_sentence"])})
             for n, g in judged.groupby("participant_name")}
    model = FittedModel(axes=fit_axes(frame, judged[LABELS]), digest=judgements_digest(judged),
                        source=source, n_pairs=len(judged), systems=sorted(pairs), evaluation=evaluation, used=used,
                        reason=reason, folds=folds, pairs=pairs)
    model.save(models.folder)
    for who in ("recipe", "fitted") if "recipe" in evaluation else ():
        e = evaluation[who]
        say(f"  {who:<7} ROC-AUC vs human J {e['auc']:.3f} (worst held-out system {e['worst_system_auc']:.3f}), "
            f"system pairs ordered as people do {e['pair_accuracy']:.2f} of {e['system_pairs']}")
    say(f"fitted: {'used' if used else 'not used, the recipe scores'}: {reason}")
    return model
