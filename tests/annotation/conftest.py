"""Fixtures of the annotation tests: the store on SQLite and, when configured, PostgreSQL."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import create_engine, text

from detox_core.annotation.store import AnnotationStore


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """The same tests on SQLite and, when ``DETOX_TEST_POSTGRES_URL`` names a database
    the tests may empty (``.ci/run`` starts one), on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ann.sqlite'}"
    url = os.environ.get("DETOX_TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("CI") and os.environ.get("DETOX_REQUIRE_POSTGRES"):
            pytest.fail("DETOX_TEST_POSTGRES_URL is not set")
        pytest.skip("no PostgreSQL test database (set DETOX_TEST_POSTGRES_URL)")
    engine = create_engine(url)
    with engine.begin() as conn:  # start from an empty schema
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return url


@pytest.fixture()
def store(db_url) -> AnnotationStore:
    s = AnnotationStore(db_url)
    yield s
    s.engine.dispose()
