"""Learning from people: the fit, leaving each system out, and when it scores."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from detox_core.analysis import meta_eval
from detox_core.analysis import embedded_fit as learn
from detox_core.embedded import fitted
from detox_core.embedded.recipe import train_embedded
from detox_core.metrics.embedded import EmbeddedPreset
from tests.conftest import write_tiny_dataset

PAIRS = [
    ("ты дебил, иди отсюда", "ты неправ, иди отсюда"), ("этот мудак опять врёт", "этот человек опять врёт"),
    ("какая хрень эта ваша новость", "какая ерунда эта ваша новость"), ("Ёлки, ну и погода блять", "Ёлки, ну и погода"),
    ("заткнись уже, идиот", "помолчи уже"), ("сука как же надоело", "как же надоело"),
    ("тупой как пробка", "не очень умный"), ("вот хрень", "вот ерунда"),
]


def judgements(seed: int = 0) -> pd.DataFrame:
    """Three systems' outputs of the same inputs, with crowd-like labels."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, damage in (("good", 0), ("copy", 1), ("broken", 2)):
        for src, out in PAIRS:
            text = out if damage == 0 else src if damage == 1 else " ".join(out.split()[::-1])
            labels = {"non-toxicity": float(damage != 1 or rng.random() < 0.2), "content": float(rng.random() < 0.8),
                      "fluency": float(damage != 2 or rng.random() < 0.3)}
            labels["J"] = labels["non-toxicity"] * labels["content"] * labels["fluency"]
            rows.append({"toxic_sentence": src, "neutral_sentence": text, "participant_name": system,
                         "neutral_sentence_reference": out, **labels})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("fit")
    write_tiny_dataset(root)
    return train_embedded(root)


def test_a_held_out_system_is_scored_by_a_fit_that_never_saw_its_labels(folder):
    judged = judgements()
    evaluation, folds = learn.leave_one_system_out(judged, folder)
    assert set(folds) == {"good", "copy", "broken"} and evaluation["n_systems"] == 3
    # Change every label of "broken": its fold (fitted on the other two) is the same model.
    flipped = judged.copy()
    rows = flipped["participant_name"] == "broken"
    for col in ("non-toxicity", "content", "fluency", "J"):
        flipped.loc[rows, col] = 1.0 - flipped.loc[rows, col]
    _, again = learn.leave_one_system_out(flipped, folder)
    assert again["broken"] == folds["broken"]
    assert again["good"] != folds["good"]  # the other folds did learn from those labels
    for who in ("recipe", "fitted"):
        assert set(evaluation[who]["auc_by_system"]) == {"good", "copy", "broken"}


def test_the_fit_scores_only_when_it_does_better_on_unseen_systems():
    base = {"auc": 0.70, "worst_system_auc": 0.68, "pair_accuracy": 1.0}
    better = {"auc": 0.72, "worst_system_auc": 0.69, "pair_accuracy": 1.0}
    assert learn.decide({"n_systems": 3, "recipe": base, "fitted": better})[0]
    used, why = learn.decide({"n_systems": 3, "recipe": base, "fitted": {**better, "pair_accuracy": 0.5}})
    assert not used and "system pairs ordered as people do" in why
    used, why = learn.decide({"n_systems": 2, "recipe": base, "fitted": better})
    assert not used and "at least 3" in why
    # What cannot be measured is not "as good": a one-class held-out system, no untied pair.
    for key in ("worst_system_auc", "pair_accuracy"):
        used, why = learn.decide({"n_systems": 3, "recipe": base, "fitted": {**better, key: float("nan")}})
        assert not used and "cannot be measured" in why


def test_system_pairs_are_judged_by_a_fit_that_saw_neither(folder):
    evaluation, _ = learn.leave_one_system_out(judgements(), folder)
    # Three systems, none tied: three pairs, each by the fit on the third system alone.
    assert evaluation["fitted"]["system_pairs"] == evaluation["recipe"]["system_pairs"] == 3
    assert 0.0 <= evaluation["fitted"]["pair_accuracy"] <= 1.0


def test_one_system_is_not_enough_and_says_so(folder):
    judged = judgements()
    one = judged[judged["participant_name"] == "good"]
    model = learn.fit_from_judgements(one, "one.csv", folder)
    assert not model.used and "at least 3" in model.reason and model.folds == {}
    (folder / fitted.ARTIFACT).unlink()


