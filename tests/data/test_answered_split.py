"""Which split a CodaLab file answers, and codes of another split named as such (real mirror files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from detox_core.data import PROJECT_ROOT
from detox_core.data.multilingual import answered_splits, load_multilingual_submission
from detox_core.errors import DetoxInputError
from detox_core.submissions.service import split_rows


@pytest.fixture(scope="module")
def edition2025():
    root = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data")) / "textdetox2025"
    if not (root / "outputs" / "duplicate_dev.tsv").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"TextDetox 2025 not fetched into {root}")
        pytest.skip("TextDetox 2025 not fetched")
    from detox_core import editions

    return root / "outputs" / "duplicate_dev.tsv", editions.get_edition("textdetox2025").load(["dev", "test"])


def test_the_shipped_2025_sample_answers_the_dev_split(edition2025):
    path, prepared = edition2025
    counts = answered_splits(path, prepared)
    assert counts["dev"] == len(split_rows(prepared, "dev")) == 6_000  # every dev input answered
    assert counts["test"] <= 10  # a few texts occur in both splits


def test_against_the_test_split_the_new_languages_are_named_as_the_task_s_not_unknown(edition2025):
    path, prepared = edition2025
    test = split_rows(prepared, "test")
    with pytest.raises(DetoxInputError) as err:
        load_multilingual_submission(path, test, name="duplicate_dev.tsv")
    message = str(err.value)
    for code in ("fr", "he", "hin", "it", "ja", "tt"):
        assert code in message
    assert "are languages of the shared task, but not of this split" in message and "French" in message
    assert "unknown language" not in message
    # Thousands of lines in a few words: runs of lines as ranges.
    assert "line(s) 2-1139, 1141-3591, 3594-5403" in message and len(message) < 1_000


def test_codes_of_another_split_are_named_with_the_split_that_has_them(edition2025):
    from detox_core.submissions.service import languages_elsewhere

    path, prepared = edition2025
    test = split_rows(prepared, "test")
    with pytest.raises(DetoxInputError) as err:
        load_multilingual_submission(path, test, name="duplicate_dev.tsv",
                                     elsewhere=languages_elsewhere("textdetox2025", "test", prepared))
    message = str(err.value)
    assert "fr, he, hin, it, ja, tt (French, Hebrew" in message
    assert "are in the dev split of this corpus, not in test" in message
    assert "unknown language" not in message and "another split or edition has them" not in message


def test_2025_codes_against_the_2024_corpus_are_named_as_2025_languages(edition2025):
    from detox_core import editions
    from detox_core.submissions.service import languages_elsewhere

    path, _ = edition2025
    root = path.parent.parent.parent / "textdetox2024"
    if not (root / "dev_inputs.tsv").is_file():
        pytest.skip("TextDetox 2024 not fetched")
    prepared = editions.get_edition("textdetox2024").load(["dev", "test"])
    dev = split_rows(prepared, "dev")
    with pytest.raises(DetoxInputError) as err:
        load_multilingual_submission(path, dev, name="duplicate_dev.tsv",
                                     elsewhere=languages_elsewhere("textdetox2024", "dev", prepared))
    message = str(err.value)
    assert "fr, he, hin, it, ja, tt (French" in message
    assert "are in TextDetox 2025 (15 languages), not in the picked TextDetox 2024 (9 languages)" in message
