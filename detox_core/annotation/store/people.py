"""The annotators' side of the annotation store: joining, the language an annotator
judges, training and the exam. Mixed into :class:`~detox_core.annotation.store.AnnotationStore`
(which provides ``_lock`` and ``_write``)."""

from __future__ import annotations

import hashlib
import random
import secrets
import threading
from collections.abc import Callable, Mapping
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from detox_core.names import MAX_NAME_CHARS, clean_name, look_alike, name_keys
from detox_core.annotation.passwords import MIN_SECRET_CHARS, check_secret, hash_secret, needs_rehash
from detox_core.annotation.quality import address_refusal, check_complete, check_label, draw_exam, exam_passed
from detox_core.annotation.store.queries import get_row, has_exam, page_view, project_languages
from detox_core.annotation.store.rows import (
    AnnotatorRow, AnswerRow, AssignmentItemRow, AssignmentRow, EventRow, ItemRow, ProjectRow,
)
from detox_core.annotation.store.views import Annotator, ExamResult, Page, Settings, annotator_view, naive, utc_now
from detox_core.annotation.tasks import spec
from detox_core.db import guard_public_methods
from detox_core.errors import AnnotationError, UnknownCodeError, WrongSecretError
from detox_core.vocab import language_name


class _Hashing:
    """The argon2 work of one join, done before the store's write lock is taken (each check
    or new hash costs tens of milliseconds of CPU and 64 MiB; under the lock, a flood of joins
    stalled every annotator's saves): each is computed once, and again under the lock only
    for a stored hash that changed in between."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self._checked: dict[str, bool] = {}
        self._rehashed: dict[str, str] = {}
        self._new: str | None = None

    def check(self, stored: str) -> bool:
        if stored not in self._checked:
            self._checked[stored] = check_secret(self.secret, stored)
        return self._checked[stored]

    def new(self) -> str:
        if self._new is None:
            self._new = hash_secret(self.secret)
        return self._new

    def rehash(self, stored: str) -> str:
        if stored not in self._rehashed:
            self._rehashed[stored] = hash_secret(self.secret, replacing=stored)
        return self._rehashed[stored]


@guard_public_methods("use the annotation database")
class AnnotatorActions:
    """Joining, choosing a language, training and the exam."""

    _lock: threading.Lock

    _write: Callable[[], Session]  # provided by the store
    engine: Engine

    # ------------------------------------------------------------------ annotators

    def join(self, access_code: str, name: str, secret: str | None = None, client: str | None = None) -> Annotator:
        """Join the project of ``access_code`` as ``name``, or come back as ``name``.

        Args:
            secret: the annotator's own password. Chosen on joining (at least
                :data:`MIN_SECRET_CHARS` characters) and asked again on every return, so
                that knowing the access code and a name is not enough to act as someone.
                ``None`` only for annotators who have none (library use, older data).
            client: where the person joins from (an address); with the project's
                ``max_refused_per_address`` limit, a new name from an address from which
                that many attempts failed the exam or were banned is refused (and the
                refusal is logged for the organizer, who can allow the address again).

        Raises:
            AnnotationError: a wrong or missing password, a bad name or access code.
        """
        try:
            name, bad_name = clean_name(name), None
        except AnnotationError as err:
            name, bad_name = " ".join(name.split())[:MAX_NAME_CHARS], str(err)
        refused, wrong = None, None
        hashing = self._hash_first(access_code, name, secret, client) if bad_name is None and secret else None
        with self._lock, self._write() as s, s.begin():
            # Access codes are compared without letter case: a code read out or typed on a phone
            # keeps its letters, not always their case.
            project = self._project_of_code(s, access_code)
            if project is None:  # a name to fix is said first, whatever the code
                if bad_name:
                    raise AnnotationError(bad_name)
                raise UnknownCodeError("no project has this access code")
            client_hash = hashlib.sha256(f"{project.id}:{client}".encode()).hexdigest()[:32] if client else None
            if bad_name is not None:
                if name:  # the organizer sees what was refused, and why (once per name and address)
                    self._log_name_refused(s, project.id, name, client_hash, bad_name)
                refused, row = bad_name, None
            else:
                row = self._same_name(s, project.id, name)
                if secret is not None and len(secret) < MIN_SECRET_CHARS:
                    raise AnnotationError(f"the password needs at least {MIN_SECRET_CHARS} characters")
                if row is None and project.status != "open":
                    raise AnnotationError("this project is closed")
                if row is None:
                    settings = Settings.from_json(project.settings)
                    refused = address_refusal(self._refused_from(s, project.id, client_hash), settings) \
                        if client_hash and settings.max_refused_per_address else None
                    if refused:
                        # Logged (once per name and address) for the organizer, then refused below,
                        # after this transaction stored the log line.
                        logged = s.scalar(select(func.count()).select_from(EventRow).where(
                            EventRow.project_id == project.id, EventRow.kind == "join_refused",
                            EventRow.client == client_hash, EventRow.name == name,
                            EventRow.created_at > self._allowed_at(s, project.id, client_hash)))
                        if not logged:
                            s.add(EventRow(project_id=project.id, name=name, kind="join_refused", client=client_hash,
                                           detail=f"address limit: {settings.max_refused_per_address} refused "
                                                  "attempt(s) from the same address", created_at=utc_now()))
                    else:
                        status = "training" if settings.training else ("exam" if has_exam(s, project.id) else "active")
                        row = AnnotatorRow(project_id=project.id, name=name, status=status, joined_at=utc_now(),
                                           secret_hash=hashing.new() if hashing else None,
                                           client=client_hash)
                        s.add(row)
                        s.flush()
                elif row.secret_hash is not None:
                    if hashing is None or not hashing.check(row.secret_hash):
                        if row.name != name:  # a look-alike of a name in the project: logged for the organizer
                            self._log_name_refused(s, project.id, name, client_hash, look_alike(name, row.name))
                            wrong = (f"this name looks like “{row.name}”, already taken in this project, and the "
                                     "password does not match: type your own password, or join under a clearly "
                                     "different name")
                        else:
                            raise WrongSecretError("this name is taken in this project and the password does not "
                                                   "match: type your own password, or join under another name")
                    elif needs_rehash(row.secret_hash):
                        # An older release's scrypt hash, or argon2 of other parameters: replaced now,
                        # in this transaction, the only moment the password is known (it keeps its
                        # password_id: the annotator's other tabs stay signed in).
                        row.secret_hash = hashing.rehash(row.secret_hash)
                elif secret is not None:
                    # Joined before passwords were asked. Whoever first types the name must not
                    # become its owner: only the address it joined from may set its password;
                    # anyone else needs the organizer (set_secret).
                    if not (client_hash and row.client == client_hash):
                        raise WrongSecretError(
                            "this name joined before passwords were asked, from another address: ask the project's "
                            "organizer to set a password for it (Annotation projects, Annotators), then sign in with it")
                    row.secret_hash = hashing.new()
                    s.add(EventRow(project_id=project.id, annotator_id=row.id, name=row.name, kind="password_set",
                                   detail="set by the annotator, from the address they joined from",
                                   client=client_hash, created_at=utc_now()))
            view = None if refused or wrong else annotator_view(row)
        if wrong:
            raise WrongSecretError(wrong)
        if refused:
            raise AnnotationError(refused)
        return view

    def _hash_first(self, access_code: str, name: str, secret: str, client: str | None) -> _Hashing:
        """The argon2 work this join will need, as the database stands now, done outside the
        write lock (a plain read: SQLite's write lock is not taken)."""
        hashing = _Hashing(secret)
        if len(secret) < MIN_SECRET_CHARS:
            return hashing
        with Session(self.engine) as s:
            project = self._project_of_code(s, access_code)
            if project is None:
                return hashing
            row = self._same_name(s, project.id, name)
            if row is None:
                if project.status == "open":
                    hashing.new()
            elif row.secret_hash is not None:
                if hashing.check(row.secret_hash) and needs_rehash(row.secret_hash):
                    hashing.rehash(row.secret_hash)
            elif client:
                hashing.new()
        return hashing

    def knows_name(self, access_code: str, name: str) -> bool:
        """Whether the project of ``access_code`` has an annotator of ``name`` (or of a name
        that reads as it); False for a code no project has or a name that is refused."""
        try:
            name = clean_name(name)
        except AnnotationError:
            return False
        with Session(self.engine) as s:
            project = self._project_of_code(s, access_code)
            return project is not None and self._same_name(s, project.id, name) is not None

    @staticmethod
    def _project_of_code(s: Session, access_code: str) -> ProjectRow | None:
        """The project of ``access_code``, read without letter case (a code read out or typed on
        a phone keeps its letters, not always their case)."""
        return s.scalars(select(ProjectRow).where(
            func.lower(ProjectRow.access_code) == access_code.strip().lower())).first()

    @staticmethod
    def _same_name(s: Session, project_id: int, name: str) -> AnnotatorRow | None:
        """The annotator of the project whose name is ``name``, or reads as it (case, look-alike
        letters: :func:`~detox_core.names.name_keys`); the exact name first, then the
        earliest look-alike."""
        row = s.scalars(select(AnnotatorRow).where(AnnotatorRow.project_id == project_id,
                                                   AnnotatorRow.name == name)).first()
        if row is not None:
            return row
        keys = name_keys(name)
        for other_id, other in s.execute(select(AnnotatorRow.id, AnnotatorRow.name)
                                         .where(AnnotatorRow.project_id == project_id).order_by(AnnotatorRow.id)):
            if keys & name_keys(other):
                return s.get(AnnotatorRow, other_id)
        return None

    @staticmethod
    def _log_name_refused(s: Session, project_id: int, name: str, client_hash: str | None, why: str) -> None:
        logged = s.scalar(select(func.count()).select_from(EventRow).where(
            EventRow.project_id == project_id, EventRow.kind == "name_refused", EventRow.name == name,
            EventRow.client == client_hash))
        if not logged:
            s.add(EventRow(project_id=project_id, name=name, kind="name_refused", client=client_hash,
                           detail=why[:500], created_at=utc_now()))

    @staticmethod
    def _allowed_at(s: Session, project_id: int, client_hash: str) -> datetime:
        """When an organizer last allowed this address again (the beginning of time if never)."""
        return s.scalar(select(func.max(EventRow.created_at)).where(
            EventRow.project_id == project_id, EventRow.kind == "address_allowed",
            EventRow.client == client_hash)) or datetime.min

    def _refused_from(self, s: Session, project_id: int, client_hash: str) -> int:
        """Attempts from an address that are failed or banned now, since it was last allowed."""
        return s.scalar(select(func.count()).select_from(AnnotatorRow).where(
            AnnotatorRow.project_id == project_id, AnnotatorRow.client == client_hash,
            AnnotatorRow.status.in_(("failed", "banned")),
            AnnotatorRow.joined_at > self._allowed_at(s, project_id, client_hash)))

    # ------------------------------------------------------------------ the organizer's way back

    def readmit(self, annotator_id: int, reason: str, actor: str = "organizer",
                now: datetime | None = None) -> Annotator:
        """Let a refused annotator work again: one who failed the exam is admitted, a banned
        one unbanned. The quality rules start afresh (control answers and skipped pages are
        counted from now); an unbanned annotator's earlier answers count again.

        Args:
            reason: why (required; stored in the project's log with ``actor``).

        Raises:
            AnnotationError: no reason, or the annotator is not failed or banned.
        """
        reason = _reason(reason)
        now = naive(now)
        with self._lock, self._write() as s, s.begin():
            row = get_row(s, AnnotatorRow, annotator_id, "annotator")
            if row.status not in ("failed", "banned"):
                raise AnnotationError(f"{row.name} is not refused (status: {row.status}): nothing to undo")
            if row.status == "failed":
                score = "—" if row.exam_score is None else f"{row.exam_score:.0%}"
                kind, detail = "readmitted", f"{reason} (exam score was {score})"
            else:
                kind, detail = "unbanned", f"{reason} (banned for: {row.ban_reason})"
            s.add(EventRow(project_id=row.project_id, annotator_id=row.id, name=row.name, kind=kind, detail=detail,
                           actor=actor, created_at=now))
            row.status, row.ban_reason, row.banned_at, row.readmitted_at = "active", None, None, now
            return annotator_view(row)

    def set_secret(self, annotator_id: int, actor: str = "organizer", secret: str | None = None) -> str:
        """Give an annotator a new password (a random one unless ``secret`` is given), for
        one who forgot theirs or joined before passwords were asked; logged. Returns it,
        to be handed to the annotator (it is stored hashed only).

        Raises:
            AnnotationError: a password shorter than :data:`MIN_SECRET_CHARS`.
        """
        secret = secret if secret is not None else secrets.token_urlsafe(9)
        if len(secret) < MIN_SECRET_CHARS:
            raise AnnotationError(f"the password needs at least {MIN_SECRET_CHARS} characters")
        hashed = hash_secret(secret)  # before the write lock (see _Hashing)
        with self._lock, self._write() as s, s.begin():
            row = get_row(s, AnnotatorRow, annotator_id, "annotator")
            row.secret_hash = hashed
            s.add(EventRow(project_id=row.project_id, annotator_id=row.id, name=row.name, kind="password_set",
                           detail="set by an organizer", actor=actor, created_at=utc_now()))
        return secret

    def allow_address(self, event_id: int, reason: str, actor: str = "organizer",
                      now: datetime | None = None) -> None:
        """Allow the address of a refused join again: refusals from it before now no longer
        count against it (the people refused there can join under their names).

        Raises:
            AnnotationError: no reason, or ``event_id`` is not a refused join.
        """
        reason = _reason(reason)
        with self._lock, self._write() as s, s.begin():
            event = s.get(EventRow, event_id)
            if event is None or event.kind != "join_refused":
                raise AnnotationError(f"no refused join with id {event_id}")
            s.add(EventRow(project_id=event.project_id, name=event.name, kind="address_allowed", detail=reason,
                           actor=actor, client=event.client, created_at=naive(now)))

    def finish_training(self, annotator_id: int) -> Annotator:
        """Training done: on to the exam (or straight to work when the project has none)."""
        with self._lock, self._write() as s, s.begin():
            row = get_row(s, AnnotatorRow, annotator_id, "annotator")
            if row.status == "training":
                row.status = "exam" if has_exam(s, row.project_id) else "active"
            return annotator_view(row)

    def admit(self, annotator_id: int) -> Annotator:
        """Admit an annotator without training and exam (for imports and tests)."""
        with self._lock, self._write() as s, s.begin():
            row = get_row(s, AnnotatorRow, annotator_id, "annotator")
            if row.status in ("training", "exam"):
                row.status = "active"
            return annotator_view(row)

    def exam(self, annotator_id: int) -> Page:
        """The exam page (all exam items, in a random order), the same on every call."""
        with self._lock, self._write() as s, s.begin():
            ann = get_row(s, AnnotatorRow, annotator_id, "annotator")
            if ann.status != "exam":
                raise AnnotationError(f"the exam is not open to you (status: {ann.status})")
            asg = s.scalars(select(AssignmentRow).where(AssignmentRow.annotator_id == annotator_id,
                                                        AssignmentRow.kind == "exam")).first()
            if asg is None:
                exam_items = select(ItemRow.id, ItemRow.task).where(ItemRow.project_id == ann.project_id,
                                                                    ItemRow.kind == "exam")
                # The exam is in the annotator's language when the project has exam items in it.
                pool = list(s.execute(exam_items.where(func.coalesce(ItemRow.lang, "") == ann.lang))
                            ) if ann.lang is not None else []
                pool = pool or list(s.execute(exam_items))
                size = Settings.from_json(s.get(ProjectRow, ann.project_id).settings).exam_size
                ids = draw_exam(pool, size, random.Random())
                asg = AssignmentRow(project_id=ann.project_id, annotator_id=annotator_id, task="mixed", kind="exam",
                                    status="open", created_at=utc_now())
                s.add(asg)
                s.flush()
                s.add_all(AssignmentItemRow(assignment_id=asg.id, item_id=i, annotator_id=annotator_id, position=p)
                          for p, i in enumerate(ids))
            return page_view(s, asg)

    def submit_exam(self, annotator_id: int, answers: Mapping[int, float], now: datetime | None = None) -> ExamResult:
        """Grade the exam: admitted (``active``) at the project's pass mark, else ``failed``."""
        page = self.exam(annotator_id)
        now = naive(now)
        with self._lock, self._write() as s, s.begin():
            ann = s.get(AnnotatorRow, annotator_id)
            settings = Settings.from_json(s.get(ProjectRow, ann.project_id).settings)
            asg = s.get(AssignmentRow, page.assignment_id)
            items = {i.id: s.get(ItemRow, i.id) for i in page.items}
            check_complete(items, answers)
            correct, mistakes = 0, []
            for item_id, item in items.items():
                label = check_label(item.task, answers[item_id])
                s.add(AnswerRow(assignment_id=asg.id, annotator_id=annotator_id, item_id=item_id, label=label,
                                seconds=(now - asg.created_at).total_seconds() / len(items), created_at=now))
                if label == item.golden:
                    correct += 1
                else:
                    mistakes.append({"task": item.task, "input": item.input, "text": item.text,
                                     "answer": spec(item.task).answer_text(label),
                                     "expected": spec(item.task).answer_text(item.golden),
                                     "explanation": item.explanation})
            score, passed = exam_passed(correct, len(items), settings)
            asg.status, asg.closed_at = "submitted", now
            ann.exam_score = score
            ann.status = "active" if passed else "failed"
            if not passed:
                s.add(EventRow(project_id=ann.project_id, annotator_id=ann.id, name=ann.name, kind="exam_failed",
                               detail=f"exam score {score:.0%} ({correct} of {len(items)} right; pass mark "
                                      f"{settings.exam_pass:.0%})", created_at=now))
            return ExamResult(score, correct, len(items), passed, tuple(mistakes))

    def choose_language(self, annotator_id: int, lang: str) -> Annotator:
        """The language whose items the annotator judges: chosen once, before the exam
        is drawn (the exam is asked in it where the project has exam items in it).

        Raises:
            AnnotationError: a language the project does not judge, or one chosen already.
        """
        with self._lock, self._write() as s, s.begin():
            row = get_row(s, AnnotatorRow, annotator_id, "annotator")
            languages = project_languages(s, row.project_id)
            if lang not in languages:
                raise AnnotationError(f"this project does not judge {language_name(lang) or 'unmarked'} texts; "
                                      f"choose one of {', '.join(language_name(x) for x in languages)}")
            if row.lang is not None and row.lang != lang:
                raise AnnotationError(f"you judge {language_name(row.lang)} texts in this project; to judge "
                                      "another language, join again under another name")
            row.lang = lang
            return annotator_view(row)


def _reason(reason: str) -> str:
    reason = " ".join(str(reason).split())
    if not reason:
        raise AnnotationError("give a reason: it is kept in the project's log")
    if len(reason) > 500:
        raise AnnotationError("the reason is longer than 500 characters")
    return reason
