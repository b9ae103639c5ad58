"""What the annotation store hands out: settings, projects, annotators, pages, results.

Frozen dataclasses built from rows; an annotator's :class:`ItemView` carries only texts,
never an item's kind, known answer or other answers.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from typing import Any

from detox_core.annotation.aggregation import AGGREGATORS, DEFAULT_AGGREGATOR, describe_aggregators
from detox_core.annotation.store.rows import AnnotatorRow, ProjectRow
from detox_core.errors import AnnotationError


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
    method: str = DEFAULT_AGGREGATOR
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
        if self.method not in AGGREGATORS:
            raise AnnotationError(f"the aggregation method is {describe_aggregators()}")
        for name in ("ban_control_accuracy", "exam_pass", "aggregate_min_accuracy", "review_confidence"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise AnnotationError(f"{name} must be between 0 and 1")


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


def naive(moment: datetime | None) -> datetime:
    if moment is None:
        return utc_now()
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def project_view(row: ProjectRow) -> Project:
    return Project(row.id, row.name, row.access_code, row.dataset, tuple(json.loads(row.tasks)),
                   Settings.from_json(row.settings), row.status, row.created_at)


def annotator_view(row: AnnotatorRow) -> Annotator:
    return Annotator(row.id, row.project_id, row.name, row.status, row.exam_score, row.ban_reason)
