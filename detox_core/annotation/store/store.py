"""Annotation projects in the SQL database: items, annotators, pages and answers.

One project holds the pairs it judges (system, input, output), the items annotators
see (one per task and distinct text: identical outputs of two systems are judged
once), control items with their known answers, exam items, annotators, the pages
(assignments) handed out and every answer, committed as it is submitted. Answers given
on an open page before it is submitted are kept as drafts (:meth:`AnnotationStore.save_drafts`),
so that the page is drawn again as it was left; a draft never counts as an answer.

Guarantees, kept by the database and by allocating pages in a write-locked
transaction (``db.writer``):

- an annotator never gets the same item twice (a unique key on annotator and item);
- no item gets more answers than the overlap: answers of annotators in good standing
  plus items reserved on open pages never exceed it (a ban frees its slots, so the
  item is asked again; an organizer's unban counts the earlier answers again, so an
  item asked again meanwhile can end up with one answer more);
- an annotator never sees a control answer or another annotator's answer: the items
  a page returns carry only their texts.

Quality control runs on every submitted page: a ban for control accuracy under the
threshold (after a minimum number of control answers), for a page answered faster
than the minimum time, or for too many skipped pages. A banned annotator's later
pages are refused; the earlier answers stay stored and are left out of aggregation.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

import pandas as pd
from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from detox_core.annotation.controls import Control
from detox_core.annotation.screening import EVENT as SCREENED
from detox_core.annotation.quality import (
    check_complete,
    check_label,
    page_ban_reason,
    require_active,
    skip_ban_reason,
)
from detox_core.annotation.store.queries import (
    StoreQueries, control_answers, disputed_controls, get_row, item_usage, page_view,
)
from detox_core.annotation.store.drafts import DraftActions
from detox_core.annotation.store.people import AnnotatorActions
from detox_core.annotation.store.rows import (
    AnnotatorRow,
    AnswerRow,
    AssignmentItemRow,
    AssignmentRow,
    Base,
    DraftRow,
    EventRow,
    ExampleRow,
    ItemRow,
    PairRow,
    ProjectRow,
)
from detox_core.annotation.store.views import (
    Page,
    PageResult,
    Project,
    Settings,
    naive,
    project_view,
    utc_now,
)
from detox_core.annotation.tasks import TASKS, Example, item_keys
from detox_core.db import default_url, guard_public_methods, make_engine, upgrade, writer
from detox_core.errors import AnnotationError
from detox_core.text import bidi_controls
from detox_core.vocab import language_name



#: Letters of generated access codes: lower case (codes are compared without case) and
#: none that read alike (no 0/o, 1/l/i).
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def new_access_code(length: int = 10) -> str:
    """A random access code, easy to read out and type (about 49 bits with 10 letters)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))

