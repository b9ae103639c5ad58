"""The database layer on its own: URLs, SQLite settings, additive upgrades, health, and
failures said in words for people."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import Column, Float, ForeignKey, Integer, MetaData, String, Table, inspect, text

from detox_core.db import default_url, describe_failure, guarded, health, make_engine, upgrade, writer
from detox_core.errors import DetoxInputError, StorageError


def test_default_url_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("DETOX_DB_URL", raising=False)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    assert default_url() == f"sqlite:///{tmp_path / 'detox.sqlite'}"
    monkeypatch.setenv("DETOX_DB_URL", "postgresql+psycopg://u:p@db/x")
    assert default_url() == "postgresql+psycopg://u:p@db/x"


def test_urls_the_app_cannot_use_are_refused_without_side_effects(tmp_path, monkeypatch):
    with pytest.raises(DetoxInputError, match="unsupported database URL 'mysql'"):
        make_engine("mysql://root@localhost/x")
    monkeypatch.chdir(tmp_path)
    engine = make_engine(f"sqlite:///file:{tmp_path / 'a.sqlite'}?mode=rwc&uri=true")
    assert engine.dialect.name == "sqlite"
    assert not (tmp_path / "file:").exists()  # an SQLite URI is not a folder to create
    nested = tmp_path / "deep" / "er" / "db.sqlite"
    make_engine(f"sqlite:///{nested}")
    assert nested.parent.is_dir()


def test_sqlite_runs_in_wal_mode_and_the_writer_locks_at_begin(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'w.sqlite'}")
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
    assert writer(engine).get_execution_options()["sqlite_begin"] == "IMMEDIATE"


def test_upgrades_are_additive_and_recorded(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'u.sqlite'}")
    v1 = MetaData()
    Table("things", v1, Column("id", Integer, primary_key=True), Column("name", String(20)))
    assert upgrade(engine, v1) == []  # a new database: created, nothing to record
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO things (name) VALUES ('kept')"))
    v2 = MetaData()
    Table("things", v2, Column("id", Integer, primary_key=True), Column("name", String(20)),
          Column("note", String(50), index=True))
    Table("others", v2, Column("id", Integer, primary_key=True))
    changes = upgrade(engine, v2)
    assert changes == ["create table others", "add column things.note", "create index ix_things_note"]
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name, note FROM things")).all() == [("kept", None)]
        assert conn.execute(text("SELECT count(*) FROM schema_history")).scalar() == 3
    assert upgrade(engine, v2) == []  # current: nothing more
    v3 = MetaData()
    Table("things", v3, Column("id", Integer, primary_key=True), Column("must", String(5), nullable=False))
    with pytest.raises(RuntimeError, match="NOT NULL column things.must"):
        upgrade(engine, v3)


def test_failures_read_as_words_for_people(tmp_path):
    err = describe_failure(sqlite3.OperationalError("database is locked"), "store the scores")
    assert isinstance(err, StorageError) and err.kind == "busy"
    assert str(err) == "Could not store the scores: the database is busy. Try again in a moment."
    assert describe_failure(sqlite3.DatabaseError("file is not a database"), "x").kind == "damaged"
    assert describe_failure(sqlite3.OperationalError("strange"), "x").kind == "refused"

    @guarded("read the answers")
    def broken():
        raise sqlite3.OperationalError("unable to open database file")

    with pytest.raises(StorageError, match="Could not read the answers: the database cannot be reached"):
        broken()


def test_health_says_whether_the_database_answers(tmp_path):
    assert health(make_engine(f"sqlite:///{tmp_path / 'h.sqlite'}")) is None
    (tmp_path / "bad.sqlite").write_bytes(b"this is not a database file" * 100)
    problem = health(make_engine(f"sqlite:///{tmp_path / 'bad.sqlite'}"))
    assert isinstance(problem, StorageError) and problem.kind == "damaged"
    assert "bad.sqlite" not in str(problem)  # no path in what people read
    assert inspect(make_engine(f"sqlite:///{tmp_path / 'h.sqlite'}")).get_table_names() == []


def _null_allowed(engine, table: str) -> dict[str, bool]:
    return {c["name"]: c["nullable"] for c in inspect(engine).get_columns(table)}


def test_a_column_that_may_now_be_empty_is_relaxed_and_every_row_kept(sql_url):
    engine = make_engine(sql_url)
    v1 = MetaData()
    Table("parent_t", v1, Column("id", Integer, primary_key=True))
    Table("scores_t", v1, Column("pid", Integer, ForeignKey("parent_t.id"), primary_key=True),
          Column("idx", Integer, primary_key=True), Column("fl", Float, nullable=False),
          Column("name", String(20), nullable=False, index=True))
    upgrade(engine, v1)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO parent_t (id) VALUES (1)"))
        conn.execute(text("INSERT INTO scores_t (pid, idx, fl, name) VALUES (1, 0, 0.5, 'a'), (1, 1, 0.25, 'b')"))
    v2 = MetaData()
    Table("parent_t", v2, Column("id", Integer, primary_key=True))
    Table("scores_t", v2, Column("pid", Integer, ForeignKey("parent_t.id"), primary_key=True),
          Column("idx", Integer, primary_key=True), Column("fl", Float, nullable=True),
          Column("name", String(20), nullable=False, index=True), Column("lang", String(16), nullable=True))
    changes = upgrade(engine, v2)
    assert changes[:2] == ["add column scores_t.lang", "allow empty scores_t.fl"]
    assert changes[2:] in ([], ["create index ix_scores_t_name"])  # SQLite copies the table and rebuilds its index
    assert _null_allowed(engine, "scores_t") == {"pid": False, "idx": False, "fl": True, "name": False, "lang": True}
    assert [ix["name"] for ix in inspect(engine).get_indexes("scores_t")] == ["ix_scores_t_name"]
    with engine.begin() as conn:
        assert conn.execute(text("SELECT pid, idx, fl, name, lang FROM scores_t ORDER BY idx")).all() == [
            (1, 0, 0.5, "a", None), (1, 1, 0.25, "b", None)]
        conn.execute(text("INSERT INTO scores_t (pid, idx, fl, name) VALUES (1, 2, NULL, 'c')"))  # now allowed
    assert upgrade(engine, v2) == []
    engine.dispose()


def test_every_public_read_of_a_store_says_storage_error_when_the_database_goes_away(tmp_path):
    """The annotation store's queries (a mixin) were not guarded: with the database gone
    after start, Annotation projects and Human vs automatic showed the raw
    OperationalError with the database's host and port."""
    import inspect

    from detox_core.annotation.store import AnnotationStore
    from detox_core.annotation.store.queries import StoreQueries
    from detox_core.db import make_engine
    from detox_core.errors import StorageError

    store = AnnotationStore(f"sqlite:///{tmp_path / 'a.sqlite'}")
    store.engine.dispose()
    store.engine = make_engine("postgresql+psycopg://detox:secret-pw@127.0.0.1:9/detox")  # went away
    checked = 0
    for name, fn in inspect.getmembers(StoreQueries, inspect.isfunction):
        if name.startswith("_"):
            continue
        args = [1] * (len(inspect.signature(fn).parameters) - 1)
        try:
            getattr(store, name)(*args)
        except StorageError as err:
            assert "127.0.0.1" not in str(err) and "secret-pw" not in str(err)
            checked += 1
        except Exception as err:  # noqa: BLE001
            assert "OperationalError" not in type(err).__name__, (name, err)
    assert checked >= 8


def test_a_read_only_sqlite_file_is_said_to_be_read_only_not_to_wait_a_minute(tmp_path, monkeypatch):
    """SQLite reports a read-only file or folder as "unable to open database file", which
    was read as an outage ("try again in a minute")."""
    import sqlite3

    import detox_core.db as db

    db_file = tmp_path / "detox.sqlite"
    db_file.write_bytes(b"")
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{db_file}")
    err = sqlite3.OperationalError("unable to open database file")
    writable = db.describe_failure(err, "save the page")
    assert writable.kind == "unreachable"
    # The same error where the file cannot be written (root ignores permissions, so the
    # check is made to see what a non-root server process sees).
    monkeypatch.setattr(db.os, "access", lambda path, mode: False)
    said = db.describe_failure(err, "save the page")
    assert said.kind == "read-only" and "write access" in str(said) and "minute" not in str(said)
    assert str(tmp_path) not in str(said)
