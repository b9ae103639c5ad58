"""What the annotation store hands out: settings, projects, annotators, pages, results.

Frozen dataclasses built from rows; an annotator's :class:`ItemView` carries only texts,
never an item's kind, known answer or other answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from detox_core.annotation.passwords import password_id
from detox_core.annotation.settings import Settings
from detox_core.annotation.store.rows import AnnotatorRow, ProjectRow


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
    lang: str | None = None  # the language the annotator judges; None: not chosen (every language)
    #: names the password as set ("" without one; :func:`~detox_core.annotation.passwords.password_id`):
    #: a new password set by an organizer changes it, which ends the annotator's signed-in tabs; an
    #: upgrade of its hash at sign-in does not
    password_digest: str = ""


@dataclass(frozen=True)
class ItemView:
    """What an annotator sees of an item: never its kind, answer or other answers."""

    id: int
    task: str
    text: str
    input: str = ""
    lang: str = ""  # ISO code of the texts' language ("" when the project has none)


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
    digest = password_id(row.secret_hash) if row.secret_hash else ""
    return Annotator(row.id, row.project_id, row.name, row.status, row.exam_score, row.ban_reason, row.lang, digest)
