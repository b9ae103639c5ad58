"""The annotation store's read side: projects, annotators, answers, items and pairs as
frames for the organizer pages, and the stamp that tells caches when anything changed.

:class:`StoreQueries` is mixed into :class:`~detox_core.annotation.store.AnnotationStore`;
it reads through ``self.engine`` and never writes.
"""

from __future__ import annotations

import pandas as pd
from datetime import datetime, timezone

from sqlalchemy import case, func, select, union_all
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from detox_core.annotation.store.rows import AnnotatorRow, AnswerRow, AssignmentRow, ItemRow, PairRow, ProjectRow
from detox_core.annotation.store.rows import AssignmentItemRow, EventRow, ExampleRow
from detox_core.annotation.tasks import Example
from detox_core.annotation.store.views import Annotator, ItemView, Page, Project, annotator_view, project_view
from detox_core.annotation.quality import control_accuracy, disputed, reliable
from detox_core.errors import AnnotationError


def get_row(s: Session, row_type: type, row_id: int, what: str):
    """The row ``row_id`` of ``row_type``, or AnnotationError naming ``what`` is missing."""
    row = s.get(row_type, row_id)
    if row is None:
        raise AnnotationError(f"no {what} with id {row_id}")
    return row


def has_exam(s: Session, project_id: int) -> bool:
    """Whether the project has exam items."""
    return bool(s.scalar(select(func.count()).select_from(ItemRow).where(
        ItemRow.project_id == project_id, ItemRow.kind == "exam")))


def item_usage(project_id: int, task: str, reserved_too: bool = True):
    """Per real item (``item_id``, ``n``): answers of annotators in good standing plus
    (``reserved_too``) open reservations.

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
    if not reserved_too:
        only = answered.subquery()
        return select(only.c.item_id, func.count().label("n")).group_by(only.c.item_id).subquery()
    both = union_all(answered, reserved).subquery()
    return select(both.c.item_id, func.count().label("n")).group_by(both.c.item_id).subquery()

def project_languages(s: Session, project_id: int) -> list[str]:
    """The languages of a project's real items, sorted ("" for items without one)."""
    return sorted(set(s.scalars(select(func.coalesce(ItemRow.lang, "")).where(
        ItemRow.project_id == project_id, ItemRow.kind == "real").distinct())))


def control_agreement(s: Session, project_id: int) -> dict[int, tuple[int, int]]:
    """Each answered control of a project: (answers of reliable annotators in good standing, of
    them giving its known answer). An answer counts only where its annotator is right on the
    project's other controls (:func:`detox_core.annotation.quality.reliable`): careless or
    colluding annotators cannot retire the controls that would stop them."""
    right = case((AnswerRow.label == ItemRow.golden, 1), else_=0)
    rows = s.execute(select(ItemRow.id, AnswerRow.annotator_id, right).join(AnswerRow, AnswerRow.item_id == ItemRow.id)
                     .join(AnnotatorRow, AnnotatorRow.id == AnswerRow.annotator_id)
                     .where(ItemRow.project_id == project_id, ItemRow.kind == "control",
                            AnnotatorRow.status == "active")).all()
    totals: dict[int, list[int]] = {}
    for _item, who, ok in rows:
        t = totals.setdefault(who, [0, 0])
        t[0] += 1
        t[1] += int(ok)
    out: dict[int, tuple[int, int]] = {}
    for item, who, ok in rows:
        n, correct = totals[who]
        if reliable(correct - int(ok), n - 1):  # the annotator's record on the other controls
            answers, agreeing = out.get(int(item), (0, 0))
            out[int(item)] = (answers + 1, agreeing + int(ok))
    return out


def disputed_controls(s: Session, project_id: int) -> set[int]:
    """Controls of a project that most annotators in good standing answer otherwise
    (:func:`detox_core.annotation.quality.disputed`): set aside."""
    return {i for i, (n, a) in control_agreement(s, project_id).items() if disputed(n, a)}


