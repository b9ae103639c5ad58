"""Files made from hub datasets: a local copy laid out like the hub repository (in a mirror
or $DETOX_HUB_DIR) is read the same way a download would be; without one and without the
hub, the report says what is missing."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from detox_core.data.fetch import DataFile, count_multilingual, fetch_files
from detox_core.data.hub_datasets import HubSource, read_splits
from detox_core.data.multilingual import load_multilingual_inputs

REPO = "textdetox/multilingual_paradetox"
SPEC = DataFile("dev_references.tsv", 3, count_multilingual,
                hub=HubSource(REPO, ("toxic_sentence", "neutral_sentence"), ("en", "ar")))


def hub_copy(root: Path) -> Path:
    """A folder laid out like the hub dataset: data/<lang>-00000-of-00001[-hash].parquet."""
    data = root / "textdetox__multilingual_paradetox" / "data"
    data.mkdir(parents=True)
    pd.DataFrame({"toxic_sentence": ["you idiot", 'a "quoted"\tidiot'], "neutral_sentence": ["you are wrong", "a person"]}
                 ).to_parquet(data / "en-00000-of-00001.parquet")
    pd.DataFrame({"toxic_sentence": ["أنت غبي"], "neutral_sentence": ["أنت مخطئ"]}).to_parquet(
        data / "ar-00000-of-00001-2338057ce0eeaf0d.parquet")
    pd.DataFrame({"toxic_sentence": ["du Idiot"], "neutral_sentence": ["du irrst"]}).to_parquet(
        data / "de-00000-of-00001.parquet")
    return root


def test_a_local_copy_in_a_mirror_makes_the_file(tmp_path):
    mirror = hub_copy(tmp_path / "mirror")
    report = fetch_files((SPEC,), tmp_path / "data", [mirror], download=False)
    assert report.ok and report.results[0].status == "hub" and report.results[0].rows == 3
    frame = load_multilingual_inputs(tmp_path / "data" / "dev_references.tsv")
    assert frame["lang"].tolist() == ["en", "en", "ar"]  # only the splits asked for
    assert frame["neutral_comment1"].tolist() == ["you are wrong", "a person", "أنت مخطئ"]
    assert frame["toxic_comment"].iloc[1] == 'a "quoted"\tidiot'  # quoting survives the round trip
    assert set(read_splits(mirror / "textdetox__multilingual_paradetox")) == {"ar", "de", "en"}


def test_the_hub_dir_setting_is_a_place_to_look_too(tmp_path, monkeypatch):
    monkeypatch.setenv("DETOX_HUB_DIR", str(hub_copy(tmp_path / "hubcopies")))
    report = fetch_files((SPEC,), tmp_path / "data", [], download=False)
    assert report.ok and report.results[0].detail == REPO


def test_without_a_copy_or_the_hub_the_report_says_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.delenv("DETOX_HUB_DIR", raising=False)
    report = fetch_files((SPEC,), tmp_path / "data", [], download=False)
    assert not report.ok and "downloads are off" in report.results[0].detail
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    report = fetch_files((SPEC,), tmp_path / "data", [], download=True)
    detail = report.results[0].detail
    assert report.results[0].status == "missing"
    assert "the Hugging Face hub cannot be reached (no network)" in detail
    assert "textdetox__multilingual_paradetox/data/*.parquet" in detail
    assert not (tmp_path / "data" / "dev_references.tsv").exists()
