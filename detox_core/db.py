"""The app's SQL database: engine set-up and schema upgrades, shared by every store.

SQLite under ``data/`` by default (WAL journal, foreign keys on, a busy timeout so that
concurrent writers wait instead of failing); any SQLAlchemy URL (PostgreSQL included)
in ``DETOX_DB_URL`` works with the same code.

Schema upgrades are additive: a table the database lacks is created, a column a table
lacks is added (nullable, or with its declared server default), a missing index is
built, and a NOT NULL column the schema now allows to be empty is relaxed (SQLite, which
cannot alter a column, copies the table into one of the new shape, in one transaction).
Rows are never dropped, so a database written by an older version opens in a newer one
with all its rows. Each upgrade is recorded in ``schema_history``.
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, create_engine, event, inspect, text
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine
from sqlalchemy.schema import CreateColumn, CreateTable

from detox_core import config, extras
from detox_core.errors import DetoxInputError, StorageError

log = logging.getLogger(__name__)
T = TypeVar("T")

# (words in the driver's message, kind, what the user reads). First match wins.
_FAILURES = [
    (("readonly", "read-only", "read only"), "read-only",
     "the database is read-only, so nothing can be saved. Organizers: give the app write access to the "
     "database file and its folder (or to the database), then try again."),
    (("not a database", "malformed", "disk image", "file is encrypted"), "damaged",
     "the database file is damaged. Organizers: stop the app and restore the file from a backup "
     "(data/README.md says how), or move it away to start an empty one."),
    (("disk is full", "no space", "database or disk is full"), "full",
     "the disk of the database is full. Organizers: free some space, then try again."),
    (("database is locked", "deadlock", "could not obtain lock", "lock timeout"), "busy",
     "the database is busy. Try again in a moment."),
    (("connect", "connection", "server closed", "terminating", "shutting down", "starting up", "timeout expired",
      "unable to open database", "no such host", "name or service not known", "network"), "unreachable",
     "the database cannot be reached. Try again in a minute; organizers: check that the database server is "
     "running and that DETOX_DB_URL points to it."),
]


def _sqlite_file_read_only() -> bool:
    """Whether the app's SQLite database file, or its folder, cannot be written."""
    url = config.db_url()
    if not url.startswith("sqlite:///"):
        return False
    path = Path(url.removeprefix("sqlite:///"))
    return (path.exists() and not os.access(path, os.W_OK)) or not os.access(path.parent, os.W_OK)


def describe_failure(err: BaseException, action: str) -> StorageError:
    """The :class:`StorageError` a user reads for a driver or SQLAlchemy error."""
    detail = str(getattr(err, "orig", None) or err).lower()
    if "unable to open database" in detail and _sqlite_file_read_only():
        # SQLite says "unable to open" when the file or its folder is read-only (the
        # journal cannot be made): waiting a minute does not help.
        detail = "readonly"
    for words, kind, message in _FAILURES:
        if any(w in detail for w in words):
            return StorageError(f"Could not {action}: {message}", kind)
    return StorageError(f"Could not {action}: the database refused the request. Organizers: the server's log "
                        "has the details.", "refused")


@contextmanager
def storage_errors(action: str) -> Iterator[None]:
    """Turn database failures inside the block into a :class:`StorageError` (logged in
    full for the organizers; the message itself shows no SQL, address or path)."""
    try:
        yield
    except StorageError:
        raise
    except (sa_exc.DBAPIError, sa_exc.OperationalError, sqlite3.DatabaseError, sa_exc.TimeoutError) as err:
        log.warning("database failure while trying to %s: %s", action, err)
        raise describe_failure(err, action) from None


