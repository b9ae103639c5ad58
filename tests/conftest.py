"""Shared fixtures: a tiny RUSSE-like dataset on disk and the real fetched data."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from detox_core.data import PROJECT_ROOT

#: With CI=true a skipped test fails with its reason (tests/ci_skips.py, ``ci_may_skip`` marks
#: the few skips that are right even there). Its helpers are imported where they are used:
#: imported here, the plugin would be imported before pytest registers it.
pytest_plugins = ["tests.ci_skips"]


def pytest_configure(config: pytest.Config) -> None:
    """Every test, and every app server a test starts, scores with the heads that ship: a folder of
    heads a developer names for their own use (``DETOX_HEADS_DIR``) is not the tests' business."""
    os.environ.pop("DETOX_HEADS_DIR", None)

TINY_TRAIN = (
    "index\ttoxic_comment\tneutral_comment1\tneutral_comment2\tneutral_comment3\n"
    "0\tты дебил, иди отсюда\tты неправ, иди отсюда\tуйди, пожалуйста\t\n"
    "1\tэтот мудак опять врёт\tэтот человек опять врёт\t\t\n"
    "2\tкакая хрень эта ваша новость\tкакая ерунда эта ваша новость\tэта новость плохая\tнеинтересная новость\n"
    "3\tЁлки, ну и погода блять\tЁлки, ну и погода\t\t\n"
    "4\t\"цитата \"\"дебилы\"\" с кавычками\"\tцитата с кавычками\t\t\n"
)
TINY_DEV = (
    "toxic_comment\tneutral_comment1\tneutral_comment2\tneutral_comment3\n"
    "заткнись уже, идиот\tпомолчи уже\t\t\n"
    "<script>alert(1)</script> тупой\t<b>не</b> умный\t\t\n"
)
TINY_TEST = "toxic_comment\tneutral_comment1\nсука как же надоело\tкак же надоело\n"
TINY_TOXIC_10K = "\n".join(["ты дебил", "вот хрень", "сука надоело", "мудак ты", "идиот полный", "тупой как пробка"] * 3) + "\n"
TINY_LEXICON = "дебил\nмудак\nхрень\nблять\nсука\nидиот\nтупой\n"


def write_tiny_dataset(root: Path) -> Path:
    """Write a small dataset in the RUSSE-2022 layout under ``root/russe2022``."""
    base = root / "russe2022"
    (base / "lexicon").mkdir(parents=True, exist_ok=True)
    (base / "train.tsv").write_text(TINY_TRAIN, encoding="utf-8")
    (base / "dev.tsv").write_text(TINY_DEV, encoding="utf-8")
    (base / "test_references.tsv").write_text(TINY_TEST, encoding="utf-8")
    (base / "lexicon" / "toxic_vocab.txt").write_text(TINY_LEXICON, encoding="utf-8")
    (base / "lexicon" / "ru_toxic_10k.txt").write_text(TINY_TOXIC_10K, encoding="utf-8")
    (base / "outputs").mkdir(exist_ok=True)
    (base / "outputs" / "delete_test.txt").write_text("как же надоело\n", encoding="utf-8")
    (base / "outputs" / "copy_test.txt").write_text("сука как же надоело\n", encoding="utf-8")
    return base


@pytest.fixture
def tiny_data(tmp_path, monkeypatch) -> Path:
    """A tiny dataset, made the app's data directory."""
    write_tiny_dataset(tmp_path)
    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DETOX_DB_URL", f"sqlite:///{tmp_path / 'detox.sqlite'}")
    return tmp_path


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The fetched RUSSE-2022 data (``make test`` fetches it first).

    In CI a missing dataset is a failure, elsewhere the tests that need it skip.
    """
    base = Path(os.environ.get("DETOX_DATA_DIR", PROJECT_ROOT / "data")) / "russe2022"
    if not (base / "train.tsv").is_file():
        from tests.ci_skips import in_ci

        msg = f"RUSSE-2022 data not fetched into {base}: run `python -m detox_core fetch-data`"
        if in_ci():
            pytest.fail(msg)
        pytest.skip(msg)
    return base


@pytest.fixture(scope="session")
def embedded_models(real_data) -> Path:
    """The embedded preset's heads (they ship with the package: nothing to train), with the
    real data fetched."""
    from detox_core.metrics.embedded.heads import heads_folder

    return heads_folder()


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    """Tiny STA/FL classifiers, a SIM encoder and a sentence-transformers model, on disk."""
    from tests.tiny_models import build_all

    return build_all(tmp_path_factory.mktemp("models"))


@pytest.fixture
def trained(tiny_data) -> Path:
    """The tiny dataset, the embedded preset ready to score (its heads ship: nothing to train)."""
    return tiny_data


@pytest.fixture
def fresh_meaning(tmp_path, monkeypatch) -> Iterator[Path]:
    """A process just started, for the model of meaning: a data folder of its own (an empty
    on-disk cache of embeddings) and nothing loaded or memoised in memory."""
    from detox_core.models import meaning

    monkeypatch.setenv("DETOX_DATA_DIR", str(tmp_path))
    meaning.reset()
    yield tmp_path
    meaning.reset()


@contextmanager
def postgres_server(url: str, exclusive: bool = False) -> Iterator[None]:
    """Hold the test PostgreSQL server of ``url`` for a while: shared by the tests that use it,
    exclusive for one that stops it (tests/e2e/test_deployment.py restarts it), which then waits
    for the others to end and they for it, across the test workers (``make test`` runs two) and
    test runs of this machine: a lock file named after the server's address."""
    import fcntl
    import tempfile

    from sqlalchemy.engine import make_url

    where = make_url(url)
    lock = Path(tempfile.gettempdir()) / f"detox-test-postgres-{where.host}-{where.port or 5432}.lock"
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture
def postgres_in_use():
    """The test PostgreSQL server (``DETOX_TEST_POSTGRES_URL``) held, shared, for the test
    (:func:`postgres_server`); nothing where none is set."""
    url = os.environ.get("DETOX_TEST_POSTGRES_URL")
    if not url:
        yield
        return
    with postgres_server(url):
        yield