def control_answers(s: Session, annotator_id: int, since: datetime | None = None) -> tuple[int, float | None]:
    """(control answers, accuracy) of an annotator, of answers given at or after ``since``
    (the last re-admission: an organizer's fresh start) when given; disputed controls
    (:func:`disputed_controls`) do not count."""
    after = [AnswerRow.created_at >= since] if since is not None else []
    project_id = s.scalar(select(AnnotatorRow.project_id).where(AnnotatorRow.id == annotator_id))
    aside = disputed_controls(s, project_id) if project_id is not None else set()
    rows = s.execute(select(ItemRow.id, AnswerRow.label, ItemRow.golden).join(ItemRow, ItemRow.id == AnswerRow.item_id)
                     .where(AnswerRow.annotator_id == annotator_id, ItemRow.kind == "control", *after)).all()
    return control_accuracy([(label, golden) for item, label, golden in rows if item not in aside])

def page_view(s: Session, asg: AssignmentRow) -> Page:
    rows = s.execute(select(ItemRow).join(AssignmentItemRow, AssignmentItemRow.item_id == ItemRow.id)
                     .where(AssignmentItemRow.assignment_id == asg.id)
                     .order_by(AssignmentItemRow.position)).scalars().all()
    return Page(asg.id, asg.task, asg.kind, tuple(ItemView(r.id, r.task, r.text, r.input, r.lang or "") for r in rows),
                asg.created_at.replace(tzinfo=timezone.utc))

# ------------------------------------------------------------------ organizer views


