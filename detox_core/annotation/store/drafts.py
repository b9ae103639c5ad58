"""Drafts: the answers of an annotator's open work page, kept as they are given and
restored after a reload, in a new tab or on another app process; never read as answers.
Mixed into :class:`~detox_core.annotation.store.AnnotationStore`."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from detox_core.annotation.quality import check_label
from detox_core.annotation.store.rows import AssignmentItemRow, AssignmentRow, DraftRow, ItemRow, ProjectRow
from detox_core.annotation.store.views import Settings, naive
from detox_core.db import guard_public_methods
from detox_core.errors import AnnotationError


@guard_public_methods("use the annotation database")
class DraftActions:
    """Keeping and reading the drafts of an open page."""

    _lock: threading.Lock
    engine: Engine

    def save_drafts(self, annotator_id: int, assignment_id: int, answers: Mapping[int, float],
                    now: datetime | None = None) -> int:
        """Keep answers given on the annotator's open work page before it is submitted
        (``{item id: label}``; an item's later draft replaces its earlier one, items not
        given keep theirs, so two tabs of one page add up). Returns how many the page holds.

        Drafts are not answers: nothing reads them but :meth:`page_drafts`.

        Raises:
            AnnotationError: a banned annotator, a page that is not theirs or no longer
                open, an item that is not on that page, a label the task has not.
        """
        now = naive(now)
        with self._lock, self._write() as s, s.begin():
            _, asg, _ = self._open_page(s, annotator_id, assignment_id, now)
            tasks = dict(s.execute(select(ItemRow.id, ItemRow.task).join(
                AssignmentItemRow, AssignmentItemRow.item_id == ItemRow.id).where(
                AssignmentItemRow.assignment_id == asg.id)).all())
            foreign = [i for i in answers if i not in tasks]
            if foreign:
                raise AnnotationError(f"drafts for items that are not on this page: {sorted(foreign)[:10]}")
            labels = {i: check_label(tasks[i], v) for i, v in answers.items()}
            held = {d.item_id: d for d in s.scalars(select(DraftRow).where(DraftRow.assignment_id == asg.id))}
            for item_id, label in labels.items():
                if item_id in held:
                    held[item_id].label, held[item_id].updated_at = label, now
                else:
                    s.add(DraftRow(assignment_id=asg.id, item_id=item_id, label=label, updated_at=now))
            return len(held.keys() | labels.keys())

    def page_drafts(self, annotator_id: int, assignment_id: int, now: datetime | None = None) -> dict[int, float]:
        """The drafts of the annotator's open work page, ``{item id: label}``; empty for a
        page that is not theirs, not open any more or past its time."""
        now = naive(now)
        with Session(self.engine) as s:
            asg = s.get(AssignmentRow, assignment_id)
            if (asg is None or asg.annotator_id != annotator_id or asg.kind != "work" or asg.status != "open"):
                return {}
            project = s.get(ProjectRow, asg.project_id)
            timeout = timedelta(minutes=Settings.from_json(project.settings).page_timeout_minutes)
            if now - asg.created_at > timeout:
                return {}
            return dict(s.execute(select(DraftRow.item_id, DraftRow.label).where(
                DraftRow.assignment_id == assignment_id)).all())

    def open_drafts(self, annotator_id: int, now: datetime | None = None) -> int:
        """How many answers the annotator has given on their open work pages and not
        submitted (drafts of pages still in their time): what leaving would give up."""
        now = naive(now)
        with Session(self.engine) as s:
            rows = s.execute(select(AssignmentRow.created_at, ProjectRow.settings, DraftRow.item_id)
                             .join(DraftRow, DraftRow.assignment_id == AssignmentRow.id)
                             .join(ProjectRow, ProjectRow.id == AssignmentRow.project_id)
                             .where(AssignmentRow.annotator_id == annotator_id, AssignmentRow.kind == "work",
                                    AssignmentRow.status == "open")).all()
            return sum(now - created <= timedelta(minutes=Settings.from_json(settings).page_timeout_minutes)
                       for created, settings, _ in rows)
