"""Storage faults: a damaged, read-only or stopped database gives a clear message and
loses no finished work; NUL bytes and over-long names are handled before scoring."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from detox_core import data
from detox_core.errors import AnnotationError
from detox_core.annotation.store import AnnotationStore
from detox_core.errors import DetoxInputError, StorageError
from detox_core.submissions.store import clean_name, MAX_NAME_CHARS, Store
from detox_core.submissions.service import score_and_store, UnsavedScoresError
from tests.ci_skips import required
from tests.submissions.test_store import add

INPUTS = ["ты дебил, иди отсюда", "этот мудак опять врёт"]


def test_nul_byte_in_a_submission_is_refused_with_its_place_before_scoring():
    with pytest.raises(DetoxInputError, match=r"sub.txt, line 2, column 4: a NUL character"):
        data.load_submission(b"first\nabc\x00def\n", inputs=INPUTS, name="sub.txt")


def test_over_long_and_control_character_names_are_cleaned():
    long = "a" * 300 + "\x00" + "b" * 100 + ".txt"
    cleaned = clean_name(long)
    assert len(cleaned) == MAX_NAME_CHARS and cleaned.endswith("b.txt") and "\x00" not in cleaned
    assert clean_name("x\x00y\n z.txt") == "x y z.txt"


def test_annotator_name_with_nul_is_refused(tmp_path):
    store = AnnotationStore(f"sqlite:///{tmp_path / 'a.sqlite'}")
    with pytest.raises(AnnotationError, match="control character"):
        store.join("whatever", "Ann\x00a")


def test_damaged_sqlite_file_gives_a_clear_message_without_its_path(tmp_path):
    path = tmp_path / "detox.sqlite"
    path.write_bytes(os.urandom(8192))
    with pytest.raises(StorageError) as info:
        Store(f"sqlite:///{path}")
    assert info.value.kind == "damaged"
    assert "damaged" in str(info.value) and str(tmp_path) not in str(info.value)
    assert "SELECT" not in str(info.value) and "sqlite3" not in str(info.value)


def test_read_only_database_keeps_the_finished_scores(trained):
    db = trained / "ro.sqlite"
    writable = Store(f"sqlite:///{db}")
    add(writable)  # a database with one submission
    read_only = Store(f"sqlite:///file:{db}?mode=ro&uri=true")
    assert len(read_only.list()) == 1  # reading works
    with pytest.raises(UnsavedScoresError) as info:
        score_and_store(read_only, "как же надоело\n".encode(), "out.txt", dataset="russe2022", split="test",
                        inputs=["сука как же надоело"], references=[["как же надоело"]], preset="embedded",
                        calibrated=False, source="upload")
    err = info.value
    assert err.kind == "read-only" and "read-only" in str(err) and "kept in this session" in str(err)
    assert list(err.pending.scores["output"]) == ["как же надоело"]
    assert 0 <= err.pending.scores["j"].iloc[0] <= 1
    # Once the database can be written again, the kept scores are stored as they were.
    stored = err.pending.store(writable)
    assert stored.name == "out.txt" and len(writable.list()) == 2


# ------------------------------------------------------------------ PostgreSQL stopped and started

PG_BIN = Path("/usr/lib/postgresql")


def _pg_bin() -> Path | None:
    if not PG_BIN.is_dir():
        return None
    versions = sorted(PG_BIN.iterdir(), key=lambda p: [int(x) for x in p.name.split(".") if x.isdigit()])
    return versions[-1] / "bin" if versions else None


def _as_postgres(cmd: str) -> subprocess.CompletedProcess:
    if os.geteuid() == 0:
        return subprocess.run(["su", "postgres", "-c", cmd], capture_output=True, text=True, timeout=120)
    return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)


@pytest.fixture
def own_postgres(tmp_path_factory):
    """A throwaway PostgreSQL server of this test's own, on a free port, to stop and start."""
    bin_dir = _pg_bin()
    if bin_dir is None or not (bin_dir / "initdb").exists() or shutil.which("su") is None:
        msg = "PostgreSQL server binaries are not installed"
        if required("DETOX_REQUIRE_POSTGRES"):  # DETOX_REQUIRE_POSTGRES=1 or CI=true
            pytest.fail(msg)
        pytest.skip(msg)
    root = Path("/tmp") / f"detox-pg-{os.getpid()}-{time.monotonic_ns()}"
    root.mkdir()
    shutil.chown(root, "postgres") if os.geteuid() == 0 else None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    datadir = root / "data"
    init = _as_postgres(f"{bin_dir}/initdb -A trust -U detox -D {datadir}")
    assert init.returncode == 0, init.stderr
    ctl = f"{bin_dir}/pg_ctl -D {datadir} -o '-p {port} -k {root} -c listen_addresses=127.0.0.1' -w -t 60"
    assert _as_postgres(f"{ctl} -l {root}/log start").returncode == 0
    url = f"postgresql+psycopg://detox@127.0.0.1:{port}/postgres"
    yield url, (lambda: _as_postgres(f"{ctl} -m fast stop")), (lambda: _as_postgres(f"{ctl} -l {root}/log start"))
    _as_postgres(f"{ctl} -m immediate stop")
    shutil.rmtree(root, ignore_errors=True)


