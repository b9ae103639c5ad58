"""The persistent cache of model outputs: a text is run through a model once, across
submissions, runs, server restarts and app processes.

One SQLite file (``<data>/cache/model_outputs/outputs.sqlite`` by default) in WAL mode,
so that several processes read it at once and write it in turn (each write waits up to
``timeout`` seconds for another's). Every write is one transaction: a writer killed in
the middle leaves the file as it was before that write, never a half-stored row.

A row is keyed by the SHA-256 of its *namespace* and its text. The namespace says
everything the output depends on: the model's identity (a hub model's commit, or a local
folder's fingerprint, the one its scores' signature names:
:func:`~detox_core.models.origin.folder_fingerprint`), its kind, device,
precision, backend, tokenizer, token limit and :data:`RECIPE_VERSION` (raised whenever the
pool computes an output differently). A changed model or recipe therefore never serves an
old output; its rows age out.

The file is bounded: when the stored values pass ``max_bytes``, the least recently used
rows are deleted down to 80% of it and the freed pages are returned to the file system.
A cache that cannot be opened or written (a read-only disk, a damaged file) is switched
off with a warning: scoring goes on from the models.
"""

from __future__ import annotations

import hashlib
import io
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from detox_core import config
from detox_core.models.origin import folder_fingerprint, hub_commit

log = logging.getLogger(__name__)

