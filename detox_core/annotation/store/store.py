"""Annotation projects in the SQL database: items, annotators, pages and answers.

One project holds the pairs it judges (system, input, output), the items annotators
see (one per task and distinct text: identical outputs of two systems are judged
once), control items with their known answers, exam items, annotators, the pages
(assignments) handed out and every answer, committed as it is submitted.

Guarantees, kept by the database and by allocating pages in a write-locked
transaction (``db.writer``):

- an annotator never gets the same item twice (a unique key on annotator and item);
- no item gets more answers than the overlap: answers of annotators in good standing
  plus items reserved on open pages never exceed it (a ban frees its slots, so the
  item is asked again);
- an annotator never sees a control answer or another annotator's answer: the items
  a page returns carry only their texts.

Quality control runs on every submitted page: a ban for control accuracy under the
threshold (after a minimum number of control answers), for a page answered faster
than the minimum time, or for too many skipped pages. A banned annotator's later
pages are refused; the earlier answers stay stored and are left out of aggregation.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timedelta, timezone
from typing import Any

import pandas as pd
from sqlalchemy import (
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    delete,
    func,
    select,
    union_all,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from detox_core.annotation.controls import Control
from detox_core.annotation.tasks import TASKS, spec
from detox_core.errors import AnnotationError
from detox_core.db import default_url, guard_public_methods, make_engine, upgrade, writer


@dataclass
class Settings:
    """A project's quality-control thresholds and page layout (all configurable)."""

    overlap: int = 5
    page_size: int = 10
    controls_per_page: int = 2
    ban_control_accuracy: float = 0.7
    min_control_answers: int = 6
    min_page_seconds: float = 15.0
    max_skipped_pages: int = 5
    exam_pass: float = 0.8
    # Exam items each annotator gets, drawn from the project's exam pool (0 = the whole
    # pool): a pool larger than the exam gives each annotator other items.
    exam_size: int = 8
    # A failed exam or a ban holds for the address the annotator joined from, not only
    # for the name (turn off where annotators share one address, e.g. a lab behind NAT).
    one_attempt_per_address: bool = True
    page_timeout_minutes: float = 30.0
    aggregate_min_accuracy: float = 0.5
    review_confidence: float = 0.9
    method: str = "ds"
    training: bool = True

    @classmethod
    def from_json(cls, text: str) -> "Settings":
        """Settings stored by any version: unknown keys ignored, missing ones defaulted."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in json.loads(text).items() if k in known})

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def validate(self) -> None:
        if self.overlap < 1:
            raise AnnotationError("overlap must be at least 1")
        if self.page_size < 1:
            raise AnnotationError("items per page must be at least 1")
        if not 0 <= self.controls_per_page < self.page_size:
            raise AnnotationError("control items per page must be fewer than the items per page")
        if self.method not in ("ds", "mv"):
            raise AnnotationError("the aggregation method is ds (Dawid-Skene) or mv (majority vote)")
        for name in ("ban_control_accuracy", "exam_pass", "aggregate_min_accuracy", "review_confidence"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise AnnotationError(f"{name} must be between 0 and 1")


class Base(DeclarativeBase):
    pass


class ProjectRow(Base):
    __tablename__ = "ann_projects"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    access_code: Mapped[str] = mapped_column(String(64), unique=True)
    dataset: Mapped[str] = mapped_column(String(100), default="")
    tasks: Mapped[str] = mapped_column(Text)  # JSON list
    settings: Mapped[str] = mapped_column(Text)  # JSON of Settings
    status: Mapped[str] = mapped_column(String(20), default="open")
    created_at: Mapped[datetime] = mapped_column(DateTime)


class PairRow(Base):
    __tablename__ = "ann_pairs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("ann_projects.id", ondelete="CASCADE"), index=True)
    system: Mapped[str] = mapped_column(String(200))
    idx: Mapped[int] = mapped_column(Integer)
    input: Mapped[str] = mapped_column(Text)
    output: Mapped[str] = mapped_column(Text)


class ItemRow(Base):
    __tablename__ = "ann_items"
    __table_args__ = (Index("ix_ann_items_pick", "project_id", "task", "kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("ann_projects.id", ondelete="CASCADE"), index=True)
    task: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(20))  # real | control | exam
    text: Mapped[str] = mapped_column(Text)
    input: Mapped[str] = mapped_column(Text, default="")
    golden: Mapped[float | None] = mapped_column(Float, nullable=True)
    explanation: Mapped[str] = mapped_column(Text, default="")
    expert_label: Mapped[float | None] = mapped_column(Float, nullable=True)
    expert_name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    expert_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class AnnotatorRow(Base):
    __tablename__ = "ann_annotators"
    __table_args__ = (UniqueConstraint("project_id", "name", name="uq_annotator_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("ann_projects.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20))  # training | exam | active | failed | banned
    exam_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    ban_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime)
    banned_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # scrypt of the annotator's own password (salt$hash, hex); NULL for annotators who
    # joined before passwords existed or through the library without one.
    secret_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # Hash of the address the annotator joined from: a failed or banned person cannot
    # start again under a new name from there (Settings.one_attempt_per_address).
    client: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)


class AssignmentRow(Base):
    __tablename__ = "ann_assignments"
    __table_args__ = (Index("ix_ann_assignments_open", "project_id", "task", "status"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("ann_projects.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("ann_annotators.id", ondelete="CASCADE"), index=True)
    task: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(20))  # work | exam
    status: Mapped[str] = mapped_column(String(20))  # open | submitted | skipped | expired
    created_at: Mapped[datetime] = mapped_column(DateTime)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class AssignmentItemRow(Base):
    __tablename__ = "ann_assignment_items"
    # The database itself refuses to give an annotator the same item twice.
    __table_args__ = (UniqueConstraint("annotator_id", "item_id", name="uq_seen_once"),)

    assignment_id: Mapped[int] = mapped_column(ForeignKey("ann_assignments.id", ondelete="CASCADE"), primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("ann_items.id", ondelete="CASCADE"), primary_key=True, index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("ann_annotators.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)


class AnswerRow(Base):
    __tablename__ = "ann_answers"
    __table_args__ = (UniqueConstraint("annotator_id", "item_id", name="uq_answer_once"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("ann_assignments.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("ann_annotators.id", ondelete="CASCADE"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("ann_items.id", ondelete="CASCADE"), index=True)
    label: Mapped[float] = mapped_column(Float)
    seconds: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime)


# --------------------------------------------------------------------------- views


@dataclass(frozen=True)
class Project:
    id: int
    name: str
    access_code: str
    dataset: str
    tasks: tuple[str, ...]
    settings: Settings
    status: str
    created_at: datetime


@dataclass(frozen=True)
class Annotator:
    id: int
    project_id: int
    name: str
    status: str
    exam_score: float | None
    ban_reason: str | None


@dataclass(frozen=True)
class ItemView:
    """What an annotator sees of an item: never its kind, answer or other answers."""

    id: int
    task: str
    text: str
    input: str = ""


@dataclass(frozen=True)
class Page:
    assignment_id: int
    task: str
    kind: str
    items: tuple[ItemView, ...]
    created_at: datetime


@dataclass(frozen=True)
class PageResult:
    accepted: int
    seconds: float
    banned: bool
    reason: str | None
    control_answers: int
    control_accuracy: float | None


@dataclass(frozen=True)
class ExamResult:
    score: float
    correct: int
    total: int
    passed: bool
    mistakes: tuple[dict[str, Any], ...] = field(default_factory=tuple)


def utc_now() -> datetime:
    """Now, as the store keeps times: naive UTC."""
    return datetime.now(timezone.utc).replace(tzinfo=None)  # stored as naive UTC on every database


def _naive(moment: datetime | None) -> datetime:
    if moment is None:
        return utc_now()
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def _project(row: ProjectRow) -> Project:
    return Project(row.id, row.name, row.access_code, row.dataset, tuple(json.loads(row.tasks)),
                   Settings.from_json(row.settings), row.status, row.created_at)


#: Shortest annotator password accepted.
MIN_SECRET_CHARS = 6


def hash_secret(secret: str) -> str:
    """``salt$hash`` of an annotator's password (scrypt, a random 16-byte salt)."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    return f"{salt.hex()}${digest.hex()}"