@guard_public_methods("use the annotation database")
class AnnotationStore(AnnotatorActions, DraftActions, StoreQueries):
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
                       settings: Settings | None = None, dataset: str = "", access_code: str | None = None,
                       screened: str = "") -> Project:
        """Create a project judging ``pairs`` (columns ``system``, ``idx``, ``input``,
        ``output`` and optional ``lang``, the ISO code of each pair's language) on
        ``tasks``, with control and exam items (each of its ``lang``); ``screened`` (what the
        screening of generated control items dropped) goes to the project's log.

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
        if bidi := bidi_controls(name):
            raise AnnotationError(f"the project name holds a direction-control character ({', '.join(bidi)}) "
                                  "that would show it in another order: type it again without")
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
        code = access_code or new_access_code()
        with self._lock, self._write() as s, s.begin():
            if s.scalar(select(func.count()).select_from(ProjectRow).where(ProjectRow.name == name)):
                raise AnnotationError(f"a project named {name!r} exists")
            if s.scalar(select(func.count()).select_from(ProjectRow).where(
                    func.lower(ProjectRow.access_code) == code.strip().lower())):  # codes are read without case
                raise AnnotationError("that access code is in use by another project")
            row = ProjectRow(name=name, access_code=code, dataset=dataset, tasks=json.dumps(tasks),
                             settings=settings.to_json(), status="open", created_at=utc_now())
            s.add(row)
            s.flush()
            langs = pairs["lang"].fillna("").astype(str) if "lang" in pairs.columns else [""] * len(pairs)
            s.add_all(PairRow(project_id=row.id, system=str(p.system), idx=int(p.idx), input=str(p.input),
                              output=str(p.output), lang=lang) for p, lang in zip(pairs.itertuples(index=False), langs))
            seen: set[tuple[str, str, str, str]] = set()
            items = []
            for key in item_keys(pairs, tasks):
                if key not in seen:
                    seen.add(key)
                    items.append(ItemRow(project_id=row.id, task=key[0], kind="real", input=key[1], text=key[2],
                                         lang=key[3]))
            items += _control_rows(row.id, controls, "control") + _control_rows(row.id, exam, "exam")
            s.add_all(items)
            if screened:
                s.add(EventRow(project_id=row.id, name="", kind=SCREENED, detail=screened, created_at=utc_now()))
            s.flush()
            return project_view(row)

    def update_settings(self, project_id: int, settings: Settings, status: str | None = None) -> Project:
        settings.validate()
        with self._lock, self._write() as s, s.begin():
            row = get_row(s, ProjectRow, project_id, "project")
            row.settings = settings.to_json()
            if status:
                row.status = status
            return project_view(row)

    def set_public_leaderboard(self, project_id: int | None) -> None:
        """Make ``project_id`` the one project whose human scores feed the public
        Leaderboard (None: no project; only published human tables are shown)."""
        with self._lock, self._write() as s, s.begin():
            if project_id is not None:
                get_row(s, ProjectRow, project_id, "project")  # an unknown id is an error, nothing changed
            for row in s.scalars(select(ProjectRow)):
                settings = Settings.from_json(row.settings)
                chosen = row.id == project_id
                if settings.public_leaderboard != chosen:
                    settings.public_leaderboard = chosen
                    row.settings = settings.to_json()

    def delete_project(self, project_id: int) -> None:
        """Delete a project with its items, annotators, pages and answers."""
        pages = select(AssignmentRow.id).where(AssignmentRow.project_id == project_id)
        items = select(ItemRow.id).where(ItemRow.project_id == project_id)
        with self._lock, self._write() as s, s.begin():
            get_row(s, ProjectRow, project_id, "project")
            s.execute(delete(AnswerRow).where(AnswerRow.item_id.in_(items)))
            s.execute(delete(DraftRow).where(DraftRow.assignment_id.in_(pages)))
            s.execute(delete(AssignmentItemRow).where(AssignmentItemRow.assignment_id.in_(pages)))
            for table in (EventRow, AssignmentRow, AnnotatorRow, ItemRow, PairRow, ExampleRow):
                s.execute(delete(table).where(table.project_id == project_id))
            s.execute(delete(ProjectRow).where(ProjectRow.id == project_id))

    def set_examples(self, project_id: int, examples: Sequence[Example]) -> int:
        """Store uploaded worked examples: they replace the project's earlier examples of
        the same languages (other languages keep theirs). Returns how many were stored.

        Raises:
            AnnotationError: an example of a task the project does not ask, or of a
                language it does not judge.
        """
        project = self.project(project_id)
        languages = set(self.languages(project_id))
        for ex in examples:
            if ex.task not in project.tasks:
                raise AnnotationError(f"an example of the {ex.task} task, which the project does not ask")
            if ex.lang not in languages:
                raise AnnotationError(f"an example in {language_name(ex.lang)}, which the project does not judge")
        with self._lock, self._write() as s, s.begin():
            s.execute(delete(ExampleRow).where(ExampleRow.project_id == project_id,
                                               ExampleRow.lang.in_({ex.lang for ex in examples})))
            s.add_all(ExampleRow(project_id=project_id, lang=ex.lang, task=ex.task, input=ex.input, text=ex.text,
                                 label=ex.label, explanation=ex.explanation) for ex in examples)
        return len(examples)

    def add_controls(self, project_id: int, controls: Sequence[Control], kind: str = "control") -> int:
        _check_control_tasks(controls, self.project(project_id).tasks)
        with self._lock, self._write() as s, s.begin():
            s.add_all(_control_rows(project_id, controls, kind))
        return len(controls)

    # ------------------------------------------------------------------ work pages

    def next_page(self, annotator_id: int, task: str, now: datetime | None = None) -> Page | None:
        """The annotator's open page of ``task``, or a new one; None when no item is left
        for them. Control items are placed at random positions among the real ones. An
        annotator who chose a language gets items (and control items) of it only.

        Raises:
            AnnotationError: the annotator is not admitted, is banned, or the project
                does not ask ``task``.
        """
        now = naive(now)
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
                return page_view(s, open_page)
            self._check_open_from_address(s, project.id, ann, settings)
            n_real = max(1, settings.page_size - settings.controls_per_page)
            # One language per page: the annotator's (all of them while none is chosen).
            in_lang = [] if ann.lang is None else [func.coalesce(ItemRow.lang, "") == ann.lang]
            usage = item_usage(project.id, task)
            used = func.coalesce(usage.c.n, 0)
            unseen = ~select(AssignmentItemRow.item_id).where(
                AssignmentItemRow.annotator_id == annotator_id, AssignmentItemRow.item_id == ItemRow.id).exists()
            # Fill the items closest to done first, so that finished labels appear early.
            chosen = list(s.scalars(
                select(ItemRow.id).outerjoin(usage, usage.c.item_id == ItemRow.id)
                .where(ItemRow.project_id == project.id, ItemRow.task == task, ItemRow.kind == "real",
                       used < settings.overlap, unseen, *in_lang)
                .order_by(used.desc(), func.random()).limit(n_real)))
            if not chosen:
                # Every item still needing labels is on someone's open page. Pages held
                # open never starve the others (one person holding many pages used to stall
                # a campaign for the page timeout, renewably): such items are given again,
                # those with the fewest answers first; an item may end with an extra label.
                answered = item_usage(project.id, task, reserved_too=False)
                n_answered = func.coalesce(answered.c.n, 0)
                chosen = list(s.scalars(
                    select(ItemRow.id).outerjoin(answered, answered.c.item_id == ItemRow.id)
                    .where(ItemRow.project_id == project.id, ItemRow.task == task, ItemRow.kind == "real",
                           n_answered < settings.overlap, unseen, *in_lang)
                    .order_by(n_answered.asc(), func.random()).limit(n_real)))
            if not chosen:
                return None
            aside = disputed_controls(s, project.id)  # careful people disagree with them: not asked again
            chosen += s.scalars(
                select(ItemRow.id).where(ItemRow.project_id == project.id, ItemRow.task == task,
                                         ItemRow.kind == "control", unseen, *in_lang,
                                         *([ItemRow.id.not_in(aside)] if aside else []))
                .order_by(func.random()).limit(settings.controls_per_page))
            random.shuffle(chosen)
            asg = AssignmentRow(project_id=project.id, annotator_id=annotator_id, task=task, kind="work",
                                status="open", created_at=now)
            s.add(asg)
            s.flush()
            s.add_all(AssignmentItemRow(assignment_id=asg.id, item_id=i, annotator_id=annotator_id, position=p)
                      for p, i in enumerate(chosen))
            s.flush()
            return page_view(s, asg)

    def submit_page(self, annotator_id: int, assignment_id: int, answers: Mapping[int, float],
                    now: datetime | None = None) -> PageResult:
        """Store a page's answers (one transaction) and run quality control.

        Raises:
            AnnotationError: a banned annotator, a page that is not theirs or no longer
                open (submitted, skipped or expired), a missing or unknown answer.
        """
        now = naive(now)
        with self._lock, self._write() as s, s.begin():
            ann, asg, settings = self._open_page(s, annotator_id, assignment_id, now)
            items = {r.id: r for r in s.scalars(select(ItemRow).join(
                AssignmentItemRow, AssignmentItemRow.item_id == ItemRow.id).where(
                AssignmentItemRow.assignment_id == assignment_id))}
            check_complete(items, answers)
            labels = {i: check_label(items[i].task, answers[i]) for i in items}
            seconds = (now - asg.created_at).total_seconds()
            s.add_all(AnswerRow(assignment_id=asg.id, annotator_id=annotator_id, item_id=i, label=v,
                                seconds=seconds / len(items), created_at=now) for i, v in labels.items())
            asg.status, asg.closed_at = "submitted", now
            _drop_drafts(s, asg.id)
            s.flush()
            n_ctrl, acc = control_answers(s, annotator_id, since=ann.readmitted_at)
            reason = page_ban_reason(len(items), seconds, n_ctrl, acc, settings)
            if reason:
                _ban(s, ann, reason, now)
            return PageResult(len(items), seconds, reason is not None, reason, n_ctrl, acc)

    def skip_page(self, annotator_id: int, assignment_id: int, now: datetime | None = None) -> PageResult:
        """Skip a page: its items go to others (never back to this annotator); too many
        skipped pages ban."""
        now = naive(now)
        with self._lock, self._write() as s, s.begin():
            ann, asg, settings = self._open_page(s, annotator_id, assignment_id, now)
            asg.status, asg.closed_at = "skipped", now
            _drop_drafts(s, asg.id)
            s.flush()
            since = [AssignmentRow.closed_at >= ann.readmitted_at] if ann.readmitted_at else []
            skipped = s.scalar(select(func.count()).select_from(AssignmentRow).where(
                AssignmentRow.annotator_id == annotator_id, AssignmentRow.status == "skipped", *since))
            reason = skip_ban_reason(skipped, settings)
            if reason:
                _ban(s, ann, reason, now)
            n_ctrl, acc = control_answers(s, annotator_id, since=ann.readmitted_at)
            return PageResult(0, (now - asg.created_at).total_seconds(), reason is not None, reason, n_ctrl, acc)

    @staticmethod
    def _locked(s: Session, annotator_id: int) -> tuple[AnnotatorRow, ProjectRow]:
        """An admitted annotator and their project, locked: page changes of a project run
        one at a time (SQLite: the write lock taken at BEGIN; others: the project row)."""
        ann = get_row(s, AnnotatorRow, annotator_id, "annotator")
        project = s.scalars(select(ProjectRow).where(ProjectRow.id == ann.project_id).with_for_update()).one()
        s.refresh(ann)  # as of the lock
        require_active(ann.status, ann.ban_reason)
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
            done = {"expired": "given to others after it expired"}.get(asg.status, asg.status)
            raise AnnotationError(f"this page is no longer open: it was {done} already (in another tab or window?), "
                                  "so the answers sent now were not stored; take the next one")
        return ann, asg, settings

    @staticmethod
    def _check_open_from_address(s: Session, project_id: int, ann: AnnotatorRow, settings: Settings) -> None:
        """Refuse a new page when the people who joined from this annotator's address hold
        ``max_open_pages_per_address`` open pages already."""
        if not settings.max_open_pages_per_address or not ann.client:
            return
        held = s.scalar(select(func.count()).select_from(AssignmentRow).join(
            AnnotatorRow, AnnotatorRow.id == AssignmentRow.annotator_id).where(
            AssignmentRow.project_id == project_id, AssignmentRow.kind == "work", AssignmentRow.status == "open",
            AnnotatorRow.client == ann.client))
        if held >= settings.max_open_pages_per_address:
            raise AnnotationError(f"{held} pages are open from your address, the most this project allows at once: "
                                  "submit or skip one of them first (or ask the organizer to raise the limit)")

    def release_pages(self, annotator_id: int, now: datetime | None = None) -> int:
        """Give back the annotator's open pages (on leaving): their items go back to the
        pool at once, for the others and for this annotator too (never answered, they are
        not seen: a later page may hold them again). Returns how many."""
        now = naive(now)
        with self._lock, self._write() as s, s.begin():
            open_pages = select(AssignmentRow.id).where(
                AssignmentRow.annotator_id == annotator_id, AssignmentRow.kind == "work", AssignmentRow.status == "open")
            s.execute(delete(AssignmentItemRow).where(AssignmentItemRow.assignment_id.in_(open_pages)))
            result = s.execute(update(AssignmentRow).where(
                AssignmentRow.annotator_id == annotator_id, AssignmentRow.kind == "work",
                AssignmentRow.status == "open").values(status="released", closed_at=now))
            s.execute(delete(DraftRow).where(DraftRow.assignment_id.in_(select(AssignmentRow.id).where(
                AssignmentRow.annotator_id == annotator_id, AssignmentRow.status != "open"))))
            return int(result.rowcount or 0)

    @staticmethod
    def _expire(s: Session, project_id: int, settings: Settings, now: datetime) -> None:
        cutoff = now - timedelta(minutes=settings.page_timeout_minutes)
        s.execute(update(AssignmentRow).where(
            AssignmentRow.project_id == project_id, AssignmentRow.status == "open", AssignmentRow.kind == "work",
            AssignmentRow.created_at < cutoff).values(status="expired", closed_at=now))
        # The drafts of every page of the project that is no longer open (expired now,
        # or closed while a draft of it was on its way).
        s.execute(delete(DraftRow).where(DraftRow.assignment_id.in_(select(AssignmentRow.id).where(
            AssignmentRow.project_id == project_id, AssignmentRow.status != "open"))))

    def set_expert_label(self, item_id: int, label: float | None, expert: str) -> None:
        """The organizer's final label of an item (None clears it)."""
        with self._lock, self._write() as s, s.begin():
            item = get_row(s, ItemRow, item_id, "item")
            item.expert_label = None if label is None else check_label(item.task, label)
            item.expert_name = None if label is None else expert
            item.expert_at = None if label is None else utc_now()


def _ban(s: Session, ann: AnnotatorRow, reason: str, now: datetime) -> None:
    """Ban by a quality rule, in the project's log."""
    ann.status, ann.ban_reason, ann.banned_at = "banned", reason, now
    s.add(EventRow(project_id=ann.project_id, annotator_id=ann.id, name=ann.name, kind="banned", detail=reason,
                   created_at=now))


def _drop_drafts(s: Session, assignment_id: int) -> None:
    """A closed page's drafts: its answers are stored (or it was given up)."""
    s.execute(delete(DraftRow).where(DraftRow.assignment_id == assignment_id))


def _check_control_tasks(controls: Sequence[Control], tasks: Sequence[str]) -> None:
    for c in controls:
        if c.task not in tasks:
            raise AnnotationError(f"a control item of the {c.task} task, which the project does not ask")


def _control_rows(project_id: int, controls: Sequence[Control], kind: str) -> list[ItemRow]:
    return [ItemRow(project_id=project_id, task=c.task, kind=kind, text=c.text, input=c.input, golden=c.golden,
                    explanation=c.explanation, lang=c.lang) for c in controls]
