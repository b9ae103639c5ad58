"""Stored submissions: round trip, recognition of the same file, atomic writes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from detox_core.metrics.base import Signature, make_score_frame
from detox_core.submissions.store import file_sha256, Store


def frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    f = make_score_frame(rng.random(n), rng.random(n), rng.random(n), np.r_[rng.random(n - 1), np.nan],
                         Signature(preset="embedded", preset_version="1"))
    return f


@pytest.fixture
def store(tmp_path):
    return Store(f"sqlite:///{tmp_path / 'db.sqlite'}")


def add(store, content=b"a\nb\nc\n", **kw):
    args = dict(name="sys.txt", sha256=file_sha256(content), dataset="russe2022", split="test", preset="embedded",
                calibrated=True, source="upload", inputs=["x", "y", "z"], outputs=["a", "b", "c"], scores=frame(3))
    args.update(kw)
    return store.add(**args)


def test_round_trip_keeps_every_score_and_signature(store):
    f = frame(3)
    meta = add(store, scores=f)
    back = store.scores(meta.id)
    assert list(back["output"]) == ["a", "b", "c"] and list(back["input"]) == ["x", "y", "z"]
    assert np.allclose(back["j"], f["j"]) and np.isnan(back["chrf"].iloc[2])
    assert store.get(meta.id).signature["preset"] == "embedded"
    listed = store.list(dataset="russe2022")
    assert listed.loc[0, "j"] == pytest.approx(f["j"].mean())


def test_same_file_is_recognised_not_stored_twice(store):
    first = add(store)
    assert store.find(first.sha256, "russe2022", "test", "embedded", True) == first
    again = add(store)
    assert again.id == first.id and len(store.list()) == 1
    # Another preset or calibration is another entry.
    other = add(store, preset="russe2022")
    assert other.id != first.id and len(store.list()) == 2


def test_a_failed_write_stores_nothing(store):
    with pytest.raises(ValueError):
        add(store, outputs=["a", "b"])
    assert store.list().empty


def test_reopen_sees_stored_rows(tmp_path):
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    meta = add(Store(url))
    assert Store(url).get(meta.id).name == "sys.txt"


def test_remove(store):
    meta = add(store)
    store.remove(meta.id)
    assert store.get(meta.id) is None and store.scores(meta.id).empty