def check_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the password stored as ``salt$hash`` (constant-time compare)."""
    try:
        salt, digest = stored.split("$", 1)
        got = hashlib.scrypt(secret.encode(), salt=bytes.fromhex(salt), n=2**14, r=8, p=1, dklen=32)
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


def _draw_exam(pool: Sequence[tuple[int, str]], size: int, rng: random.Random) -> list[int]:
    """``size`` exam item ids drawn from ``pool`` (id, task), the tasks taking turns so
    that each is asked; the whole pool, shuffled, when ``size`` is 0 or not smaller."""
    ids = [i for i, _ in pool]
    if size <= 0 or size >= len(ids):
        rng.shuffle(ids)
        return ids
    by_task: dict[str, list[int]] = {}
    for i, task in pool:
        by_task.setdefault(task, []).append(i)
    for group in by_task.values():
        rng.shuffle(group)
    drawn: list[int] = []
    while len(drawn) < size:
        for group in by_task.values():
            if group and len(drawn) < size:
                drawn.append(group.pop())
    rng.shuffle(drawn)
    return drawn


def _annotator(row: AnnotatorRow) -> Annotator:
    return Annotator(row.id, row.project_id, row.name, row.status, row.exam_score, row.ban_reason)


def _check_label(task: str, label: float) -> float:
    allowed = [v for v, _ in spec(task).options]
    try:
        value = float(label)
    except (TypeError, ValueError):
        raise AnnotationError(f"{label!r} is not an answer of the {task} task") from None
    if value not in allowed:
        raise AnnotationError(f"{label!r} is not an answer of the {task} task (expected one of {allowed})")
    return value


@guard_public_methods("use the annotation database")
class AnnotationStore:
    """Annotation projects in a SQL database (``$DETOX_DB_URL`` or ``data/detox.sqlite``)."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_url()
        self.engine: Engine = make_engine(self.url)
        self.upgrades = upgrade(self.engine, Base.metadata)
        self._writer = writer(self.engine)
        self._lock = threading.Lock()  # one writer per process; the database serialises processes

    def _write(self) -> Session:
        return Session(self._writer)

    # ------------------------------------------------------------------ projects

    def create_project(self, name: str, tasks: Sequence[str], pairs: pd.DataFrame, *,
                       controls: Sequence[Control] = (), exam: Sequence[Control] = (),
                       settings: Settings | None = None, dataset: str = "", access_code: str | None = None) -> Project:
        """Create a project judging ``pairs`` (columns ``system``, ``idx``, ``input``,
        ``output``) on ``tasks``, with control and exam items.

        Raises:
            AnnotationError: empty name or pairs, a name or code in use, unknown task,
                control items of a task the project does not ask.
        """
        settings = settings or Settings()
        settings.validate()
        name = name.strip()
        if not name:
            raise AnnotationError("the project needs a name")
        if len(name) > 200 or any(ord(c) < 32 or c == "\x7f" for c in name):
            raise AnnotationError("the project name must be at most 200 characters, without control characters")
        unknown = sorted(set(tasks) - set(TASKS))
        tasks = [t for t in TASKS if t in set(tasks)]
        if not tasks or unknown:
            raise AnnotationError(f"choose one or more tasks of {', '.join(TASKS)}"
                                  + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
        missing = {"system", "idx", "input", "output"} - set(pairs.columns)
        if missing:
            raise AnnotationError(f"pairs lack the columns {', '.join(sorted(missing))}")
        if pairs.empty:
            raise AnnotationError("the project has no pairs to judge")
        _check_control_tasks((*controls, *exam), tasks)
        code = access_code or secrets.token_urlsafe(6)
        with self._lock, self._write() as s, s.begin():
            if s.scalar(select(func.count()).select_from(ProjectRow).where(ProjectRow.name == name)):
                raise AnnotationError(f"a project named {name!r} exists")
            if s.scalar(select(func.count()).select_from(ProjectRow).where(ProjectRow.access_code == code)):
                raise AnnotationError("that access code is in use by another project")
            row = ProjectRow(name=name, access_code=code, dataset=dataset, tasks=json.dumps(tasks),
                             settings=settings.to_json(), status="open", created_at=utc_now())
            s.add(row)
            s.flush()
            s.add_all(PairRow(project_id=row.id, system=str(p.system), idx=int(p.idx), input=str(p.input),
                              output=str(p.output)) for p in pairs.itertuples(index=False))
            seen: set[tuple[str, str, str]] = set()
            items = []
            for key in _real_item_keys(pairs, tasks):
                if key not in seen:
                    seen.add(key)
                    items.append(ItemRow(project_id=row.id, task=key[0], kind="real", input=key[1], text=key[2]))
            items += _control_rows(row.id, controls, "control") + _control_rows(row.id, exam, "exam")
            s.add_all(items)
            s.flush()
            return _project(row)

    def projects(self) -> list[Project]:
        with Session(self.engine) as s:
            return [_project(r) for r in s.scalars(select(ProjectRow).order_by(ProjectRow.created_at))]

    def project(self, project_id: int) -> Project:
        with Session(self.engine) as s:
            return _project(_get(s, ProjectRow, project_id, "project"))

    def update_settings(self, project_id: int, settings: Settings, status: str | None = None) -> Project:
        settings.validate()
        with self._lock, self._write() as s, s.begin():
            row = _get(s, ProjectRow, project_id, "project")
            row.settings = settings.to_json()
            if status:
                row.status = status
            return _project(row)

    def delete_project(self, project_id: int) -> None:
        """Delete a project with its items, annotators, pages and answers."""
        pages = select(AssignmentRow.id).where(AssignmentRow.project_id == project_id)
        items = select(ItemRow.id).where(ItemRow.project_id == project_id)
        with self._lock, self._write() as s, s.begin():
            _get(s, ProjectRow, project_id, "project")
            s.execute(delete(AnswerRow).where(AnswerRow.item_id.in_(items)))
            s.execute(delete(AssignmentItemRow).where(AssignmentItemRow.assignment_id.in_(pages)))
            for table in (AssignmentRow, AnnotatorRow, ItemRow, PairRow):
                s.execute(delete(table).where(table.project_id == project_id))
            s.execute(delete(ProjectRow).where(ProjectRow.id == project_id))

    def raw_answers(self, project_id: int) -> pd.DataFrame:
        """Every answer with its item's texts, for analysis elsewhere: ``annotator``,
        ``status`` (the annotator's), ``task``, ``kind`` (real | control | exam),
        ``input``, ``text``, ``label``, ``golden``, ``seconds``, ``submitted_at``."""
        texts = self.items(project_id)[["item", "input", "text"]]
        return (self.answers(project_id, exam=True).merge(texts, left_on="task", right_on="item")
                .rename(columns={"worker": "annotator", "task": "item_id", "item_task": "task",
                                 "created_at": "submitted_at"})
                [["annotator", "status", "task", "kind", "input", "text", "label", "golden", "seconds",
                  "submitted_at"]])

    def add_controls(self, project_id: int, controls: Sequence[Control], kind: str = "control") -> int:
        _check_control_tasks(controls, self.project(project_id).tasks)
        with self._lock, self._write() as s, s.begin():
            s.add_all(_control_rows(project_id, controls, kind))
        return len(controls)

    # ------------------------------------------------------------------ annotators

    def join(self, access_code: str, name: str, secret: str | None = None, client: str | None = None) -> Annotator:
        """Join the project of ``access_code`` as ``name``, or come back as ``name``.

        Args:
            secret: the annotator's own password. Chosen on joining (at least
                :data:`MIN_SECRET_CHARS` characters) and asked again on every return, so
                that knowing the access code and a name is not enough to act as someone.
                ``None`` only for annotators who have none (library use, older data).
            client: where the person joins from (an address); with the project's
                ``one_attempt_per_address``, a new name from an address whose earlier
                annotator failed the exam or was banned is refused.

        Raises:
            AnnotationError: a wrong or missing password, a bad name or access code.
        """
        name = " ".join(name.split())
        if not name:
            raise AnnotationError("enter your name")
        if len(name) > 200:
            raise AnnotationError("the name is longer than 200 characters")
        if any(ord(c) < 32 or c == "\x7f" for c in name):
            raise AnnotationError("the name has a control character (such as NUL): type it again")
        with self._lock, self._write() as s, s.begin():
            project = s.scalars(select(ProjectRow).where(ProjectRow.access_code == access_code.strip())).first()
            if project is None:
                raise AnnotationError("no project has this access code")
            row = s.scalars(select(AnnotatorRow).where(AnnotatorRow.project_id == project.id,
                                                       AnnotatorRow.name == name)).first()
            if secret is not None and len(secret) < MIN_SECRET_CHARS:
                raise AnnotationError(f"the password needs at least {MIN_SECRET_CHARS} characters")
            client_hash = hashlib.sha256(f"{project.id}:{client}".encode()).hexdigest()[:32] if client else None
            if row is None:
                if project.status != "open":
                    raise AnnotationError("this project is closed")
                settings = Settings.from_json(project.settings)
                if client_hash and settings.one_attempt_per_address and s.scalar(
                        select(func.count()).select_from(AnnotatorRow).where(
                            AnnotatorRow.project_id == project.id, AnnotatorRow.client == client_hash,
                            AnnotatorRow.status.in_(("failed", "banned")))):
                    raise AnnotationError("an earlier attempt from your connection was not admitted or was stopped "
                                          "in this project; if that was someone else, ask the organizer")
                status = "training" if settings.training else ("exam" if _has_exam(s, project.id) else "active")
                row = AnnotatorRow(project_id=project.id, name=name, status=status, joined_at=utc_now(),
                                   secret_hash=hash_secret(secret) if secret is not None else None,
                                   client=client_hash)
                s.add(row)
                s.flush()
            elif row.secret_hash is not None:
                if secret is None or not check_secret(secret, row.secret_hash):
                    raise AnnotationError("this name is taken in this project and the password does not match: "
                                          "type your own password, or join under another name")
            elif secret is not None:
                row.secret_hash = hash_secret(secret)  # joined before passwords existed: this one is theirs now
            return _annotator(row)

    def annotator(self, annotator_id: int) -> Annotator:
        with Session(self.engine) as s:
            return _annotator(_get(s, AnnotatorRow, annotator_id, "annotator"))

    def annotator_progress(self, annotator_id: int) -> dict[str, int]:
        """What an annotator has done: work pages submitted and skipped, answers given."""
        with Session(self.engine) as s:
            pages = dict(s.execute(select(AssignmentRow.status, func.count()).where(
                AssignmentRow.annotator_id == annotator_id, AssignmentRow.kind == "work")
                .group_by(AssignmentRow.status)).all())
            answers = s.scalar(select(func.count()).select_from(AnswerRow).join(
                AssignmentRow, AssignmentRow.id == AnswerRow.assignment_id).where(
                AnswerRow.annotator_id == annotator_id, AssignmentRow.kind == "work"))
        return {"submitted": pages.get("submitted", 0), "skipped": pages.get("skipped", 0), "answers": answers or 0}

    def finish_training(self, annotator_id: int) -> Annotator:
        """Training done: on to the exam (or straight to work when the project has none)."""
        with self._lock, self._write() as s, s.begin():
            row = _get(s, AnnotatorRow, annotator_id, "annotator")
            if row.status == "training":
                row.status = "exam" if _has_exam(s, row.project_id) else "active"
            return _annotator(row)

    def admit(self, annotator_id: int) -> Annotator:
        """Admit an annotator without training and exam (for imports and tests)."""
        with self._lock, self._write() as s, s.begin():
            row = _get(s, AnnotatorRow, annotator_id, "annotator")
            if row.status in ("training", "exam"):
                row.status = "active"
            return _annotator(row)

    def exam(self, annotator_id: int) -> Page:
        """The exam page (all exam items, in a random order), the same on every call."""
        with self._lock, self._write() as s, s.begin():
            ann = _get(s, AnnotatorRow, annotator_id, "annotator")
            if ann.status != "exam":
                raise AnnotationError(f"the exam is not open to you (status: {ann.status})")
            asg = s.scalars(select(AssignmentRow).where(AssignmentRow.annotator_id == annotator_id,
                                                        AssignmentRow.kind == "exam")).first()
            if asg is None:
                pool = list(s.execute(select(ItemRow.id, ItemRow.task).where(ItemRow.project_id == ann.project_id,
                                                                            ItemRow.kind == "exam")))
                size = Settings.from_json(s.get(ProjectRow, ann.project_id).settings).exam_size
                ids = _draw_exam(pool, size, random.Random())
                asg = AssignmentRow(project_id=ann.project_id, annotator_id=annotator_id, task="mixed", kind="exam",
                                    status="open", created_at=utc_now())
                s.add(asg)
                s.flush()
                s.add_all(AssignmentItemRow(assignment_id=asg.id, item_id=i, annotator_id=annotator_id, position=p)
                          for p, i in enumerate(ids))
            return self._page(s, asg)

    def submit_exam(self, annotator_id: int, answers: Mapping[int, float], now: datetime | None = None) -> ExamResult:
        """Grade the exam: admitted (``active``) at the project's pass mark, else ``failed``."""
        page = self.exam(annotator_id)
        now = _naive(now)
        with self._lock, self._write() as s, s.begin():
            ann = s.get(AnnotatorRow, annotator_id)
            settings = Settings.from_json(s.get(ProjectRow, ann.project_id).settings)
            asg = s.get(AssignmentRow, page.assignment_id)
            items = {i.id: s.get(ItemRow, i.id) for i in page.items}
            _check_complete(items, answers)
            correct, mistakes = 0, []
            for item_id, item in items.items():
                label = _check_label(item.task, answers[item_id])
                s.add(AnswerRow(assignment_id=asg.id, annotator_id=annotator_id, item_id=item_id, label=label,
                                seconds=(now - asg.created_at).total_seconds() / len(items), created_at=now))
                if label == item.golden:
                    correct += 1
                else:
                    mistakes.append({"task": item.task, "input": item.input, "text": item.text,
                                     "answer": spec(item.task).answer_text(label),
                                     "expected": spec(item.task).answer_text(item.golden),
                                     "explanation": item.explanation})
            score = correct / len(items) if items else 1.0
            passed = score >= settings.exam_pass
            asg.status, asg.closed_at = "submitted", now
            ann.exam_score = score
            ann.status = "active" if passed else "failed"
            return ExamResult(score, correct, len(items), passed, tuple(mistakes))

    # ------------------------------------------------------------------ work pages

    def next_page(self, annotator_id: int, task: str, now: datetime | None = None) -> Page | None:
        """The annotator's open page of ``task``, or a new one; None when no item is left
        for them. Control items are placed at random positions among the real ones.

        Raises:
            AnnotationError: the annotator is not admitted, is banned, or the project
                does not ask ``task``.
        """
        now = _naive(now)
        with self._lock, self._write() as s, s.begin():
            ann, project = self._locked(s, annotator_id)
            if task not in json.loads(project.tasks):
                raise AnnotationError(f"the project does not ask the {task} task")
            if project.status != "open":
                raise AnnotationError("this project is closed")
            settings = Settings.from_json(project.settings)
            self._expire(s, project.id, settings, now)
            open_page = s.scalars(select(AssignmentRow).where(
                AssignmentRow.annotator_id == annotator_id, AssignmentRow.kind == "work",
                AssignmentRow.task == task, AssignmentRow.status == "open")).first()
            if open_page is not None:
                return self._page(s, open_page)
            n_real = max(1, settings.page_size - settings.controls_per_page)
            usage = self._usage(project.id, task)
            used = func.coalesce(usage.c.n, 0)
            unseen = ~select(AssignmentItemRow.item_id).where(
                AssignmentItemRow.annotator_id == annotator_id, AssignmentItemRow.item_id == ItemRow.id).exists()
            # Fill the items closest to done first, so that finished labels appear early.
            chosen = list(s.scalars(
                select(ItemRow.id).outerjoin(usage, usage.c.item_id == ItemRow.id)
                .where(ItemRow.project_id == project.id, ItemRow.task == task, ItemRow.kind == "real",
                       used < settings.overlap, unseen)
                .order_by(used.desc(), func.random()).limit(n_real)))
            if not chosen:
                return None
            chosen += s.scalars(
                select(ItemRow.id).where(ItemRow.project_id == project.id, ItemRow.task == task,
                                         ItemRow.kind == "control", unseen)
                .order_by(func.random()).limit(settings.controls_per_page))
            random.shuffle(chosen)
            asg = AssignmentRow(project_id=project.id, annotator_id=annotator_id, task=task, kind="work",
                                status="open", created_at=now)
            s.add(asg)
            s.flush()
            s.add_all(AssignmentItemRow(assignment_id=asg.id, item_id=i, annotator_id=annotator_id, position=p)
                      for p, i in enumerate(chosen))
            s.flush()
            return self._page(s, asg)

    def submit_page(self, annotator_id: int, assignment_id: int, answers: Mapping[int, float],
                    now: datetime | None = None) -> PageResult:
        """Store a page's answers (one transaction) and run quality control.

        Raises:
            AnnotationError: a banned annotator, a page that is not theirs or no longer
                open (submitted, skipped or expired), a missing or unknown answer.
        """
        now = _naive(now)
        with self._lock, self._write() as s, s.begin():
            ann, asg, settings = self._open_page(s, annotator_id, assignment_id, now)
            items = {r.id: r for r in s.scalars(select(ItemRow).join(
                AssignmentItemRow, AssignmentItemRow.item_id == ItemRow.id).where(
                AssignmentItemRow.assignment_id == assignment_id))}
            _check_complete(items, answers)
            labels = {i: _check_label(items[i].task, answers[i]) for i in items}
            seconds = (now - asg.created_at).total_seconds()
            s.add_all(AnswerRow(assignment_id=asg.id, annotator_id=annotator_id, item_id=i, label=v,
                                seconds=seconds / len(items), created_at=now) for i, v in labels.items())
            asg.status, asg.closed_at = "submitted", now
            s.flush()
            n_ctrl, acc = self._control_accuracy(s, annotator_id)
            reason = None
            if seconds < settings.min_page_seconds:
                reason = (f"a page of {len(items)} items answered in {seconds:.0f} s "
                          f"(minimum {settings.min_page_seconds:g} s)")
            elif n_ctrl >= settings.min_control_answers and acc is not None and acc < settings.ban_control_accuracy:
                reason = (f"control accuracy {acc:.0%} over {n_ctrl} control answers "
                          f"(minimum {settings.ban_control_accuracy:.0%})")
            if reason:
                ann.status, ann.ban_reason, ann.banned_at = "banned", reason, now
            return PageResult(len(items), seconds, reason is not None, reason, n_ctrl, acc)

    def skip_page(self, annotator_id: int, assignment_id: int, now: datetime | None = None) -> PageResult:
        """Skip a page: its items go to others (never back to this annotator); too many
        skipped pages ban."""
        now = _naive(now)
        with self._lock, self._write() as s, s.begin():
            ann, asg, settings = self._open_page(s, annotator_id, assignment_id, now)
            asg.status, asg.closed_at = "skipped", now
            s.flush()
            skipped = s.scalar(select(func.count()).select_from(AssignmentRow).where(
                AssignmentRow.annotator_id == annotator_id, AssignmentRow.status == "skipped"))
            reason = None
            if skipped >= settings.max_skipped_pages:
                reason = f"{skipped} pages skipped (maximum {settings.max_skipped_pages - 1})"
                ann.status, ann.ban_reason, ann.banned_at = "banned", reason, now
            n_ctrl, acc = self._control_accuracy(s, annotator_id)
            return PageResult(0, (now - asg.created_at).total_seconds(), reason is not None, reason, n_ctrl, acc)

    @staticmethod
    def _locked(s: Session, annotator_id: int) -> tuple[AnnotatorRow, ProjectRow]:
        """An admitted annotator and their project, locked: page changes of a project run
        one at a time (SQLite: the write lock taken at BEGIN; others: the project row)."""
        ann = _get(s, AnnotatorRow, annotator_id, "annotator")
        project = s.scalars(select(ProjectRow).where(ProjectRow.id == ann.project_id).with_for_update()).one()
        s.refresh(ann)  # as of the lock
        _require_active(ann)
        return ann, project

    def _open_page(self, s: Session, annotator_id: int, assignment_id: int,
                   now: datetime) -> tuple[AnnotatorRow, AssignmentRow, Settings]:
        ann, project = self._locked(s, annotator_id)
        asg = s.get(AssignmentRow, assignment_id)
        if asg is None or asg.annotator_id != annotator_id or asg.kind != "work":
            raise AnnotationError("this page is not yours")
        settings = Settings.from_json(project.settings)
        if asg.status == "open" and now - asg.created_at > timedelta(minutes=settings.page_timeout_minutes):
            # Its items may be with others by now; the next allocation marks it expired.
            raise AnnotationError(f"this page expired after {settings.page_timeout_minutes:g} minutes; "
                                  "take the next one")
        if asg.status != "open":
            raise AnnotationError(f"this page is no longer open ({asg.status}); take the next one")
        return ann, asg, settings

    @staticmethod
    def _expire(s: Session, project_id: int, settings: Settings, now: datetime) -> None:
        cutoff = now - timedelta(minutes=settings.page_timeout_minutes)
        s.execute(update(AssignmentRow).where(
            AssignmentRow.project_id == project_id, AssignmentRow.status == "open", AssignmentRow.kind == "work",
            AssignmentRow.created_at < cutoff).values(status="expired", closed_at=now))

    @staticmethod
    def _usage(project_id: int, task: str):
        """Per real item (``item_id``, ``n``): answers of annotators in good standing plus
        open reservations.

        Used inside one statement, so one snapshot: a page submitted meanwhile (its
        reservation turning into answers) is counted once, never zero times.
        """
        good = AnnotatorRow.status != "banned"
        answered = (select(AnswerRow.item_id.label("item_id"))
                    .join(ItemRow, ItemRow.id == AnswerRow.item_id)
                    .join(AnnotatorRow, AnnotatorRow.id == AnswerRow.annotator_id)
                    .where(ItemRow.project_id == project_id, ItemRow.task == task, ItemRow.kind == "real", good))
        reserved = (select(AssignmentItemRow.item_id.label("item_id"))
                    .join(AssignmentRow, AssignmentRow.id == AssignmentItemRow.assignment_id)
                    .join(AnnotatorRow, AnnotatorRow.id == AssignmentRow.annotator_id)
                    .where(AssignmentRow.project_id == project_id, AssignmentRow.task == task,
                           AssignmentRow.kind == "work", AssignmentRow.status == "open", good))
        both = union_all(answered, reserved).subquery()
        return select(both.c.item_id, func.count().label("n")).group_by(both.c.item_id).subquery()

    @staticmethod
    def _control_accuracy(s: Session, annotator_id: int) -> tuple[int, float | None]:
        rows = s.execute(select(AnswerRow.label, ItemRow.golden).join(ItemRow, ItemRow.id == AnswerRow.item_id)
                         .where(AnswerRow.annotator_id == annotator_id, ItemRow.kind == "control")).all()
        if not rows:
            return 0, None
        return len(rows), sum(label == golden for label, golden in rows) / len(rows)

    @staticmethod
    def _page(s: Session, asg: AssignmentRow) -> Page:
        rows = s.execute(select(ItemRow).join(AssignmentItemRow, AssignmentItemRow.item_id == ItemRow.id)
                         .where(AssignmentItemRow.assignment_id == asg.id)
                         .order_by(AssignmentItemRow.position)).scalars().all()
        return Page(asg.id, asg.task, asg.kind, tuple(ItemView(r.id, r.task, r.text, r.input) for r in rows),
                    asg.created_at.replace(tzinfo=timezone.utc))

    # ------------------------------------------------------------------ organizer views

    def answers(self, project_id: int, exam: bool = False) -> pd.DataFrame:
        """Every stored answer of the project's work pages (and exams with ``exam``), in
        the order given: ``worker`` (annotator name), ``task`` (item id), ``label``,
        ``golden`` (control items), ``seconds``, ``item_task``, ``kind``, ``status`` (the
        annotator's), ``created_at``."""
        q = (select(AnnotatorRow.name, AnswerRow.item_id, AnswerRow.label, ItemRow.golden, AnswerRow.seconds,
                    ItemRow.task, ItemRow.kind, AnnotatorRow.status, AnswerRow.created_at)
             .join(ItemRow, ItemRow.id == AnswerRow.item_id)
             .join(AnnotatorRow, AnnotatorRow.id == AnswerRow.annotator_id)
             .where(ItemRow.project_id == project_id, *([] if exam else [ItemRow.kind != "exam"]))
             .order_by(AnswerRow.id))
        cols = ["worker", "task", "label", "golden", "seconds", "item_task", "kind", "status", "created_at"]
        with Session(self.engine) as s:
            frame = pd.DataFrame(s.execute(q).all(), columns=cols)
        frame["golden"] = frame["golden"].astype(float)
        frame["label"] = frame["label"].astype(float)
        return frame

    def items(self, project_id: int, kind: str | None = None) -> pd.DataFrame:
        q = select(ItemRow.id, ItemRow.task, ItemRow.kind, ItemRow.input, ItemRow.text, ItemRow.golden,
                   ItemRow.expert_label, ItemRow.expert_name).where(ItemRow.project_id == project_id)
        if kind:
            q = q.where(ItemRow.kind == kind)
        with Session(self.engine) as s:
            frame = pd.DataFrame(s.execute(q.order_by(ItemRow.id)).all(),
                                 columns=["item", "task", "kind", "input", "text", "golden", "expert_label", "expert_name"])
        for c in ("golden", "expert_label"):
            frame[c] = frame[c].astype(float)
        return frame

    def pairs(self, project_id: int) -> pd.DataFrame:
        with Session(self.engine) as s:
            rows = s.execute(select(PairRow.system, PairRow.idx, PairRow.input, PairRow.output)
                             .where(PairRow.project_id == project_id).order_by(PairRow.id)).all()
        return pd.DataFrame(rows, columns=["system", "idx", "input", "output"])

    def annotators(self, project_id: int) -> pd.DataFrame:
        with Session(self.engine) as s:
            rows = s.execute(select(AnnotatorRow.id, AnnotatorRow.name, AnnotatorRow.status, AnnotatorRow.exam_score,
                                    AnnotatorRow.ban_reason, AnnotatorRow.joined_at, AnnotatorRow.banned_at)
                             .where(AnnotatorRow.project_id == project_id).order_by(AnnotatorRow.id)).all()
        return pd.DataFrame(rows, columns=["id", "name", "status", "exam_score", "ban_reason", "joined_at", "banned_at"])

    def set_expert_label(self, item_id: int, label: float | None, expert: str) -> None:
        """The organizer's final label of an item (None clears it)."""
        with self._lock, self._write() as s, s.begin():
            item = _get(s, ItemRow, item_id, "item")
            item.expert_label = None if label is None else _check_label(item.task, label)
            item.expert_name = None if label is None else expert
            item.expert_at = None if label is None else utc_now()

    def stamp(self) -> tuple:
        """A cache key that changes whenever an answer, an expert label, a project, its
        settings or an annotator (joined, admitted, failed, banned) changes."""
        with Session(self.engine) as s:
            return (s.scalar(select(func.count()).select_from(AnswerRow)),
                    s.scalar(select(func.max(AnswerRow.id))),
                    s.scalar(select(func.count()).select_from(ItemRow).where(ItemRow.expert_label.is_not(None))),
                    s.scalar(select(func.max(ItemRow.expert_at))),
                    s.scalar(select(func.count()).select_from(ProjectRow)),
                    tuple(s.scalars(select(ProjectRow.settings))),
                    tuple((status, n) for status, n in s.execute(
                        select(AnnotatorRow.status, func.count()).group_by(AnnotatorRow.status)
                        .order_by(AnnotatorRow.status))))


def _has_exam(s: Session, project_id: int) -> bool:
    return bool(s.scalar(select(func.count()).select_from(ItemRow).where(
        ItemRow.project_id == project_id, ItemRow.kind == "exam")))


def _get(s: Session, row_type: type, row_id: int, what: str):
    row = s.get(row_type, row_id)
    if row is None:
        raise AnnotationError(f"no {what} with id {row_id}")
    return row


def _check_control_tasks(controls: Sequence[Control], tasks: Sequence[str]) -> None:
    for c in controls:
        if c.task not in tasks:
            raise AnnotationError(f"a control item of the {c.task} task, which the project does not ask")


def _control_rows(project_id: int, controls: Sequence[Control], kind: str) -> list[ItemRow]:
    return [ItemRow(project_id=project_id, task=c.task, kind=kind, text=c.text, input=c.input, golden=c.golden,
                    explanation=c.explanation) for c in controls]


def _require_active(ann: AnnotatorRow) -> None:
    if ann.status == "banned":
        raise AnnotationError(f"your answers are no longer accepted: {ann.ban_reason}")
    if ann.status == "failed":
        raise AnnotationError("you did not pass the exam of this project")
    if ann.status != "active":
        raise AnnotationError("finish the training and the exam first")


def _check_complete(items: Mapping[int, Any], answers: Mapping[int, float]) -> None:
    missing = [i for i in items if answers.get(i) is None]
    extra = [i for i in answers if i not in items]
    if extra:
        raise AnnotationError(f"answers to items that are not on this page: {extra}")
    if missing:
        raise AnnotationError(f"{len(missing)} of {len(items)} items have no answer yet")


def _real_item_keys(pairs: pd.DataFrame, tasks: Sequence[str]) -> list[tuple[str, str, str]]:
    """(task, input, text) of the items that judge ``pairs``: toxicity of the output,
    content of input and output, fluency of the input and of the output."""
    keys = []
    for p in pairs.itertuples(index=False):
        inp, out = str(p.input), str(p.output)
        if "toxicity" in tasks:
            keys.append(("toxicity", "", out))
        if "content" in tasks:
            keys.append(("content", inp, out))
        if "fluency" in tasks:
            keys += [("fluency", "", inp), ("fluency", "", out)]
    return keys
