"""The LLM judge's persistent response cache, in the app's database.

One row per request the server answered (a charged request): keyed by a SHA-256 of the
model, the server's base URL (without credentials), the template tag (name, version,
hash), the request settings (temperature, ...) and the messages (the texts); the answer
text, its value (NULL: an answer the parser could not read) and the token counts. A rerun
reads the answers instead of paying for them again, and an interrupted run resumes.
Requests that failed (rate limits, server errors) are not stored: nothing was charged.
An unreadable answer whose re-ask failed is stored as ``pending``: it was charged, so a
rerun sends only the re-ask (with that answer in it), and the re-ask's outcome replaces
the row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Column, DateTime, Float, Integer, MetaData, String, Table, Text, event, select
from sqlalchemy.engine import Engine
from sqlalchemy.dialects import postgresql, sqlite

from detox_core.db import default_url, guard_public_methods, make_engine, upgrade, writer

_meta = MetaData()
responses = Table(
    "llm_judge_responses", _meta,
    Column("key", String(64), primary_key=True),
    Column("model", String(200), nullable=False),
    Column("base_url", String(500), nullable=False),
    Column("template", String(200), nullable=False),
    Column("question", String(20), nullable=False),
    Column("answer", Text, nullable=True),
    Column("value", Float, nullable=True),
    Column("prompt_tokens", Integer, nullable=False, server_default="0"),
    Column("completion_tokens", Integer, nullable=False, server_default="0"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # 1: the first answer was unreadable and its re-ask not answered (rate limits, errors).
    Column("pending", Integer, nullable=False, server_default="0"),
)


def request_key(model: str, base_url: str, template: str, settings: dict[str, Any],
                messages: Sequence[dict[str, str]]) -> str:
    """The cache key of one request (``base_url`` already without credentials)."""
    body = json.dumps([model, base_url, template, settings, list(messages)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _dialect_insert(name: str):
    """The INSERT with ON CONFLICT of the database's dialect (the app runs on SQLite or
    PostgreSQL)."""
    if name == "postgresql":
        return postgresql.insert
    if name == "sqlite":
        return sqlite.insert
    raise ValueError(f"the LLM judge's response cache runs on SQLite or PostgreSQL, not {name}")


@dataclass(frozen=True)
class Cached:
    answer: str | None
    value: float | None
    prompt_tokens: int
    completion_tokens: int
    pending: bool = False  # an unreadable first answer waiting for its re-ask


@guard_public_methods("use the LLM judge's response cache")
class ResponseCache:
    """Answers by request key, in the app's database (``$DETOX_DB_URL`` or SQLite)."""

    def __init__(self, url: str | None = None, engine: Engine | None = None) -> None:
        self.engine = engine or make_engine(url or default_url())
        if engine is None and self.engine.dialect.name == "sqlite":
            # Answers are written as they arrive, one small transaction each: in WAL mode
            # NORMAL keeps every committed answer through a killed process (not through a
            # power cut) without an fsync per answer.
            @event.listens_for(self.engine, "connect")
            def _normal_sync(conn, _record) -> None:  # noqa: ANN001 - DBAPI connection
                cur = conn.cursor()
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.close()
        upgrade(self.engine, _meta)

    def get_many(self, keys: Iterable[str]) -> dict[str, Cached]:
        keys = list(dict.fromkeys(keys))
        out: dict[str, Cached] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                q = select(responses.c.key, responses.c.answer, responses.c.value, responses.c.prompt_tokens,
                           responses.c.completion_tokens, responses.c.pending).where(responses.c.key.in_(chunk))
                for key, answer, value, pt, ct, pending in conn.execute(q):
                    out[key] = Cached(answer, value, int(pt or 0), int(ct or 0), bool(pending))
        return out

    def put_many(self, rows: Sequence[dict[str, Any]]) -> None:
        """Store answered requests (dicts with the table's columns but ``created_at``;
        ``pending`` defaults to 0). A key already stored is left as it is, unless it is
        pending and the new row is not (its re-ask was answered)."""
        if not rows:
            return
        now = datetime.now(timezone.utc)
        defaults = {"answer": None, "value": None, "prompt_tokens": 0, "completion_tokens": 0, "pending": 0}
        unique = {r["key"]: {**defaults, **r, "created_at": now} for r in rows}
        with writer(self.engine).begin() as conn:
            # One statement, so that two processes storing the same answer at once (a shared
            # deployment on PostgreSQL) never collide on the key: the first row stays, and a
            # pending row is replaced only by an answered one.
            stmt = _dialect_insert(self.engine.dialect.name)(responses)
            stmt = stmt.on_conflict_do_update(
                index_elements=[responses.c.key],
                set_={c.name: stmt.excluded[c.name] for c in responses.columns if c.name != "key"},
                where=(responses.c.pending != 0) & (stmt.excluded.pending == 0))
            conn.execute(stmt, list(unique.values()))

    def count(self) -> int:
        with self.engine.connect() as conn:
            return len(conn.execute(select(responses.c.key)).all())