def guarded(action: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorator: the function's database failures become :class:`StorageError`."""
    def wrap(fn: Callable[..., T]) -> Callable[..., T]:
        if getattr(fn, "__storage_guarded__", False):
            return fn

        @functools.wraps(fn)
        def inner(*args, **kwargs) -> T:
            with storage_errors(action):
                return fn(*args, **kwargs)
        inner.__storage_guarded__ = True  # type: ignore[attr-defined]
        return inner
    return wrap


def guard_public_methods(action: str):
    """Class decorator: every public method's database failures become :class:`StorageError`,
    the methods it inherits from its bases (mixins of queries, say) included."""
    def wrap(cls):
        seen: set[str] = set()
        for klass in cls.__mro__:
            if klass is object:
                continue
            for name, value in list(vars(klass).items()):
                if name in seen:
                    continue
                seen.add(name)
                if callable(value) and (not name.startswith("_") or name == "__init__") and not isinstance(
                        value, (staticmethod, classmethod, type)):
                    setattr(cls, name, guarded(action)(value))
        return cls
    return wrap


def health(engine: Engine) -> StorageError | None:
    """None when the database answers a trivial query, else why not."""
    try:
        with storage_errors("reach the database"), engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except StorageError as err:
        return err
    return None

_history = MetaData()
schema_history = Table(
    "schema_history", _history,
    Column("id", Integer, primary_key=True),
    Column("change", String(300), nullable=False),
    Column("applied_at", DateTime(timezone=True), nullable=False),
)


def default_url() -> str:
    """``$DETOX_DB_URL``, else the SQLite file ``data/detox.sqlite``."""
    return config.db_url()


#: Database URL prefixes the app works with (SQLite files, PostgreSQL through psycopg 3, the
#: [postgres] extra; a plain ``postgresql://`` URL is read as psycopg 3).
SUPPORTED_URLS = ("sqlite://", "postgresql+psycopg://", "postgresql://", "postgres://")


def make_engine(url: str | None = None) -> Engine:
    """An engine for ``url`` (default :func:`default_url`), with SQLite pragmas set."""
    url = url or default_url()
    if not url.startswith(SUPPORTED_URLS):
        raise DetoxInputError(f"unsupported database URL {url.split(':', 1)[0]!r}: use sqlite:///FILE or "
                              "postgresql+psycopg://USER:PASSWORD@HOST/DATABASE")
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            url = "postgresql+psycopg://" + url.removeprefix(plain)
    if url.startswith("postgresql"):
        extras.require("postgres", "a PostgreSQL database")
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///file:"):  # an SQLite URI names no folder to make
        Path(url.removeprefix("sqlite:///").split("?", 1)[0]).parent.mkdir(parents=True, exist_ok=True)
    # PostgreSQL: give up on an unreachable server after 5 s instead of the system's
    # minutes-long TCP timeout, so a page says "down" quickly.
    connect_args = {"timeout": 60, "check_same_thread": False} if url.startswith("sqlite") else {"connect_timeout": 5}
    # pre_ping: a pooled connection that died (the database restarted) is replaced
    # before use, so the app recovers without a restart.
    engine = create_engine(url, future=True, connect_args=connect_args, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def _pragmas(conn, _record) -> None:  # noqa: ANN001 - DBAPI connection
            # SQLAlchemy, not the driver, begins transactions (see ``_begin``), so that a
            # transaction's reads and writes are one transaction.
            conn.isolation_level = None
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=60000")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn) -> None:  # noqa: ANN001 - SQLAlchemy connection
            mode = conn.get_execution_options().get("sqlite_begin", "")
            conn.exec_driver_sql(f"BEGIN {mode}".strip())
    return engine


def writer(engine: Engine) -> Engine:
    """The engine for transactions that read and then write what they read (allocating
    work, checking limits): SQLite takes its write lock at BEGIN, so such transactions
    run one after another, across threads and processes. Other databases lock rows with
    ``SELECT ... FOR UPDATE`` in the transaction itself."""
    if engine.dialect.name == "sqlite":
        return engine.execution_options(sqlite_begin="IMMEDIATE")
    return engine


#: Threads of one process upgrading an SQLite schema take turns.
_UPGRADE_THREADS = threading.RLock()
#: Tries of an SQLite upgrade that another process's upgrade locked out (about 7 s in all).
_SQLITE_UPGRADE_TRIES = 10

#: The PostgreSQL advisory lock the app's processes take around a schema upgrade.
_UPGRADE_LOCK = 0x6465746F78  # "detox"


def upgrade(engine: Engine, metadata: MetaData) -> list[str]:
    """Bring the database up to ``metadata``: create missing tables, add missing columns.

    Several app processes starting at once on one PostgreSQL database take turns (an
    advisory lock): the first upgrades, the others find the schema current.

    Returns the changes made (empty when the database was current).

    Raises:
        RuntimeError: a missing column is NOT NULL without a server default, so it
            cannot be added to a table that has rows.
    """
    if engine.dialect.name != "postgresql":
        # SQLite: one thread of this process at a time; another process upgrading at the same
        # moment makes a statement fail at once with "database is locked" (a read lock that
        # cannot become a write lock waits for nothing), so it is tried again, the schema then
        # found current.
        with _UPGRADE_THREADS:
            for attempt in range(_SQLITE_UPGRADE_TRIES):
                try:
                    return _upgrade(engine, metadata)
                except sa_exc.OperationalError:
                    if attempt == _SQLITE_UPGRADE_TRIES - 1:
                        raise
                    time.sleep(min(1.0, 0.05 * 2 ** attempt))
    # One thread of this process at a time (threads waiting on the advisory lock would hold
    # the pool's connections that the one upgrading needs), then one process at a time.
    with _UPGRADE_THREADS, engine.connect() as lock:
        lock.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _UPGRADE_LOCK})
        try:
            return _upgrade(engine, metadata)
        finally:
            lock.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _UPGRADE_LOCK})
            lock.commit()


