"""``python -m detox_core.deployment.logpipe FILE [--max-mb 20] [--keep 3]``: standard input to
``FILE``, rotated: past ``--max-mb`` megabytes it becomes ``FILE.1`` (``FILE.1`` becomes
``FILE.2`` and so on, ``--keep`` of them kept) and a new ``FILE`` starts. ``deploy/run.sh``
pipes each app process's output through it, so a flood of log lines (a client that hangs up
again and again, say) fills at most ``(keep + 1) x max-mb`` of disk instead of all of it."""

from __future__ import annotations

import argparse
import logging
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path


def rotating_file(path: Path, max_bytes: int, keep: int) -> RotatingFileHandler:
    """The standard library's rotating file, writing each line as it came (no format of its own)."""
    out = RotatingFileHandler(path, maxBytes=max_bytes, backupCount=keep, encoding="utf-8", errors="replace")
    out.setFormatter(logging.Formatter("%(message)s"))
    out.terminator = ""
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m detox_core.deployment.logpipe", description=__doc__.split("\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--max-mb", type=float, default=20.0)
    ap.add_argument("--keep", type=int, default=3)
    args = ap.parse_args(argv)
    if args.max_mb <= 0 or args.keep < 1:  # (the standard library's handler keeps growing with none)
        ap.error("--max-mb must be above 0 and --keep 1 or more")
    out = rotating_file(args.file, int(args.max_mb * 1024 * 1024), args.keep)
    try:
        for line in sys.stdin.buffer:
            out.emit(logging.makeLogRecord({"msg": line.decode("utf-8", errors="replace"), "args": None}))
    except KeyboardInterrupt:
        pass
    finally:
        out.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
