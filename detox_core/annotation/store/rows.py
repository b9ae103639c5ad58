"""The annotation store's tables (SQLAlchemy declarative rows).

Schema changes are additive and applied on start by :func:`detox_core.db.upgrade`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


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
    # ISO code of the pair's language; "" (or NULL, in databases made before languages)
    # for a monolingual project.
    lang: Mapped[str | None] = mapped_column(String(16), nullable=True)


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
    lang: Mapped[str | None] = mapped_column(String(16), nullable=True)  # as PairRow.lang


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
    # The annotator's own password, hashed (detox_core.annotation.passwords: argon2id with its
    # parameters, about 100 characters; older releases' scrypt salt$hash in hex until the next
    # sign-in upgrades it); NULL for annotators who joined before passwords existed or
    # through the library without one.
    secret_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # Hash of the address the annotator joined from: with an address limit, a failed or
    # banned person cannot start again under a new name from there
    # (Settings.max_refused_per_address).
    client: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    # When an organizer last re-admitted or unbanned the annotator: the quality rules
    # count control answers and skipped pages from then on (a fresh start).
    readmitted_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    # The language whose items the annotator judges (chosen once, in a project of several
    # languages); NULL: every language of the project (a monolingual one, older data).
    lang: Mapped[str | None] = mapped_column(String(16), nullable=True)


class ExampleRow(Base):
    """A worked example the organizer uploaded for one language of a project."""

    __tablename__ = "ann_examples"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("ann_projects.id", ondelete="CASCADE"), index=True)
    lang: Mapped[str] = mapped_column(String(16))
    task: Mapped[str] = mapped_column(String(20))
    input: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text)
    label: Mapped[float] = mapped_column(Float)
    explanation: Mapped[str] = mapped_column(Text, default="")


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


class EventRow(Base):
    """The project's log: who was refused and why, and what organizers did about it.

    ``kind``: ``exam_failed``, ``banned``, ``join_refused`` (the address limit),
    ``readmitted`` (a failed annotator admitted), ``unbanned``, ``address_allowed``,
    ``controls_screened`` (at creation: the generated control items the screening dropped).
    """

    __tablename__ = "ann_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("ann_projects.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int | None] = mapped_column(Integer, nullable=True)  # none for a refused join
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))
    detail: Mapped[str] = mapped_column(Text, default="")  # the score, the rule, the organizer's reason
    actor: Mapped[str] = mapped_column(String(200), default="")  # "" for the rules, else the organizer
    client: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the address hash of a refused join
    created_at: Mapped[datetime] = mapped_column(DateTime)


class DraftRow(Base):
    """An answer given on an open work page and not yet submitted, kept as it is given so
    that a reload, a new tab or another app process draws the page as it was left.

    A draft is never an answer: results, agreement and quality control read
    ``ann_answers`` only. Drafts go when their page is submitted, skipped, released or
    expires.
    """

    __tablename__ = "ann_drafts"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("ann_assignments.id", ondelete="CASCADE"), primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("ann_items.id", ondelete="CASCADE"), primary_key=True)
    label: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