#: Raised whenever the pool computes an output differently (softmax, pooling, truncation...).
RECIPE_VERSION = 1
#: Bytes the write-ahead log is cut back to after a checkpoint (it checkpoints at ~4 MB).
WAL_LIMIT = 4 * 1024 * 1024
#: Seconds after which a read row's last use is written again (recency kept to the hour).
TOUCH_AFTER = 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outputs (
    key BLOB PRIMARY KEY,
    value BLOB NOT NULL,
    size INTEGER NOT NULL,
    used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS outputs_used ON outputs(used);
"""


def _pack(value: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(value), allow_pickle=False)
    return buf.getvalue()


def _unpack(blob: bytes) -> np.ndarray:
    return np.load(io.BytesIO(blob), allow_pickle=False)


def _busy(err: Exception) -> bool:
    """Whether ``err`` is another process holding the file too long (worth trying again
    later), not a cache that cannot work."""
    return isinstance(err, sqlite3.OperationalError) and any(w in str(err).lower() for w in ("locked", "busy"))


def text_key(namespace: str, text: str) -> bytes:
    """The row key of ``text`` under ``namespace`` (32 bytes)."""
    ns = namespace.encode("utf-8")
    h = hashlib.sha256(len(ns).to_bytes(8, "little") + ns)
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.digest()


def model_identity(loaded: Any, mapped: dict[str, str], max_length: int) -> str | None:
    """What the cache keys a loaded model's outputs by: everything they depend on (see the
    module's text), or None when the model's version cannot be told (a hub model without a
    commit). ``mapped``: model id -> folder of other models it may load by id (a registered
    kind's, such as xCOMET's encoder): their folders are part of its identity."""

    def ident(source: str, local: bool) -> str | None:
        if local:  # the fingerprint its signature's revision took at load, else the folder's now
            known = loaded.revision if source == loaded.source else None
            if isinstance(known, str) and known.startswith("local-"):
                return f"folder-{known.removeprefix('local-')}"
            return f"folder-{folder_fingerprint(source)}"
        commit = loaded.revision if source == loaded.source and loaded.revision and not str(
            loaded.revision).startswith("local-") else hub_commit(source)
        return f"hub:{source}@{commit}" if commit else None

    model = ident(loaded.source, loaded.local)
    tok = ident(loaded.tokenizer_from[1], loaded.tokenizer_from[2]) if loaded.tokenizer_from else "own"
    if model is None or tok is None:
        return None
    if mapped:
        extra = sorted(f"{mid}=folder-{folder_fingerprint(f)}" if Path(f).is_dir() else f"{mid}={f}"
                       for mid, f in mapped.items())
        tok = f"{tok};{','.join(extra)}"
    return "|".join(map(str, (f"v{RECIPE_VERSION}", model, tok, loaded.kind, loaded.device, loaded.dtype,
                              loaded.backend, max_length)))


def default_disk_cache() -> DiskCache | None:
    """The on-disk cache of model outputs of this data folder
    (``<data>/cache/model_outputs/outputs.sqlite``, bounded by ``DETOX_SCORE_CACHE_MB``),
    or None when that is 0 or the folder cannot be written (then with a warning)."""
    bound = config.score_cache_mb()
    if bound <= 0:
        return None
    try:
        return DiskCache(config.data_dir() / "cache" / "model_outputs" / "outputs.sqlite", int(bound * 1024 * 1024))
    except (OSError, sqlite3.Error) as err:  # a read-only data folder: memory only
        log.warning("the on-disk cache of model outputs is off: %s", err)
        return None


class DiskCache:
    """A bounded, process-safe, on-disk map from (namespace, text) to a numpy array.

    Args:
        path: the SQLite file (its folder is created).
        max_bytes: bound on the stored values; past it the least recently used go.
        timeout: seconds a write waits for another process's write.
    """

    def __init__(self, path: str | Path, max_bytes: int, timeout: float = 10.0) -> None:
        self.path = Path(path)
        self.max_bytes = int(max_bytes)
        self.timeout = timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        self.enabled = True
        self.hits = 0
        self.misses = 0
        self._added = 0  # bytes this process stored since it last summed the file's rows
        self._puts = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = self._connect()
        db.execute("PRAGMA journal_mode=WAL")
        self._known = self.stored_bytes(db)
        db.close()

    # ------------------------------------------------------------------ connection

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")  # the write-ahead log shrinks back after checkpoints
        if not db.execute("SELECT name FROM sqlite_master WHERE name='outputs'").fetchone():
            db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # before the first table: frees pages on eviction
            db.executescript(_SCHEMA)
        return db

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = self._connect()
        return db

    def _off(self, err: Exception) -> None:
        if self.enabled:
            log.warning("the on-disk cache of model outputs (%s) is switched off: %s", self.path, err)
        self.enabled = False

    # ------------------------------------------------------------------ reading and writing

    def get_many(self, namespace: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored outputs of those ``texts`` that have one."""
        if not self.enabled or not texts:
            return {}
        keys = {text_key(namespace, t): t for t in dict.fromkeys(texts)}
        found: dict[str, np.ndarray] = {}
        stale: list[tuple[float, bytes]] = []
        now = time.time()
        try:
            db = self._db()
            items = list(keys)
            for start in range(0, len(items), 500):
                chunk = items[start : start + 500]
                rows = db.execute(
                    f"SELECT key, value, used FROM outputs WHERE key IN ({','.join('?' * len(chunk))})", chunk).fetchall()
                for key, blob, used in rows:
                    found[keys[bytes(key)]] = _unpack(blob)
                    if now - used > TOUCH_AFTER:
                        stale.append((now, bytes(key)))
            if stale:  # recency kept to the hour: most reads write nothing
                db.execute("BEGIN IMMEDIATE")
                db.executemany("UPDATE outputs SET used=? WHERE key=?", stale)
                db.execute("COMMIT")
        except (sqlite3.Error, ValueError, OSError) as err:
            self._rollback()
            if not _busy(err):
                self._off(err)
            if not found:
                return {}
        self.hits += len(found)
        self.misses += len(keys) - len(found)
        return found

    def put_many(self, namespace: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        """Store outputs (one transaction); then keep the file within its bound."""
        if not self.enabled:
            return
        now = time.time()
        rows = []
        for text, value in items:
            blob = _pack(value)
            rows.append((text_key(namespace, text), blob, len(blob) + 48, now))
        if not rows:
            return
        try:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR REPLACE INTO outputs(key, value, size, used) VALUES (?, ?, ?, ?)", rows)
            db.execute("COMMIT")
            self._added += sum(r[2] for r in rows)
            self._puts += 1
            # Summing every row is cheap but not free: done when this process's own writes
            # could have passed the bound, and every 20 writes for the other processes' ones.
            if self._known + self._added > self.max_bytes or self._puts % 20 == 0:
                self._evict(db)
        except (sqlite3.Error, OSError) as err:
            self._rollback()
            if _busy(err):  # other processes held the file past the timeout: these rows are not kept
                log.info("the on-disk cache of model outputs was busy; %d outputs not stored", len(rows))
            else:
                self._off(err)

    def _rollback(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None and db.in_transaction:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def _evict(self, db: sqlite3.Connection) -> None:
        total = self.stored_bytes(db)
        self._known, self._added = total, 0
        if total <= self.max_bytes:
            return
        with self._lock:
            db.execute("BEGIN IMMEDIATE")
            target = int(self.max_bytes * 0.8)
            freed = 0
            doomed = []
            for key, size in db.execute("SELECT key, size FROM outputs ORDER BY used"):
                if total - freed <= target:
                    break
                doomed.append((key,))
                freed += size
            db.executemany("DELETE FROM outputs WHERE key=?", doomed)
            db.execute("COMMIT")
            db.execute("PRAGMA incremental_vacuum").fetchall()  # one page a step: run them all
            # Copy the freed file into the main file and cut the log (skipped while another
            # process reads: the next eviction does it).
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._known = total - freed

    # ------------------------------------------------------------------ inspection

    def stored_bytes(self, db: sqlite3.Connection | None = None) -> int:
        """The bytes of the stored values (what ``max_bytes`` bounds)."""
        db = db or self._db()
        return int(db.execute("SELECT COALESCE(SUM(size), 0) FROM outputs").fetchone()[0])

    def __len__(self) -> int:
        return int(self._db().execute("SELECT COUNT(*) FROM outputs").fetchone()[0])

    def file_bytes(self, wal: bool = True) -> int:
        """The cache's size on disk: the SQLite file and (``wal``) its write-ahead log,
        which holds at most about :data:`WAL_LIMIT` more."""
        paths = [self.path] + ([self.path.with_name(self.path.name + "-wal")] if wal else [])
        return sum(p.stat().st_size for p in paths if p.exists())

    def clear(self) -> None:
        db = self._db()
        db.execute("DELETE FROM outputs")
        db.execute("PRAGMA incremental_vacuum").fetchall()  # one page a step: run them all
