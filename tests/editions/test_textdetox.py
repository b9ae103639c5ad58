"""The TextDetox 2024 and 2025 entries: their files from the offline mirror (references
from a local copy of the hub dataset), their splits and sample submissions."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from detox_core.config import SHARED_MIRRORS
from detox_core.data.judge_labels import load_judges, load_pairs
from detox_core.data.leaderboards import load_language_leaderboard
from detox_core.data.multilingual import load_multilingual_inputs, load_multilingual_submission
from detox_core.editions.textdetox import LANGUAGES_2024, NEW_IN_2025, REWRITES, STS, TEXTDETOX2024, TEXTDETOX2025

MIRROR = SHARED_MIRRORS / "textdetox"
pytestmark = pytest.mark.skipif(not MIRROR.is_dir(), reason="no offline mirror of the TextDetox files")


def hub_copy(root, dev):
    """A local copy of textdetox/multilingual_paradetox: each dev input with a reference."""
    data = root / "textdetox__multilingual_paradetox" / "data"
    data.mkdir(parents=True)
    for lang, rows in dev.groupby("lang", sort=False):
        pd.DataFrame({"toxic_sentence": rows["toxic_comment"], "neutral_sentence": "ref: " + rows["toxic_comment"]}
                     ).to_parquet(data / f"{lang}-00000-of-00001.parquet")
    return root


def test_2024_fetches_from_the_mirror_and_says_the_references_are_on_the_hub(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("DETOX_HUB_DIR", raising=False)
    target = tmp_path / "textdetox2024"
    # The mirror without its copies of the hub datasets (and without ParaDetox beside it)
    mirror = tmp_path / "mirror" / "textdetox"
    shutil.copytree(MIRROR, mirror, ignore=shutil.ignore_patterns("textdetox__*"))
    report = TEXTDETOX2024.fetch(target, [mirror])
    # The references are optional: the edition is ready without them, and the report says why they are absent.
    assert report.ok and not report.missing
    skipped = {r.rel: r.detail for r in report.skipped}
    beside = ["training/paradetox.tsv", *(f.rel for f in STS), *(f.rel for f in REWRITES)]  # mirrored beside it
    assert list(skipped) == ["dev_references.tsv", "lexicon/hub_toxic_lexicon.tsv", *beside, "toxic_spans.tsv"]
    hub = {k: v for k, v in skipped.items() if k not in beside}
    assert all("cannot be reached" in why for why in hub.values())  # from the hub, offline here
    # 15 fetched, 7 made from the sample, the hub lexicon, ParaDetox, 9 STS files, 2 of rewrites and the
    # people-marked spans
    assert len(report.results) == len(TEXTDETOX2024.files) == 36
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    dev = TEXTDETOX2024.load(["dev"])
    assert dev["lang"].value_counts().to_dict() == dict.fromkeys(LANGUAGES_2024, 400)
    assert (dev["n_refs"] == 0).all()  # without the hub's copy: inputs only, said by n_refs, never a made-up reference
    # With a local copy of the hub dataset, the development split carries its references.
    again = TEXTDETOX2024.fetch(target, [mirror, hub_copy(tmp_path / "hubcopy", dev)])
    assert again.ok
    dev = TEXTDETOX2024.load(["dev"])
    assert (dev["n_refs"] == 1).all() and dev["neutral_comment1"].str.startswith("ref: ").all()
    test = TEXTDETOX2024.load(["test"])
    sample = load_multilingual_submission(TEXTDETOX2024.output_files("test")[0], test)
    assert not sample.partial and len(sample.frame) == 5400
    assert [p.name for p in TEXTDETOX2024.output_files("dev")] == ["duplicate_dev.tsv"]
    board = load_language_leaderboard(TEXTDETOX2024.leaderboard_path())
    assert board.attrs["languages"] == ["en", "es", "de", "zh", "ar", "hi", "uk", "ru", "am"]
    judges = load_judges(target / "meta_eval" / "llm_judgements", load_pairs(target / "meta_eval" / "pairs.tsv"))
    assert len(judges) == 5


def test_2025_has_fifteen_languages_and_its_llm_judge_table(tmp_path, monkeypatch):
    report = TEXTDETOX2025.fetch(tmp_path / "textdetox2025", [MIRROR], download=False)
    assert report.ok, [(r.rel, r.detail) for r in report.missing]
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    dev = TEXTDETOX2025.load(["dev"])
    assert set(dev["lang"]) == set(LANGUAGES_2024) | set(NEW_IN_2025) and len(dev) == 6000
    assert len(TEXTDETOX2025.load(["test"])) == 3600
    assert len(load_language_leaderboard(TEXTDETOX2025.leaderboard_path())) == 32


def test_without_the_mirrors_inputs_they_are_made_from_the_sample_submissions(tmp_path, monkeypatch):
    """The task published its 2024 inputs as sample submissions: from those alone (as a
    download would give them) the inputs are made byte for byte; the published tables and
    the meta-evaluation sample are optional, so the edition is ready without them."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("DETOX_HUB_DIR", raising=False)
    partial = tmp_path / "mirror" / "textdetox2024" / "outputs"
    partial.mkdir(parents=True)
    for name in ("duplicate_dev.tsv", "duplicate_test.tsv"):
        (partial / name).write_bytes((MIRROR / "textdetox2024" / "outputs" / name).read_bytes())
    report = TEXTDETOX2024.fetch(tmp_path / "target", [tmp_path / "mirror"], download=False)
    assert report.ok, [(r.rel, r.detail) for r in report.missing]
    status = {r.rel: r.status for r in report.results}
    assert status["dev_inputs.tsv"] == status["test_inputs.tsv"] == "derived"
    for name in ("dev_inputs.tsv", "test_inputs.tsv"):
        assert (tmp_path / "target" / name).read_bytes() == (MIRROR / "textdetox2024" / name).read_bytes()
    assert {r.rel for r in report.skipped} >= {"leaderboard_auto.csv", "meta_eval/pairs.tsv", "dev_references.tsv"}
    # Online, the sample submissions and the 2025 inputs come from the task's repository, pinned.
    training = {"training/paradetox.tsv", *(f.rel for f in (*STS, *REWRITES))}
    urls = [f.urls for f in (*TEXTDETOX2024.files, *TEXTDETOX2025.files) if f.urls and f.rel not in training]
    assert len(urls) == 5 and all(u[0].startswith("https://raw.githubusercontent.com/pan-webis-de/pan-code/")
                                  for u in urls)
    # what the heads learn from beside them comes from its own home, at a pinned commit
    for f in (*STS, *REWRITES):
        assert len(f.urls) == 1 and f.urls[0].startswith("https://raw.githubusercontent.com/")
        assert any(len(part) == 40 and all(c in "0123456789abcdef" for c in part) for part in f.urls[0].split("/"))


