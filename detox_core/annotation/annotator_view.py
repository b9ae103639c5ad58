"""What the Annotate page shows an annotator, computed without drawing: the worked
examples of a task in their language, and the kept drafts of a page."""

from __future__ import annotations

from detox_core.annotation.instructions import BUILTIN_EXAMPLE_LANGUAGES, localized
from detox_core.annotation.store import AnnotationStore, Page
from detox_core.annotation.tasks import Example
from detox_core.errors import StorageError


def examples_of(store: AnnotationStore, project_id: int, task: str, ui: str, lang: str,
                training: bool = False) -> list[Example]:
    """Worked examples of ``task`` for the annotator's language: the built-in (Russian)
    ones for Russian and monolingual projects, then the organizer's uploads."""
    sp = localized(task, ui)
    builtin = list(sp.training if training else sp.examples) if lang in BUILTIN_EXAMPLE_LANGUAGES else []
    return builtin + [ex for ex in store.examples(project_id, lang) if ex.task == task]


def drafts_of(store: AnnotationStore, annotator_id: int, p: Page) -> list[float | None]:
    """The kept drafts of page ``p`` by position (None where none)."""
    try:
        drafts = store.page_drafts(annotator_id, p.assignment_id)
    except StorageError:
        drafts = {}
    return [drafts.get(item.id) for item in p.items]
