"""AppTest of the sidebar's model settings: local folders, the load check, embedded status."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from detox_core.data import PROJECT_ROOT
from detox_core.models import default_pool

APP = str(PROJECT_ROOT / "tests" / "app" / "model_settings_harness.py")
STA_ID = "s-nlp/russian_toxicity_classifier"


@pytest.fixture
def clean_pool(monkeypatch):
    pool = default_pool()
    saved = dict(pool.model_map)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no hub here: fail fast
    yield pool
    pool.set_model_map(saved)


def test_local_folder_is_used_and_checked(tiny_data, tiny_models, clean_pool):
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception
    at.sidebar.text_input(key=f"model_dir::{STA_ID}").input(str(tiny_models["sta"])).run()
    assert clean_pool.model_map[STA_ID] == str(tiny_models["sta"])
    at.sidebar.button(key="check_models").click().run()
    assert not at.exception
    ok = [s.value for s in at.sidebar.success]
    errors = [e.value for e in at.sidebar.error]
    assert any("RUSSE-2022 official STA: loaded from" in s and str(tiny_models["sta"]) in s for s in ok)
    # The models without a folder cannot be had offline: said clearly, per model.
    assert any("RUSSE-2022 official SIM" in e and "cannot be reached" in e for e in errors)


def test_a_path_that_is_not_a_folder_is_refused(tiny_data, clean_pool, tmp_path):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.text_input(key=f"model_dir::{STA_ID}").input(str(tmp_path / "missing")).run()
    assert any("is not a folder" in e.value for e in at.sidebar.error)
    assert STA_ID not in clean_pool.model_map


def test_app_shows_the_model_settings(tiny_data):
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert STA_ID in at.sidebar.text_input(key=f"model_dir::{STA_ID}").label
    assert at.sidebar.button(key="check_models").label == "Check that the official models load"


def test_embedded_status_names_the_shipped_heads_without_any_training(tiny_data):
    from detox_core.metrics.embedded.heads import load_heads, shipped_folder

    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    digest = load_heads(shipped_folder()).digest
    assert any(f"trained heads shipped with the package, `{digest}`" in c.value for c in at.sidebar.caption)
    assert not any("train-embedded" in w.value for w in at.sidebar.warning)
