"""Scored submissions, stored so that a reload or another user sees them unscored.

SQLAlchemy over SQLite by default (``data/detox.sqlite``, WAL mode); a PostgreSQL URL
in ``DETOX_DB_URL`` works the same. A submission is identified by the SHA-256 of its
file, the dataset and split it answers, the preset and the calibration: uploading the
same file again finds the stored scores instead of scoring it twice. A submission and
its per-sentence scores are written in one transaction, so a failure stores nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import hashlib
import json
import threading
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pandas as pd
from sqlalchemy import (
    Boolean, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint, delete, false, func, or_, select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship

from detox_core.names import INVISIBLE, MAX_MARKS, describe, name_keys
from detox_core.db import default_url, guard_public_methods, make_engine, upgrade
from detox_core.metrics.base import RAW_COLUMNS, SCORE_COLUMNS
from detox_core.errors import DetoxInputError
from detox_core.text import BIDI_CONTROLS
from detox_core.vocab import REFERENCE_METRIC_COLUMNS


class Base(DeclarativeBase):
    pass


class SubmissionRow(Base):
    __tablename__ = "submissions"
    __table_args__ = (UniqueConstraint("sha256", "dataset", "split", "preset", "calibrated", name="uq_submission"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    dataset: Mapped[str] = mapped_column(String(100))
    split: Mapped[str] = mapped_column(String(50))
    preset: Mapped[str] = mapped_column(String(50))
    calibrated: Mapped[bool] = mapped_column(Boolean)
    source: Mapped[str] = mapped_column(String(20))  # upload | shipped | cli
    n: Mapped[int] = mapped_column(Integer)
    signature: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # Hidden by an organizer: kept, but left out of rankings, comparisons and new projects.
    hidden: Mapped[bool | None] = mapped_column(Boolean, nullable=True, server_default=false())
    # The languages the file answers (comma-separated codes), whichever the preset could score:
    # a 15-language file scored by a Russian-only preset answers 15. Empty for a monolingual
    # edition and for submissions stored before it was kept (their scored languages stand in).
    answered: Mapped[str | None] = mapped_column(Text, nullable=True)
    sentences: Mapped[list["SentenceRow"]] = relationship(back_populates="submission", cascade="all, delete-orphan")


class SentenceRow(Base):
    __tablename__ = "sentence_scores"

    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    input: Mapped[str] = mapped_column(Text)
    output: Mapped[str] = mapped_column(Text)
    # Empty where a recipe cannot score the axis: the 2024 recipe's FL (chrF) and J need references;
    # an LLM judge's answer that could not be had (STA, SIM too).
    sta: Mapped[float | None] = mapped_column(Float, nullable=True)
    sim: Mapped[float | None] = mapped_column(Float, nullable=True)
    fl: Mapped[float | None] = mapped_column(Float, nullable=True)
    j: Mapped[float | None] = mapped_column(Float, nullable=True)
    chrf: Mapped[float | None] = mapped_column(Float, nullable=True)
    # The other reference metrics (detox_core.metrics.reference); added by a schema upgrade, so a
    # submission stored before them has them empty.
    bleu: Mapped[float | None] = mapped_column(Float, nullable=True)
    rouge_l: Mapped[float | None] = mapped_column(Float, nullable=True)
    bertscore: Mapped[float | None] = mapped_column(Float, nullable=True)
    sta_raw: Mapped[float | None] = mapped_column(Float, nullable=True)
    sim_raw: Mapped[float | None] = mapped_column(Float, nullable=True)
    fl_raw: Mapped[float | None] = mapped_column(Float, nullable=True)
    j_raw: Mapped[float | None] = mapped_column(Float, nullable=True)
    # ISO code of the sentence's language (multilingual editions); empty for a monolingual corpus.
    lang: Mapped[str | None] = mapped_column(String(16), nullable=True)
    submission: Mapped[SubmissionRow] = relationship(back_populates="sentences")


@dataclass(frozen=True)
class StoredSubmission:
    id: int
    name: str
    sha256: str
    dataset: str
    split: str
    preset: str
    calibrated: bool
    source: str
    n: int
    signature: dict[str, Any]
    created_at: datetime
    answered: tuple[str, ...] | None = None  # the languages the file answers (multilingual editions)


def _codes(text: str | None) -> tuple[str, ...] | None:
    return tuple(text.split(",")) if text else None


def _same_file(sha256: str, dataset: str, split: str, preset: str, calibrated: bool):
    """The query for a stored submission of the same file, test set, preset and calibration."""
    return select(SubmissionRow).where(
        SubmissionRow.sha256 == sha256, SubmissionRow.dataset == dataset, SubmissionRow.split == split,
        SubmissionRow.preset == preset, SubmissionRow.calibrated == calibrated)


#: Longest submission name stored (the column's size).
MAX_NAME_CHARS = 200


def clean_name(name: str) -> str:
    """A submission's display name as stored, by the annotators' name rule
    (:mod:`detox_core.names`) with what it refuses taken out instead, a file name being
    given, not typed: in Unicode's compatibility form (NFKC: a full-width ``ｔ５`` is ``t5``),
    without the characters that show as nothing or differently from screen to screen
    (format characters such as the zero-width space and the byte-order mark, Unicode's other
    default-ignorable characters, direction controls, private-use, surrogate and unassigned
    code points), controls (C0 and C1, NUL included) and line or paragraph separators made
    spaces, at most :data:`~detox_core.names.MAX_MARKS` combining marks on a letter (210 drew
    lines across the heat map) and none on no letter, runs of white space made one space;
    a name over :data:`MAX_NAME_CHARS` keeps its beginning and its end (the extension)
    around an ellipsis."""
    kept: list[str] = []
    marks = 0
    for c in unicodedata.normalize("NFKC", name):
        category = unicodedata.category(c)
        if c in BIDI_CONTROLS or ord(c) in INVISIBLE or category in ("Cf", "Co", "Cn", "Cs"):
            continue
        if category in ("Cc", "Zl", "Zp"):
            kept.append(" ")
            marks = 0
            continue
        if category.startswith("M"):
            marks += 1
            if marks > MAX_MARKS or not kept or kept[-1].isspace():
                continue
        else:
            marks = 0
        kept.append(c)
    # NFKC again: a mark kept once what stood between it and its letter is gone composes with it.
    name = " ".join(unicodedata.normalize("NFKC", "".join(kept)).split()) or "unnamed"
    if len(name) > MAX_NAME_CHARS:
        name = name[: MAX_NAME_CHARS - 41] + "…" + name[-40:]
    return name


def look_alike_error(name: str, existing: Sequence[str]) -> DetoxInputError | None:
    """The error for a name that reads as another stored submission's name without being
    it (a Cyrillic ``а`` in ``t5_base``, a capital ``I`` for an ``l``, letter case): on
    the Leaderboard the two would be two rows no one can tell apart. The very same name
    is allowed (another file of the same participant: the pages tell them apart by id)."""
    keys = name_keys(name)
    for other in existing:
        if other != name and keys & name_keys(other):
            differ = [c for c in name if c not in other]
            why = f" ({describe(differ)})" if differ else " (letter case aside)"
            return DetoxInputError(f"the name “{name}” looks like “{other}”{why}, a submission already stored: "
                                   "use that very name for another file of the same system, or a name of its own")
    return None


def display_names(listed: pd.DataFrame) -> dict[int, str]:
    """Stored submission id -> the name shown for it: its name, followed by ``#id``
    where two listed submissions share a name (both stay visible and tell apart)."""
    counts = listed["name"].value_counts()
    return {int(i): (f"{n} #{i}" if counts[n] > 1 else str(n)) for i, n in zip(listed["id"], listed["name"])}


def short_name(name: str, limit: int = 24) -> str:
    """``name`` cut in the middle to at most ``limit`` characters ("team-sunrise…_v3_test.txt"):
    the start and the end, where file names tell their versions apart, both kept."""
    if len(name) <= limit:
        return name
    tail = (limit - 1) * 2 // 5
    return name[: limit - 1 - tail] + "…" + name[len(name) - tail:]


def file_sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


@guard_public_methods("use the submissions database")
class Store:
    """Scored submissions in a SQL database.

    Args:
        url: SQLAlchemy URL (default: ``$DETOX_DB_URL`` or ``data/detox.sqlite``).
    """

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_url()
        self.engine: Engine = make_engine(self.url)
        upgrade(self.engine, Base.metadata)
        self._lock = threading.Lock()

    @staticmethod
    def _meta(row: SubmissionRow) -> StoredSubmission:
        created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=timezone.utc)  # SQLite drops it
        return StoredSubmission(row.id, row.name, row.sha256, row.dataset, row.split, row.preset, row.calibrated,
                                row.source, row.n, json.loads(row.signature), created, _codes(row.answered))

    def find(self, sha256: str, dataset: str, split: str, preset: str, calibrated: bool) -> StoredSubmission | None:
        with Session(self.engine) as s:
            row = s.scalars(_same_file(sha256, dataset, split, preset, calibrated)).first()
            return self._meta(row) if row else None

    def add(self, *, name: str, sha256: str, dataset: str, split: str, preset: str, calibrated: bool, source: str,
            inputs: list[str], outputs: list[str], scores: pd.DataFrame,
            langs: Sequence[str] | None = None, answered: Sequence[str] | None = None) -> StoredSubmission:
        """Store a scored submission (one transaction); returns the existing one if the
        same file was stored meanwhile. ``langs``: each sentence's language (multilingual
        editions); ``answered``: every language the file answers, also those the preset
        does not cover (which have no sentence rows)."""
        langs = list(langs) if langs is not None else [""] * len(inputs)
        if not (len(inputs) == len(outputs) == len(scores) == len(langs)):
            raise ValueError("inputs, outputs, scores and langs must have the same length")
        with self._lock, Session(self.engine) as s, s.begin():
            existing = s.scalars(_same_file(sha256, dataset, split, preset, calibrated)).first()
            if existing:
                return self._meta(existing)
            names = s.scalars(select(SubmissionRow.name).distinct())
            if (err := look_alike_error(clean_name(name), list(names))) is not None:
                raise err
            row = SubmissionRow(
                name=clean_name(name), sha256=sha256, dataset=dataset, split=split, preset=preset, calibrated=calibrated,
                source=source, n=len(outputs), signature=json.dumps(scores.attrs.get("signature", {}), ensure_ascii=False),
                created_at=datetime.now(timezone.utc), answered=",".join(answered) if answered else None,
            )
            cols = list(SCORE_COLUMNS) + list(RAW_COLUMNS)
            values = scores.reindex(columns=cols).astype(float).to_dict("records")  # a column it lacks: empty
            row.sentences = [
                SentenceRow(idx=i, input=src, output=out, lang=lang or None,
                            **{k: (None if v != v else v) for k, v in vals.items()})
                for i, (src, out, vals, lang) in enumerate(zip(inputs, outputs, values, langs))
            ]
            s.add(row)
            s.flush()
            return self._meta(row)

    def splits(self, dataset: str) -> list[str]:
        """The splits of ``dataset`` that have a stored (not hidden) submission."""
        q = (select(SubmissionRow.split).distinct().where(SubmissionRow.dataset == dataset)
             .where(or_(SubmissionRow.hidden.is_(None), SubmissionRow.hidden == false())))
        with Session(self.engine) as s:
            return sorted(s.scalars(q).all())

    def list(self, dataset: str | None = None, split: str | None = None, preset: str | None = None,
             include_hidden: bool = False) -> pd.DataFrame:
        """Stored submissions with their system-level means (hidden ones only with
        ``include_hidden``)."""
        # One query: the means are SQL averages over the sentence rows (NULL chrF skipped,
        # as pandas' mean skips NaN), not a load of every submission's scores.
        means = [func.avg(getattr(SentenceRow, c)).label(c) for c in SCORE_COLUMNS]
        q = (select(SubmissionRow, *means).join(SentenceRow, SentenceRow.submission_id == SubmissionRow.id)
             .group_by(SubmissionRow.id))
        if dataset:
            q = q.where(SubmissionRow.dataset == dataset)
        if split:
            q = q.where(SubmissionRow.split == split)
        if preset:
            q = q.where(SubmissionRow.preset == preset)
        if not include_hidden:
            q = q.where(or_(SubmissionRow.hidden.is_(None), SubmissionRow.hidden == false()))
        with Session(self.engine) as s:
            out = []
            for r, *values in s.execute(q.order_by(SubmissionRow.created_at)).all():
                out.append({"id": r.id, "name": r.name, "sha256": r.sha256, "dataset": r.dataset, "split": r.split, "preset": r.preset,
                            "calibrated": r.calibrated, "source": r.source, "n": r.n,
                            **{c: (float(v) if v is not None else float("nan")) for c, v in zip(SCORE_COLUMNS, values)},
                            "created_at": r.created_at, "hidden": bool(r.hidden), "answered": _codes(r.answered)})
        return pd.DataFrame(out, columns=["id", "name", "sha256", "dataset", "split", "preset", "calibrated", "source", "n",
                                          *SCORE_COLUMNS, "created_at", "hidden", "answered"])

    def get(self, submission_id: int) -> StoredSubmission | None:
        with Session(self.engine) as s:
            row = s.get(SubmissionRow, submission_id)
            return self._meta(row) if row else None

    def scores(self, submission_id: int) -> pd.DataFrame:
        """Per-sentence rows of a stored submission, in input order: ``idx, input, output,
        lang`` (``""`` for a monolingual corpus), the scores and the raw scores (NaN where
        the recipe could not score an axis)."""
        with Session(self.engine) as s:
            rows = s.scalars(select(SentenceRow).where(SentenceRow.submission_id == submission_id)
                             .order_by(SentenceRow.idx)).all()
            cols = ["idx", "input", "output", "lang", *SCORE_COLUMNS, *RAW_COLUMNS]
            frame = pd.DataFrame([{c: getattr(r, c) for c in cols} for r in rows], columns=cols)
        frame["lang"] = frame["lang"].fillna("").astype(str)
        for c in (*SCORE_COLUMNS, *RAW_COLUMNS):
            frame[c] = frame[c].astype(float)
        return frame

    def names(self, but: int | None = None) -> list[str]:
        """Every stored submission's name, once (``but``: leaving that submission out)."""
        query = select(SubmissionRow.name)
        if but is not None:
            query = query.where(SubmissionRow.id != but)
        with Session(self.engine) as s:
            return list(s.scalars(query.distinct()))

    def check_name(self, name: str, submission_id: int | None = None) -> None:
        """Raise :func:`look_alike_error` for a name that reads as another stored one
        (``submission_id``: the submission being renamed, whose own name does not count;
        another submission of the same name does)."""
        if (err := look_alike_error(clean_name(name), self.names(but=submission_id))) is not None:
            raise err

    def rename(self, submission_id: int, name: str) -> str:
        """Give a stored submission another name (cleaned like an upload's); returns it.
        A name that looks like another stored one raises :class:`DetoxInputError`."""
        name = clean_name(name)
        self.check_name(name, submission_id)
        with self._lock, Session(self.engine) as s, s.begin():
            s.execute(update(SubmissionRow).where(SubmissionRow.id == submission_id).values(name=name))
        return name

    def record_answered(self, submission_id: int, answered: Sequence[str]) -> StoredSubmission | None:
        """Record the languages a stored submission's file answers where it was stored
        without them (before they were kept): the same file uploaded again fills them in."""
        with self._lock, Session(self.engine) as s, s.begin():
            row = s.get(SubmissionRow, submission_id)
            if row is None:
                return None
            if not row.answered and answered:
                row.answered = ",".join(answered)
            return self._meta(row)

    def fill_reference_scores(self, submission_id: int, columns: dict[str, Sequence[float]],
                              notes: dict[str, str]) -> None:
        """Write reference-metric columns (``bleu`` ...: one value per sentence, in ``idx``
        order; NaN stored empty) of a stored submission scored before they were computed,
        and record how they were computed in its signature (``signature["references"]``)."""
        allowed = set(REFERENCE_METRIC_COLUMNS)
        if not set(columns) <= allowed:
            raise ValueError(f"only reference columns can be filled: {sorted(allowed)}")
        with self._lock, Session(self.engine) as s, s.begin():
            row = s.get(SubmissionRow, submission_id)
            if row is None:
                return
            values = {k: [None if v != v else float(v) for v in vs] for k, vs in columns.items()}
            if any(len(vs) != row.n for vs in values.values()):
                raise ValueError(f"expected {row.n} values per column")
            if values:
                s.execute(update(SentenceRow), [{"submission_id": submission_id, "idx": i,
                                                 **{k: vs[i] for k, vs in values.items()}} for i in range(row.n)])
            signature = json.loads(row.signature)
            signature["references"] = {**(signature.get("references") or {}), **notes}
            row.signature = json.dumps(signature, ensure_ascii=False)

    def set_hidden(self, submission_id: int, hidden: bool) -> None:
        """Hide a submission from rankings, comparisons and new projects (or show it again)."""
        with self._lock, Session(self.engine) as s, s.begin():
            s.execute(update(SubmissionRow).where(SubmissionRow.id == submission_id).values(hidden=hidden))

    def remove(self, submission_id: int) -> None:
        with self._lock, Session(self.engine) as s, s.begin():
            s.execute(delete(SentenceRow).where(SentenceRow.submission_id == submission_id))
            s.execute(delete(SubmissionRow).where(SubmissionRow.id == submission_id))