def _upgrade(engine: Engine, metadata: MetaData) -> list[str]:
    changes: list[str] = []
    _history.create_all(engine)
    existing = set(inspect(engine).get_table_names())
    missing_tables = [t for t in metadata.sorted_tables if t.name not in existing]
    if missing_tables and existing - {"schema_history"}:
        changes += [f"create table {t.name}" for t in missing_tables]
    metadata.create_all(engine, tables=missing_tables)
    insp = inspect(engine)
    with engine.begin() as conn:
        for table in metadata.sorted_tables:
            if table in missing_tables:
                continue
            columns = insp.get_columns(table.name)
            have = {c["name"] for c in columns}
            relax = [col.name for col in table.columns
                     if col.name in have and col.nullable and not col.primary_key
                     and not next(c for c in columns if c["name"] == col.name)["nullable"]]
            for col in table.columns:
                if col.name in have:
                    continue
                if not col.nullable and col.server_default is None:
                    raise RuntimeError(f"cannot add NOT NULL column {table.name}.{col.name} without a server default")
                ddl = CreateColumn(col).compile(dialect=engine.dialect)
                conn.execute(text(f"ALTER TABLE {table.name} ADD COLUMN {ddl}"))
                changes.append(f"add column {table.name}.{col.name}")
            if relax:  # every column of the schema is there now
                _relax_not_null(conn, table, relax, [c.name for c in table.columns])
                changes += [f"allow empty {table.name}.{name}" for name in relax]
            indexes = {ix["name"] for ix in inspect(conn).get_indexes(table.name)}  # as this transaction sees them
            for index in table.indexes:
                if index.name not in indexes:
                    index.create(conn)
                    changes.append(f"create index {index.name}")
        now = datetime.now(timezone.utc)
        for change in changes:
            conn.execute(schema_history.insert().values(change=change, applied_at=now))
    return changes


def _relax_not_null(conn, table: Table, names: list[str], existing: list[str]) -> None:
    """Let ``names`` of ``table`` be NULL, keeping every row.

    PostgreSQL (and other servers) drop the constraint in place. SQLite cannot alter a
    column: the rows are copied into a table of the new shape, which then takes the old
    one's name (its indexes are rebuilt by :func:`upgrade`). Only for a table no other
    table refers to, so that no foreign key sees the old table go.
    """
    if conn.dialect.name != "sqlite":
        for name in names:
            conn.execute(text(f'ALTER TABLE {table.name} ALTER COLUMN "{name}" DROP NOT NULL'))
        return
    referring = [t for t in table.metadata.sorted_tables for fk in t.foreign_keys if fk.column.table is table]
    if referring:
        raise RuntimeError(f"cannot relax NOT NULL on {table.name}: tables refer to it ({referring[0].name})")
    shape = MetaData()
    for parent in {fk.column.table for fk in table.foreign_keys}:
        parent.to_metadata(shape)  # for the foreign keys of the copy; not created
    tmp = table.to_metadata(shape, name=f"_upgrade_{table.name}")
    conn.execute(CreateTable(tmp))  # the table only: its indexes are built under the final name
    shared = ", ".join(f'"{c.name}"' for c in table.columns if c.name in existing)
    conn.execute(text(f"INSERT INTO {tmp.name} ({shared}) SELECT {shared} FROM {table.name}"))
    conn.execute(text(f"DROP TABLE {table.name}"))
    conn.execute(text(f"ALTER TABLE {tmp.name} RENAME TO {table.name}"))
