"""Fixtures of the page tests."""

from __future__ import annotations

import pytest

from detox_core.llm.settings import set_server_settings


@pytest.fixture
def no_endpoint(monkeypatch):
    """No LLM endpoint: neither in the environment nor in the server's settings."""
    for var in ("OPENAI_BASE_URL", "DETOX_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    set_server_settings()
    yield
    set_server_settings()


@pytest.fixture
def no_shipped_agreement(monkeypatch):
    """The pages on the tiny data folder (no human judgements) without the embedded preset's
    shipped agreement and its per-system table, for tests that read the pages' other tables by
    position (tests/app/test_agreement_note.py states the shipped figures)."""
    from detox_core.analysis import preset_agreement

    monkeypatch.setattr(preset_agreement, "shipped_figures", lambda: {})
