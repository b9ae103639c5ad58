"""Files an organizer uploads to a project: worked examples per language and control
items, both tab-separated with a header. Every error names the file, the line and the
column.

Examples (:func:`load_examples`), shown with the instructions of their language::

    lang  task      text                         answer  explanation                 input
    ar    toxicity  ...                          yes     An insult of the reader.
    de    content   Dieser Mensch ist zu spät.   yes     Only the insult is gone.    Dieser Idiot ist zu spät.

- ``lang``: an ISO code of :data:`detox_core.vocab.LANGUAGES` (``ar``, ``de``, ...);
- ``task``: ``toxicity``, ``content`` or ``fluency``;
- ``text``: the text judged (the rewrite for the content task);
- ``answer``: ``yes``/``no`` (or ``1``/``0``) for toxicity and content; ``fluent``,
  ``partially fluent`` or ``not fluent`` (or ``1``/``0.5``/``0``) for fluency;
- ``explanation``: why that is the answer (shown as written);
- ``input``: the original sentence, required for the content task, else optional.

Control items (:func:`detox_core.annotation.controls.load_controls`) have the columns
``task``, ``text``, ``golden`` (the answer, as above), optional ``input``,
``explanation``, ``lang`` (required when the project judges several languages) and
``kind`` (``control``, the default: mixed into work pages; ``exam``: asked in the exam).
They are the control questions of a language the corpus does not cover.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from detox_core.annotation.crowd import normalise_label
from detox_core.annotation.tasks import TASKS, Example
from detox_core.data import Source, parse_table, read_text
from detox_core.errors import DetoxInputError
from detox_core.vocab import LANGUAGES

EXAMPLE_COLUMNS = ("lang", "task", "text", "answer", "explanation")


@dataclass(frozen=True)
class Row:
    """One record of an upload: its cells by column name and the line it starts on."""

    cells: dict[str, str]
    line: int
    label: str

    def get(self, column: str) -> str:
        return self.cells.get(column, "").strip()

    def fail(self, problem: str, column: str) -> DetoxInputError:
        return DetoxInputError(problem, self.label, self.line, column)

    def task(self) -> str:
        task = self.get("task").lower()
        if task not in TASKS:
            raise self.fail(f"unknown task {task!r}; expected one of {', '.join(TASKS)}", "task")
        return task

    def text(self, column: str = "text") -> str:
        body = self.get(column)
        if not body:
            raise self.fail(f"{column} is empty", column)
        return body

    def answer(self, task: str, column: str) -> float:
        raw = self.cells.get(column, "")
        try:
            value = normalise_label(raw, task)
        except ValueError:
            value = None
        allowed = (0.0, 0.5, 1.0) if task == "fluency" else (0.0, 1.0)
        if value is None or value not in allowed:
            said = "fluent, partially fluent or not fluent" if task == "fluency" else "yes or no"
            raise self.fail(f"{raw.strip()!r} is not an answer of the {task} task (expected {said})", column)
        return value

    def lang(self, languages: Collection[str] | None, required: bool) -> str:
        code = self.get("lang").lower()
        if not code:
            if required:
                raise self.fail("lang is empty: give the language's ISO code, e.g. ar or de", "lang")
            return ""
        if code not in LANGUAGES:
            raise self.fail(f"unknown language code {code!r}; expected one of {', '.join(sorted(LANGUAGES))}", "lang")
        if languages is not None and code not in languages:
            raise self.fail(f"the project does not judge {LANGUAGES[code]} ({code}); its languages are "
                            f"{', '.join(sorted(languages)) or 'none'}", "lang")
        return code

    def content_input(self, task: str) -> str:
        src = self.get("input")
        if task == "content" and not src:
            raise self.fail("a content item needs the original sentence in 'input'", "input")
        return src


def read_rows(source: Source, name: str | None, required: Collection[str], what: str) -> list[Row]:
    """The records of an uploaded TSV with ``required`` columns (at least one record)."""
    text, label = read_text(source, name)
    table = parse_table(text, label, "\t")
    header = [h.strip().lower() for h in table.header]
    for col in required:
        if col not in header:
            raise DetoxInputError(f"missing column {col!r}; the header has {', '.join(table.header)} "
                                  f"(expected tab-separated columns {', '.join(required)})", label, 1, col)
    if not table.rows:
        raise DetoxInputError(f"expected at least one {what} after the header, found none", label)
    return [Row(dict(zip(header, rec)), line, label) for rec, line in zip(table.rows, table.lines)]


def load_examples(source: Source, *, name: str | None = None,
                  languages: Collection[str] | None = None) -> list[Example]:
    """Worked examples per language (see the module docstring).

    Args:
        languages: the languages the project judges; an example of another one is an
            error (None: any known language).

    Raises:
        DetoxInputError: a missing column, no rows, an unknown or empty language, an
            unknown task, an empty text or explanation, a content example without its
            original, an answer the task does not have (file, line and column named).
    """
    out = []
    for row in read_rows(source, name, EXAMPLE_COLUMNS, "example"):
        lang = row.lang(languages, required=True)
        task = row.task()
        out.append(Example(row.text(), row.answer(task, "answer"), row.text("explanation"),
                           input=row.content_input(task), lang=lang, task=task))
    return out
