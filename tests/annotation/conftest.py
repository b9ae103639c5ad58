"""Fixtures of the annotation tests: the store on SQLite and, when configured, PostgreSQL."""

from __future__ import annotations

import pytest

from detox_core.annotation.store import AnnotationStore


@pytest.fixture()
def db_url(sql_url) -> str:
    """The same tests on SQLite and, when configured, PostgreSQL (``sql_url`` of tests/conftest.py)."""
    return sql_url


@pytest.fixture()
def store(db_url) -> AnnotationStore:
    s = AnnotationStore(db_url)
    yield s
    s.engine.dispose()