class StoreQueries:
    """Read-only views of the annotation store."""

    engine: Engine

    def projects(self) -> list[Project]:
        with Session(self.engine) as s:
            return [project_view(r) for r in s.scalars(select(ProjectRow).order_by(ProjectRow.created_at))]

    def project(self, project_id: int) -> Project:
        with Session(self.engine) as s:
            return project_view(get_row(s, ProjectRow, project_id, "project"))

    def languages(self, project_id: int) -> list[str]:
        """The languages of the project's items (ISO codes, sorted; ``[""]`` for a
        project made without languages)."""
        with Session(self.engine) as s:
            return project_languages(s, project_id)

    def examples(self, project_id: int, lang: str | None = None) -> list[Example]:
        """The worked examples uploaded for the project (of ``lang`` only, when given)."""
        q = select(ExampleRow).where(ExampleRow.project_id == project_id)
        if lang is not None:
            q = q.where(ExampleRow.lang == lang)
        with Session(self.engine) as s:
            return [Example(r.text, r.label, r.explanation, input=r.input, lang=r.lang, task=r.task)
                    for r in s.scalars(q.order_by(ExampleRow.id))]

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

    def annotator(self, annotator_id: int) -> Annotator:
        with Session(self.engine) as s:
            return annotator_view(get_row(s, AnnotatorRow, annotator_id, "annotator"))

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

    def disputed_controls(self, project_id: int) -> pd.DataFrame:
        """The controls set aside (:func:`disputed_controls`): ``item``, ``task``, ``input``,
        ``text``, ``golden``, ``answers`` and ``agreeing`` (of annotators in good standing)."""
        cols = ["item", "task", "input", "text", "golden", "answers", "agreeing"]
        with Session(self.engine) as s:
            counts = control_agreement(s, project_id)
            aside = [i for i, (n, a) in counts.items() if disputed(n, a)]
            rows = s.execute(select(ItemRow.id, ItemRow.task, ItemRow.input, ItemRow.text, ItemRow.golden)
                             .where(ItemRow.id.in_(aside)).order_by(ItemRow.id)).all() if aside else []
        return pd.DataFrame([(*r, *counts[r[0]]) for r in rows], columns=cols)

    def items(self, project_id: int, kind: str | None = None) -> pd.DataFrame:
        q = select(ItemRow.id, ItemRow.task, ItemRow.kind, ItemRow.input, ItemRow.text, ItemRow.golden,
                   ItemRow.expert_label, ItemRow.expert_name, func.coalesce(ItemRow.lang, "")
                   ).where(ItemRow.project_id == project_id)
        if kind:
            q = q.where(ItemRow.kind == kind)
        with Session(self.engine) as s:
            frame = pd.DataFrame(s.execute(q.order_by(ItemRow.id)).all(),
                                 columns=["item", "task", "kind", "input", "text", "golden", "expert_label", "expert_name",
                                          "lang"])
        for c in ("golden", "expert_label"):
            frame[c] = frame[c].astype(float)
        return frame

    def pairs(self, project_id: int) -> pd.DataFrame:
        with Session(self.engine) as s:
            rows = s.execute(select(PairRow.system, PairRow.idx, PairRow.input, PairRow.output,
                                    func.coalesce(PairRow.lang, ""))
                             .where(PairRow.project_id == project_id).order_by(PairRow.id)).all()
        return pd.DataFrame(rows, columns=["system", "idx", "input", "output", "lang"])

    def annotators(self, project_id: int) -> pd.DataFrame:
        with Session(self.engine) as s:
            rows = s.execute(select(AnnotatorRow.id, AnnotatorRow.name, AnnotatorRow.status, AnnotatorRow.exam_score,
                                    AnnotatorRow.ban_reason, AnnotatorRow.joined_at, AnnotatorRow.banned_at)
                             .where(AnnotatorRow.project_id == project_id).order_by(AnnotatorRow.id)).all()
        return pd.DataFrame(rows, columns=["id", "name", "status", "exam_score", "ban_reason", "joined_at", "banned_at"])

    def refused(self, project_id: int) -> pd.DataFrame:
        """Who is kept out of the project now, and why: annotators who failed the exam
        (``detail``: their score) or are banned (the rule that banned them), and joins
        the address limit refused (until an organizer allows that address). Columns
        ``kind`` (exam_failed | banned | join_refused), ``name``, ``detail``, ``at``,
        ``annotator_id`` (none for a refused join), ``event_id`` (of a refused join)."""
        with Session(self.engine) as s:
            settings = project_view(get_row(s, ProjectRow, project_id, "project")).settings
            people = s.execute(select(AnnotatorRow).where(AnnotatorRow.project_id == project_id,
                                                          AnnotatorRow.status.in_(("failed", "banned")))
                               .order_by(AnnotatorRow.id)).scalars().all()
            failed_at = dict(s.execute(
                select(EventRow.annotator_id, func.max(EventRow.created_at))
                .where(EventRow.project_id == project_id, EventRow.kind == "exam_failed")
                .group_by(EventRow.annotator_id)).all())
            rows = []
            for a in people:
                if a.status == "failed":
                    score = "—" if a.exam_score is None else f"{a.exam_score:.0%}"
                    detail = f"exam score {score} (pass mark {settings.exam_pass:.0%})"
                    rows.append(("exam_failed", a.name, detail, failed_at.get(a.id, a.joined_at), a.id, None))
                else:
                    rows.append(("banned", a.name, a.ban_reason or "", a.banned_at, a.id, None))
            allowed = {c: t for c, t in s.execute(select(EventRow.client, func.max(EventRow.created_at)).where(
                EventRow.project_id == project_id, EventRow.kind == "address_allowed").group_by(EventRow.client)).all()}
            for e in s.scalars(select(EventRow).where(EventRow.project_id == project_id,
                                                      EventRow.kind == "join_refused").order_by(EventRow.id)):
                if e.client not in allowed or allowed[e.client] < e.created_at:
                    rows.append(("join_refused", e.name, e.detail, e.created_at, None, e.id))
        frame = pd.DataFrame(rows, columns=["kind", "name", "detail", "at", "annotator_id", "event_id"])
        frame["annotator_id"] = frame["annotator_id"].astype("Int64")
        frame["event_id"] = frame["event_id"].astype("Int64")
        return frame.sort_values("at", ascending=False, kind="stable").reset_index(drop=True)

    def log(self, project_id: int) -> pd.DataFrame:
        """The project's log, newest first: ``at``, ``kind``, ``name``, ``detail``, ``actor``
        (empty for the project's own rules)."""
        with Session(self.engine) as s:
            rows = s.execute(select(EventRow.created_at, EventRow.kind, EventRow.name, EventRow.detail, EventRow.actor)
                             .where(EventRow.project_id == project_id)
                             .order_by(EventRow.created_at.desc(), EventRow.id.desc())).all()
        return pd.DataFrame(rows, columns=["at", "kind", "name", "detail", "actor"])

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
                    s.scalar(select(func.max(EventRow.id))),
                    tuple((status, n) for status, n in s.execute(
                        select(AnnotatorRow.status, func.count()).group_by(AnnotatorRow.status)
                        .order_by(AnnotatorRow.status))))

