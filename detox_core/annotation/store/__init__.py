"""The annotation store: projects, items, annotators, pages and answers in SQL.

- :mod:`.rows`: the tables;
- :mod:`.views`: settings and what the store hands out (projects, pages, results);
- :mod:`.queries`: the read side (organizer frames, the change stamp);
- :mod:`.store`: :class:`AnnotationStore`, the write side: every change in one
  transaction, quality rules (:mod:`detox_core.annotation.quality`) applied inside it.
"""

from detox_core.annotation.passwords import MIN_SECRET_CHARS, check_secret, hash_secret
from detox_core.annotation.store.store import AnnotationStore
from detox_core.annotation.store.views import (
    Annotator,
    ExamResult,
    ItemView,
    Page,
    PageResult,
    Project,
    Settings,
    utc_now,
)
from detox_core.errors import AnnotationError

__all__ = [
    "MIN_SECRET_CHARS", "AnnotationError", "AnnotationStore", "Annotator", "ExamResult", "ItemView", "Page",
    "PageResult", "Project", "Settings", "check_secret", "hash_secret", "utc_now",
]