def drop_database(conn, name: str, tries: int = 20) -> None:
    """``DROP DATABASE IF EXISTS name WITH (FORCE)`` on an AUTOCOMMIT connection, again for a few
    seconds when it is refused because a process of another role is in that database: an
    autovacuum worker, which a role without ``pg_signal_backend`` may not end (it is done in a
    moment)."""
    import time

    from sqlalchemy.exc import DBAPIError

    for attempt in range(tries):
        try:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            return
        except DBAPIError as err:
            if attempt == tries - 1 or "pg_signal_backend" not in str(err):
                raise
            time.sleep(0.5)


@pytest.fixture(scope="session")
def postgres_url():
    """``DETOX_TEST_POSTGRES_URL`` (None when unset); under pytest-xdist (``make test`` runs two
    workers), a database of this worker's own beside it, ``<name>_gw0`` and so on, created with
    the same role (``.ci/run`` gives it CREATEDB) and dropped at the end: the storage tests
    empty their schema, which must not be another worker's."""
    url = os.environ.get("DETOX_TEST_POSTGRES_URL")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not url or not worker:
        yield url
        return
    from sqlalchemy.engine import make_url

    base = make_url(url)
    name = f"{base.database}_{''.join(c for c in worker if c.isalnum())}"
    # No pool: the deployment test restarts the server meanwhile, and a pooled connection would be dead.
    admin = create_engine(base, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with postgres_server(url), admin.connect() as conn:
        drop_database(conn, name)
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with postgres_server(url), admin.connect() as conn:
            drop_database(conn, name)
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def sql_url(request, tmp_path) -> Iterator[str]:
    """A database URL for storage tests: SQLite in ``tmp_path``, and PostgreSQL when
    ``DETOX_TEST_POSTGRES_URL`` names a database the tests may empty (``.ci/run`` starts one;
    each test worker gets one of its own: :func:`postgres_url`).
    Required (a failure when missing) with ``DETOX_REQUIRE_POSTGRES=1`` or ``CI=true``."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite'}"
        return
    url = request.getfixturevalue("postgres_url")
    if not url:
        from tests.ci_skips import required

        if required("DETOX_REQUIRE_POSTGRES"):
            pytest.fail("DETOX_TEST_POSTGRES_URL is not set (DETOX_REQUIRE_POSTGRES=1 or CI=true)")
        pytest.skip("no PostgreSQL test database (set DETOX_TEST_POSTGRES_URL)")
    request.getfixturevalue("postgres_in_use")  # the server is not stopped meanwhile
    engine = create_engine(url)
    with engine.begin() as conn:  # start from an empty schema
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    yield url


@pytest.fixture
def network_attempts(monkeypatch) -> list[tuple]:
    """Refuse every connection to an address off this machine and note it: the test asserts
    the list is empty where the behaviour is "does not reach for the network" (a hub's minute
    of retries, a download), rather than timing it. Loopback connections go through."""
    import socket

    attempts: list[tuple] = []
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def off_machine(address) -> bool:
        host = address[0] if isinstance(address, tuple) else None
        return host is not None and host not in ("localhost", "::1") and not str(host).startswith("127.")

    def guarded(real):
        def attempt(self, address):
            if off_machine(address):
                attempts.append(address)
                raise OSError(f"the test refuses a connection to {address!r}")
            return real(self, address)
        return attempt

    monkeypatch.setattr(socket.socket, "connect", guarded(connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guarded(connect_ex))
    return attempts
