"""Whether a preset's models can be had here, found in seconds without loading any."""

from __future__ import annotations

import pytest

from detox_core.errors import ModelUnavailableError
from detox_core.metrics.registry import missing_models
from detox_core.models import ModelPool
from detox_core.models import pool as pool_module


@pytest.fixture
def offline(tmp_path, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("DETOX_MODEL_DIR", raising=False)
    empty = tmp_path / "hf-cache"
    empty.mkdir()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(empty))

    def no_load(self, model_id, *args, **kwargs):
        raise AssertionError(f"tried to load {model_id}")

    monkeypatch.setattr(pool_module.ModelPool, "_load", no_load)
    return empty


def test_models_that_are_nowhere_are_named_in_words_in_seconds(offline):
    pool = ModelPool(device="cpu")
    missing = missing_models("textdetox2025", pool)  # no load tried (the fixture fails one)
    assert ("toxicity classifier", "textdetox/xlmr-large-toxicity-classifier-v2") in missing
    assert ("toxicity classifier's tokenizer files", "cardiffnlp/twitter-xlm-roberta-large-2022") in missing
    assert {what for what, _ in missing} >= {"meaning model", "fluency model"}
    assert missing_models("embedded", pool) == []  # no hub model at all


def test_a_folder_or_the_hub_cache_makes_a_model_available(offline, tiny_models, tmp_path):
    pool = ModelPool(device="cpu")
    pool.map_model("textdetox/xlmr-large-toxicity-classifier", str(tiny_models["sta"]))
    snapshot = offline / "models--sentence-transformers--LaBSE" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}", encoding="utf-8")
    assert pool.locate("textdetox/xlmr-large-toxicity-classifier") == "folder"
    assert pool.locate("sentence-transformers/LaBSE") == "cache"
    assert missing_models("textdetox2024", pool) == []
    # A mapped folder that has gone is missing, whatever the cache holds.
    pool.map_model("textdetox/xlmr-large-toxicity-classifier", str(tmp_path / "gone"))
    assert missing_models("textdetox2024", pool) == [("toxicity classifier", "textdetox/xlmr-large-toxicity-classifier")]


def test_offline_a_tokenizer_from_another_hub_model_is_read_from_the_cache_only(tiny_models, monkeypatch):
    """Reported: a minute of hub retries before failing. Offline, the companion tokenizer
    (the 2025 toxicity classifier's) is looked up in the local cache only, so the load
    fails at once."""
    import transformers

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    asked: list[bool] = []
    real = transformers.AutoTokenizer.from_pretrained

    def spy(source, *args, local_files_only=False, **kwargs):
        asked.append(local_files_only)
        return real(source, *args, local_files_only=local_files_only, **kwargs)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", spy)
    pool = ModelPool(device="cpu")
    pool.map_model("toy/classifier", str(tiny_models["sta"]))
    with pytest.raises(ModelUnavailableError):
        pool.get("toy/classifier", "classifier", "sta", tokenizer="nobody/not-a-cached-tokenizer")
    assert asked == [True]  # looked up in the local cache only: no download tried
