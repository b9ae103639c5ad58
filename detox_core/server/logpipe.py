"""``python -m detox_core.server.logpipe FILE [--max-mb 20] [--keep 3]``: standard input to
``FILE``, rotated: past ``--max-mb`` megabytes it becomes ``FILE.1`` (``FILE.1`` becomes
``FILE.2`` and so on, ``--keep`` of them kept) and a new ``FILE`` starts. ``deploy/run.sh``
pipes each app process's output through it, so a flood of log lines (a client that hangs up
again and again, say) fills at most ``(keep + 1) x max-mb`` of disk instead of all of it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import BinaryIO


class RotatingFile:
    """A file that moves aside past ``max_bytes`` (the line that crosses it is kept whole)."""

    def __init__(self, path: Path, max_bytes: int, keep: int) -> None:
        self.path, self.max_bytes, self.keep = Path(path), max_bytes, keep
        self._out: BinaryIO = self.path.open("ab")
        self._size = self._out.tell()

    def write(self, line: bytes) -> None:
        self._out.write(line)
        self._out.flush()
        self._size += len(line)
        if self._size >= self.max_bytes:
            self.rotate()

    def rotate(self) -> None:
        self._out.close()
        for k in range(self.keep - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{k}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{k + 1}"))
        if self.keep > 0:
            os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        else:
            self.path.unlink(missing_ok=True)
        self._out, self._size = self.path.open("ab"), 0

    def close(self) -> None:
        self._out.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m detox_core.server.logpipe", description=__doc__.split("\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--max-mb", type=float, default=20.0)
    ap.add_argument("--keep", type=int, default=3)
    args = ap.parse_args(argv)
    if args.max_mb <= 0 or args.keep < 0:
        ap.error("--max-mb must be above 0 and --keep 0 or more")
    out = RotatingFile(args.file, int(args.max_mb * 1024 * 1024), args.keep)
    try:
        for line in sys.stdin.buffer:
            out.write(line)
    except KeyboardInterrupt:
        pass
    finally:
        out.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