def test_postgres_outage_gives_a_clear_message_and_recovers_without_a_restart(own_postgres):
    url, stop, start = own_postgres
    store = Store(url)
    add(store, name="nul\x00name.txt")  # NUL in a name: cleaned before PostgreSQL sees it
    assert store.list().loc[0, "name"] == "nul name.txt"
    assert stop().returncode == 0
    with pytest.raises(StorageError) as info:
        store.list()
    message = str(info.value)
    assert info.value.kind == "unreachable" and "cannot be reached" in message
    port = url.rsplit(":", 1)[1].split("/")[0]
    assert port not in message and "127.0.0.1" not in message and "SELECT" not in message
    from detox_core.db import health

    assert health(store.engine) is not None
    assert start().returncode == 0
    # The same store (its pooled connections died with the server) works again.
    assert len(store.list()) == 1
    assert health(store.engine) is None


def test_health_command_says_when_the_database_is_down(tmp_path, capsys):
    from detox_core.cli import main

    good = tmp_path / "ok.sqlite"
    assert main(["health", "--db", f"sqlite:///{good}"]) == 0
    assert "database: ok" in capsys.readouterr().out
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(os.urandom(4096))
    assert main(["health", "--db", f"sqlite:///{bad}"]) == 1
    err = capsys.readouterr().err
    assert "database: down (damaged)" in err and str(tmp_path) not in err


def test_an_output_over_the_per_text_cap_is_refused_with_its_line_before_scoring():
    """Round 5: one output line of 5M characters was scored with a 2.7 GB peak."""
    from detox_core.limits import MAX_OUTPUT_CHARS

    long = "x" * (MAX_OUTPUT_CHARS + 1)
    with pytest.raises(DetoxInputError, match=rf"sub.txt, line 2: an output of {MAX_OUTPUT_CHARS + 1:,} characters"):
        data.load_submission(f"fine\n{long}\n".encode(), inputs=INPUTS, name="sub.txt")
    tsv = f"toxic_sentence\tneutral_sentence\n{INPUTS[0]}\tfine\n{INPUTS[1]}\t{long}\n".encode()
    with pytest.raises(DetoxInputError, match=r"sub.tsv, line 3, column 'neutral_sentence': an output of"):
        data.load_submission(tsv, inputs=INPUTS, name="sub.tsv")
    # At the cap: scored as usual.
    ok = data.load_submission(f"fine\n{long[:-1]}\n".encode(), inputs=INPUTS, name="sub.txt")
    assert len(ok["neutral_sentence"][1]) == MAX_OUTPUT_CHARS
