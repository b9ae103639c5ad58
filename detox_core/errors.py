"""One exception hierarchy: a base per failure family, so that a page catches one class.

::

    DetoxError                      anything the library refuses or cannot do, said for people
    ├── DetoxInputError (ValueError)      bad input: a file, a form field, an option
    │   ├── UnknownNameError (KeyError)   a preset, edition or aggregator that is not registered
    │   └── UsageError                    a command's options that cannot work together
    ├── DataMissingError (FileNotFoundError)   data that has not been fetched or trained yet
    │   └── EmbeddedMissingError               the embedded models are not trained (also a
    │                                          ScorerUnavailableError: the preset cannot run)
    ├── ScorerUnavailableError (RuntimeError)  a scorer that cannot run here
    │   └── ModelUnavailableError              a model that cannot be loaded
    ├── StorageError (RuntimeError)            the database cannot do it right now
    │   └── UnsavedScoresError                 scored, but storing failed
    └── AnnotationError (ValueError)           an annotation rule refuses the request

Every message says what was expected, what was found and what to do, in words for the
people using the app.
"""

from __future__ import annotations

from pathlib import Path


class DetoxError(Exception):
    """Base of every error the library raises on purpose."""


class DetoxInputError(DetoxError, ValueError):
    """Input that does not follow a data contract.

    The message says what was expected, what was found and where: the file, and the
    line and column when they are known (both 1-based, as editors count them).

    Attributes:
        path: the offending file, or None for in-memory data.
        line: 1-based line number, or None.
        column: 1-based column (character for text, field for tables), or None.
        problem: the bare description, without the location prefix.
    """

    def __init__(
        self,
        problem: str,
        path: str | Path | None = None,
        line: int | None = None,
        column: int | str | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.column = column
        self.problem = problem
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            col = self.column
            where.append(f"column {col}" if isinstance(col, int) else f"column '{col}'")
        return f"{', '.join(where)}: {self.problem}" if where else self.problem

    def __str__(self) -> str:
        return self._format()


class UsageError(DetoxInputError):
    """A command line that cannot be run as written: options missing or in conflict, an
    option's value of the wrong form or naming what does not exist (an output folder that is
    a file). The command exits with 2, as for argparse's own errors; a file whose content is
    wrong is a plain :class:`DetoxInputError` (exit 1)."""


class UnknownNameError(DetoxInputError, KeyError):
    """A name that no registry holds (preset, edition, aggregator, model role); the
    message lists the known ones. Also a ``KeyError``, as a dictionary lookup is."""

    def __str__(self) -> str:  # KeyError would quote the message
        return self._format()


class DataMissingError(DetoxError, FileNotFoundError):
    """A dataset file that has not been fetched yet (the message says how to fetch it)."""


class ScorerUnavailableError(DetoxError, RuntimeError):
    """A scorer that cannot run here (a model that cannot load, a judge without access,
    offline models not trained yet): it says so, never a zero score."""


class MissingExtraError(ScorerUnavailableError, ImportError):
    """A part of the package whose extra is not installed (the official recipes' models, the
    dashboard, PostgreSQL's driver): one line names the extra and the pip command
    (:mod:`detox_core.extras`)."""


class EmbeddedMissingError(DataMissingError, ScorerUnavailableError):
    """The embedded models have not been trained on this machine yet (missing data, so
    the embedded preset cannot run)."""


class ModelUnavailableError(ScorerUnavailableError):
    """A model that cannot be loaded: which one, why, and how to fix it."""

    def __init__(self, model_id: str, reason: str, role: str | None = None) -> None:
        self.model_id = model_id
        self.reason = reason
        self.role = role
        what = f"the {role} model " if role else "model "
        super().__init__(
            f"Cannot load {what}'{model_id}': {reason}. If this machine cannot reach the model hub, "
            f"download the model elsewhere and point to its folder: `--model {role or 'ROLE'}=DIR` on the "
            f"command line, DETOX_MODEL_MAP='{model_id}=DIR' in the environment, or the model settings "
            "of the app. The embedded preset needs no download."
        )


class StorageError(DetoxError, RuntimeError):
    """The database cannot do what was asked right now: it is down, damaged, read-only,
    full or busy. The message says what happened and what to do, in words for the
    people using the app: no SQL, no server address, no file path (those go to the log).

    Attributes:
        kind: ``unreachable``, ``read-only``, ``damaged``, ``full``, ``busy`` or ``refused``.
    """

    def __init__(self, message: str, kind: str = "refused") -> None:
        super().__init__(message)
        self.kind = kind


class AnnotationError(DetoxError, ValueError):
    """A request an annotation rule refuses (a banned annotator, a page that is not
    theirs, a setting out of range), with a message for the user."""


class UnknownCodeError(AnnotationError):
    """An access code no project has (a sign-in throttle counts these against the address:
    someone may be guessing codes)."""


class WrongSecretError(AnnotationError):
    """A name that exists, with a password that does not match it (a sign-in throttle
    counts these against the name as well as the address)."""
