"""The one exception type for bad user input."""

from __future__ import annotations

from pathlib import Path


class DetoxInputError(ValueError):
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


class StorageError(RuntimeError):
    """The database cannot do what was asked right now: it is down, damaged, read-only,
    full or busy. The message says what happened and what to do, in words for the
    people using the app: no SQL, no server address, no file path (those go to the log).

    Attributes:
        kind: ``unreachable``, ``read-only``, ``damaged``, ``full``, ``busy`` or ``refused``.
    """

    def __init__(self, message: str, kind: str = "refused") -> None:
        super().__init__(message)
        self.kind = kind