def test_a_hub_copy_with_a_language_short_of_rows_is_refused_and_named(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("DETOX_HUB_DIR", raising=False)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    target = tmp_path / "textdetox2024"
    mirror = tmp_path / "mirror" / "textdetox"  # the mirror without its copies of the hub datasets
    shutil.copytree(MIRROR, mirror, ignore=shutil.ignore_patterns("textdetox__*"))
    TEXTDETOX2024.fetch(target, [mirror])
    dev = TEXTDETOX2024.load(["dev"])
    short = dev.drop(index=dev.index[dev["lang"] == "ar"][0])  # one Arabic reference missing
    report = TEXTDETOX2024.fetch(target, [mirror, hub_copy(tmp_path / "hubcopy", short)])
    skipped = {r.rel: r.detail for r in report.skipped}
    assert "ar: 399 instead of 400" in skipped["dev_references.tsv"]
    assert not (target / "dev_references.tsv").exists()  # nothing half-right is kept


def test_the_references_hint_names_the_parallel_dataset_never_the_lexicon():
    """Both editions list the hub's toxic lexicon as an optional file: it holds no references."""
    from detox_core.editions.textdetox import TEXTDETOX2024, TEXTDETOX2025

    assert "textdetox/multilingual_paradetox " in TEXTDETOX2024.references_hint()
    for edition in (TEXTDETOX2024, TEXTDETOX2025):
        assert "multilingual_toxic_lexicon" not in edition.references_hint()
    assert "Upload a corpus TSV" in TEXTDETOX2025.references_hint()


def test_the_hub_references_keep_the_tasks_own_inputs_so_the_shipped_dev_baseline_scores(tmp_path, monkeypatch):
    """The hub's copy of the development set differs from the task's inputs in a few texts (a
    stray quote): the split's inputs are the task's, its references the hub's, and the shipped
    duplicate baseline of dev is accepted whole."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("DETOX_HUB_DIR", raising=False)
    if not (MIRROR / "textdetox__multilingual_paradetox").is_dir():
        pytest.skip("no copy of the hub's references in the mirror")
    target = tmp_path / "textdetox2024"
    assert TEXTDETOX2024.fetch(target, [MIRROR], download=False).ok
    hub = load_multilingual_inputs(target / "dev_references.tsv", split="dev")
    task = load_multilingual_inputs(target / "dev_inputs.tsv", split="dev")
    def by_language(frame):
        return {lang: rows["toxic_comment"].tolist() for lang, rows in frame.groupby("lang")}

    differ = sum(a != b for lang, texts in by_language(task).items() for a, b in zip(texts, by_language(hub)[lang]))
    assert differ == 26  # the two copies differ in a few texts
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    dev = TEXTDETOX2024.load(["dev"])
    assert by_language(dev) == by_language(task) and (dev["n_refs"] == 1).all()
    sample = load_multilingual_submission(TEXTDETOX2024.output_files("dev")[0], dev)
    assert not sample.partial and len(sample.frame) == 3600
