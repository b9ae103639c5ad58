"""AppTest of the Submissions page with the shipped TextDetox 2025 sample (real files): the
page starts on the test split, the sample answers dev; the page says so and switches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from tests.app.helpers import run

PAGE = str(PROJECT_ROOT / "pages" / "submissions.py")


@pytest.fixture
def sample(tmp_path, monkeypatch) -> Path:
    root = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data"))
    path = root / "textdetox2025" / "outputs" / "duplicate_dev.tsv"
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"TextDetox 2025 not fetched into {root}")
        pytest.skip("TextDetox 2025 not fetched")
    monkeypatch.setenv("DETOX_DATA_DIR", str(root))
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'detox.sqlite'}")
    return path


def test_the_2025_sample_is_offered_the_dev_split_it_answers(sample, caplog):
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.query_params["dataset"] = "TextDetox 2025"
    run(at)
    assert at.selectbox(key="split").value == "test"
    at.file_uploader(key="sub_upload").upload(sample.name, sample.read_bytes(), "text/tab-separated-values")
    run(at)
    offer = " ".join(i.value for i in at.info)
    assert "This file answers the **dev** split: 6,000 of its rows are inputs of `dev`" in offer
    at.button(key="sub_use_answered_split").click()
    run(at)
    assert at.selectbox(key="split").value == "dev"
    assert not any("This file answers" in i.value for i in at.info)
    # The switch sets the picker's value the supported way: no warning (with a stack trace) in the log.
    assert not [r for r in caplog.records if "Session State API" in r.getMessage()], caplog.text[-2000:]


def test_the_uploader_takes_the_codalab_zip_and_reads_it(sample):
    """The docs say zips work as on CodaLab; the uploader used to offer .txt and .tsv only."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("submission.tsv", sample.read_bytes())
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.query_params["dataset"] = "TextDetox 2025"
    run(at)
    uploader = at.file_uploader(key="sub_upload")
    assert ".zip" in list(uploader.proto.type)
    uploader.upload("team.zip", buffer.getvalue(), "application/zip")
    run(at)
    offer = " ".join(i.value for i in at.info)
    assert "This file answers the **dev** split: 6,000 of its rows are inputs of `dev`" in offer


def test_a_whole_test_split_file_is_not_called_partial_for_languages_the_split_does_not_hold(sample):
    """TextDetox 2025's test split holds 9 of the 15 languages picked in the sidebar: a file
    answering all of it is complete, its mean is over those 9, and the page says which
    picked languages the split has no inputs in (it said "Partial: the file does not answer
    French, Hebrew, ..." before)."""
    import pandas as pd

    from detox_core import editions

    root = sample.parents[2]
    test = editions.load_dataset("textdetox2025", ("test",), root)
    assert test["lang"].nunique() < 15  # the premise: the test split holds fewer languages
    upload = pd.DataFrame({"toxic_sentence": test["toxic_comment"], "neutral_sentence": test["toxic_comment"],
                           "lang": test["lang"]}).to_csv(sep="\t", index=False).encode()
    at = AppTest.from_file(PAGE, default_timeout=600)
    at.query_params["dataset"] = "TextDetox 2025"
    run(at)
    assert at.selectbox(key="split").value == "test"
    at.file_uploader(key="sub_upload").upload("copy_test.tsv", upload, "text/tab-separated-values")
    run(at)
    next(b for b in at.button if b.label == "Score the upload").click()
    run(at)
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "Partial" not in warnings, warnings
    captions = " ".join(c.value for c in at.caption)
    n = test["lang"].nunique()
    assert f"has inputs in {n} of the 15 languages picked: none in" in captions and "French" in captions
    assert f"Mean J over the {n} languages" in captions or f"over the {n} languages" in captions
