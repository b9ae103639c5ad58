"""The embedded preset: training, artifacts, invariances and agreement with humans."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from detox_core import data
from detox_core.embedded import recipe
from detox_core.metrics.embedded import EmbeddedPreset
from tests.conftest import write_tiny_dataset


@pytest.fixture(scope="module")
def tiny_trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("emb")
    write_tiny_dataset(root)
    # The tiny dev split has no header index; train.tsv and dev.tsv and the 10k file exist.
    return root, recipe.train_embedded(root)


def test_training_writes_versioned_artifacts(tiny_trained):
    root, folder = tiny_trained
    assert folder.name == f"embedded-{recipe.recipe_hash(root / 'russe2022')}"
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    assert meta["recipe_version"] == recipe.RECIPE_VERSION and meta["training"]["neutral"] == 11 - 1  # test ref excluded
    assert {p.name for p in folder.iterdir()} >= {"sta.pkl", "taglm.json", "tags.json", "lexicon.json", "meta.json"}
    # The fluency noise comes from the training sentences with two human paraphrases (rows 0 and 2).
    assert meta["fl"]["pairs"] == 2 and meta["fl"]["noise"] > 0
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")]  # no temporary folder left
    # Training again with the same recipe and data reuses the folder.
    assert recipe.train_embedded(root) == folder


def test_hash_follows_the_training_data(tiny_trained, tmp_path):
    root, folder = tiny_trained
    write_tiny_dataset(tmp_path)
    assert recipe.recipe_hash(tmp_path / "russe2022") == recipe.recipe_hash(root / "russe2022")
    with open(tmp_path / "russe2022" / "train.tsv", "a", encoding="utf-8") as f:
        f.write("5\tещё одна строка\tещё одна\t\t\n")
    assert recipe.recipe_hash(tmp_path / "russe2022") != recipe.recipe_hash(root / "russe2022")


def test_missing_training_data_is_explained(tmp_path):
    with pytest.raises(recipe.EmbeddedMissingError, match="fetch-data"):
        recipe.recipe_hash(tmp_path)
    with pytest.raises(recipe.EmbeddedMissingError, match="train-embedded"):
        recipe.find_artifacts(tmp_path)


def test_scores_are_in_range_and_order_invariant(tiny_trained):
    root, folder = tiny_trained
    preset = EmbeddedPreset(folder=folder)
    inputs = ["ты дебил, иди отсюда", "этот мудак опять врёт", "сука как же надоело", "ну и погода"]
    outputs = ["ты неправ, иди отсюда", "этот человек опять врёт", "как же надоело", "ну и погода"]
    frame = preset.score(inputs, outputs, [["ты не прав"], [], ["надоело"], []])
    cols = ["sta", "sim", "fl", "j"]
    assert ((frame[cols] >= 0) & (frame[cols] <= 1)).all().all()
    assert np.allclose(frame["j"], frame["sta"] * frame["sim"] * frame["fl"])
    rev = preset.score(inputs[::-1], outputs[::-1], [[], ["надоело"], [], ["ты не прав"]])
    assert np.allclose(rev[cols].to_numpy()[::-1], frame[cols].to_numpy())
    assert frame.attrs["signature"]["preset"] == "embedded"
    # An output identical to its (clean) input, without references: every word kept, the same
    # text as the input -> SIM 1 and FL 1.
    assert frame["sim"].iloc[3] == pytest.approx(1.0) and frame["fl"].iloc[3] == 1.0


def test_an_unchanged_copy_gets_fl_one_and_a_broken_rewrite_less(tiny_trained):
    """FL is relative, like the official FL: the same measure on input and output."""
    _, folder = tiny_trained
    preset = EmbeddedPreset(folder=folder)
    inputs = ["ты дебил, иди отсюда", "Ёлки, ну и погода блять", "какая хрень эта ваша новость"]
    copies = preset.score(inputs, inputs)
    assert (copies["fl"] == 1.0).all()
    assert (copies["sim"] == 1.0).all()  # without references a copy keeps all the content, insults and all
    # Case, ё and spacing are not fluency either.
    assert (preset.score(inputs, ["ТЫ ДЕБИЛ,  иди отсюда", "елки, ну и погода блять", "какая хрень эта ваша новость "])
            ["fl"] == 1.0).all()


def test_punctuation_is_not_toxicity(tiny_trained):
    """STA reads the text without punctuation: a rewrite that drops the full stop and commas
    is not cleaner than one that keeps them."""
    _, folder = tiny_trained
    preset = EmbeddedPreset(folder=folder)
    frame = preset.score(["ты дебил", "ты дебил"], ["А что-то не так.", "а что то не так"])
    assert frame["sta"].iloc[0] == pytest.approx(frame["sta"].iloc[1])


def test_agreement_with_human_judgements(real_data, embedded_models):
    """Acceptance: sentence-level ROC-AUC vs the human labels (the recipe never saw them)."""
    human = data.load_human_judgements(real_data / "human_eval_test.csv")
    # The corpus-only recipe's axes (a fit on people, if one were in use, is measured elsewhere).
    frame = EmbeddedPreset().axes(human["toxic_sentence"].tolist(), human["neutral_sentence"].tolist(),
                                  [[r] for r in human["neutral_sentence_reference"]])
    frame["j"] = frame["sta"] * frame["sim"] * frame["fl"]
    auc = {
        "sta": roc_auc_score(human["non-toxicity"], frame["sta"]),
        "sim": roc_auc_score(human["content"], frame["sim"]),
        "fl": roc_auc_score(human["fluency"], frame["fl"]),
        "j": roc_auc_score(human["J"], frame["j"]),
    }
    # Measured: STA 0.756, SIM 0.757, FL 0.556, J 0.708.
    assert auc["sta"] >= 0.75 and auc["sim"] >= 0.74 and auc["fl"] >= 0.54 and auc["j"] >= 0.70, auc
    # The figures the explanations of a low J are worded by are the ones measured here.
    for axis, declared in EmbeddedPreset.axis_agreement.items():
        assert declared == pytest.approx(auc[axis], abs=0.001), (axis, auc[axis])
    systems = human["participant_name"].to_numpy()
    per_system = {s: roc_auc_score(human["J"][systems == s], frame["j"][systems == s]) for s in set(systems)}
    assert min(per_system.values()) >= 0.67, per_system
    # FL is relative: its mean per system is near the share of outputs people judged fluent.
    for s in set(systems):
        assert abs(frame["fl"][systems == s].mean() - human["fluency"][systems == s].mean()) <= 0.15, s


def test_a_folder_trained_with_joblib_still_loads(tiny_trained, tmp_path):
    import joblib
    import shutil

    _, folder = tiny_trained
    old = tmp_path / folder.name
    shutil.copytree(folder, old)
    pipeline = recipe._load_sta(old)
    (old / "sta.pkl").unlink()
    joblib.dump(pipeline, old / "sta.joblib", compress=3)
    texts = ["ты дебил", "спасибо за помощь"]
    fresh = recipe.EmbeddedModels.load(folder).p_neutral(texts)
    assert recipe.EmbeddedModels.load(old).p_neutral(texts) == pytest.approx(fresh)


def test_models_of_an_older_recipe_are_refused_with_what_to_run(tiny_trained, tmp_path):
    import shutil

    _, folder = tiny_trained
    old = tmp_path / folder.name
    shutil.copytree(folder, old)
    meta = json.loads((old / "meta.json").read_text(encoding="utf-8"))
    meta["recipe_version"] = "1"
    (old / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(recipe.EmbeddedMissingError, match="train-embedded"):
        recipe.EmbeddedModels.load(old)


def test_preload_loads_the_models_once_in_the_background(tiny_trained, monkeypatch):
    from detox_core.embedded import loader as preset
    from detox_core.metrics import warmup

    root, folder = tiny_trained
    monkeypatch.setenv("DETOX_DATA_DIR", str(root))
    monkeypatch.setattr(warmup, "_ONE_PRESET", {})
    monkeypatch.setattr(preset, "_LOADED", {})
    first = warmup.warm_preset("embedded", delay=0)
    assert warmup.warm_preset("embedded", delay=0) is first  # a second page's call starts nothing more
    state = first.wait(timeout=60)
    assert state.finished and state.item("embedded").status == "ready", state
    assert folder in preset._LOADED  # the first score finds the models loaded
    assert preset.load_models() is preset._LOADED[folder]