def test_the_artifact_is_plain_json_and_named_in_the_signature(folder):
    judged = judgements()
    model = learn.fit_from_judgements(judged, "tiny.csv", folder)
    raw = json.loads((folder / fitted.ARTIFACT).read_text(encoding="utf-8"))
    assert raw["digest"] == fitted.judgements_digest(judged) and raw["source"] == "tiny.csv"
    assert set(raw["folds"]) == {"good", "copy", "broken"} and raw["reason"]
    sig = EmbeddedPreset(folder=folder).signature()
    assert sig.models["fitted"] == {"id": "embedded/fitted-on-judgements", "revision": model.digest,
                                    "version": fitted.FIT_VERSION, "used": model.used,
                                    "file_sha1": hashlib.sha1((folder / fitted.ARTIFACT).read_bytes()).hexdigest()}
    # Other labels (J too), another digest.
    for col in ("content", "J"):
        assert fitted.judgements_digest(judged.assign(**{col: 1.0 - judged[col]})) != model.digest
    # What each fit saw is kept as hashes of the pairs, never the texts.
    assert sum(len(v) for v in raw["pairs"].values()) == 24 and "ерунда" not in json.dumps(raw["pairs"])


def test_a_used_fit_replaces_the_axes_and_keeps_a_copy_fluent(folder, monkeypatch):
    judged = judgements()
    model = learn.fit_from_judgements(judged, "tiny.csv", folder)
    preset = EmbeddedPreset(folder=folder)
    inputs, outputs = [p[0] for p in PAIRS], [p[1] for p in PAIRS]
    model.used, model.reason = False, "test"
    model.save(folder)
    recipe_frame = preset.score(inputs, outputs)
    model.used = True
    model.save(folder)
    fitted_frame = preset.score(inputs, outputs)
    assert not np.allclose(fitted_frame["sta"], recipe_frame["sta"])
    expected = fitted.predict_axes(model.axes, fitted.features(inputs, outputs, preset.axes(inputs, outputs, [[]] * 8),
                                                               preset_models(folder)))
    assert np.allclose(fitted_frame["sta"], expected[0]) and np.allclose(fitted_frame["j"], np.prod(expected, axis=0))
    assert (preset.score(inputs, inputs)["fl"] == 1.0).all()  # people's question: less fluent than the input?
    # Against the judgements it learnt from, every pair is scored by a model that never saw it:
    # a judged system's pairs by its fold, a new pair by the full fit.
    judged_in, judged_out = judged["toxic_sentence"].tolist(), judged["neutral_sentence"].tolist()
    unseen = preset.score_unseen(judged_in, judged_out, [[]] * len(judged))
    feats = fitted.features(judged_in, judged_out, preset.axes(judged_in, judged_out, [[]] * len(judged)),
                            preset_models(folder))
    for system in ("good", "copy", "broken"):
        rows = (judged["participant_name"] == system).to_numpy()
        # A pair two systems share ("copy" and "good" may coincide) goes to the first fold that never saw it.
        own = [model.unseen_model(i, o) for i, o in zip(judged.loc[rows, "toxic_sentence"],
                                                       judged.loc[rows, "neutral_sentence"])]
        assert all(name != "full" for name in own)
        expected = np.prod(fitted.predict_axes(model.folds[system], feats[rows]), axis=0)
        mine = np.array([n == system for n in own])
        assert np.allclose(unseen["j"].to_numpy()[rows][mine], expected[mine])
    assert model.unseen_model("совсем новый вход", "совсем новый выход") == "full"
    # A used fit changes what the Human vs automatic page's kept scores are keyed by.
    monkeypatch.setattr(meta_eval, "find_artifacts", lambda: folder)
    assert meta_eval._scorer_identity("embedded", None, None)[-1] == fitted.fitted_model(folder).file_sha1 != ""
    # A damaged artifact: the recipe scores again.
    (folder / fitted.ARTIFACT).write_text("{not json", encoding="utf-8")
    assert np.allclose(preset.score(inputs, outputs)["sta"], recipe_frame["sta"])
    (folder / fitted.ARTIFACT).unlink()


def preset_models(folder):
    from detox_core.embedded.loader import load_models

    return load_models(folder)
