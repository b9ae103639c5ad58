"""Command line: ``python -m detox_core <command> ...``.

Commands:
    fetch-data   fill ``data/russe2022`` from a mirror or the public sources.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from detox_core import __version__
from detox_core.errors import DetoxInputError


def _cmd_fetch_data(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from detox_core import fetch

    files = fetch.RUSSE2022_FILES
    mirrors = [Path(m) for m in args.mirror] if args.mirror else fetch.default_mirrors()
    bar = tqdm(total=len(files), desc="fetch-data", unit="file", file=sys.stderr, disable=args.quiet)

    def progress(result: fetch.FetchResult) -> None:
        bar.update(1)
        if args.quiet:
            return
        rows = f"{result.rows:,} rows" if result.rows is not None else ""
        where = f" ({result.detail})" if result.ok and result.status != "present" else ""
        bar.write(f"  {result.status:>8}  {result.rel:<40} {rows}{where}", file=sys.stderr)

    report = fetch.fetch_russe2022(
        Path(args.target) if args.target else None,
        mirrors,
        download=not args.no_download,
        force=args.force,
        timeout=args.timeout,
        files=files,
        progress=progress,
    )
    bar.close()
    if report.ok:
        print(f"data ready in {report.target}: {len(report.results)} files verified")
        return 0
    print(f"\n{len(report.missing)} file(s) could not be fetched into {report.target}:", file=sys.stderr)
    for r in report.missing:
        print(f"  - {r.rel}: {r.detail}", file=sys.stderr)
    print(
        "The app still starts: load your own corpus or submission files in its sidebar, or run\n"
        "  python -m detox_core fetch-data --mirror DIR\n"
        "with DIR a folder that holds a copy of these files.",
        file=sys.stderr,
    )
    return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m detox_core", description="Evaluate text detoxification systems.")
    parser.add_argument("--version", action="version", version=f"detox-dashboard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    fetch = sub.add_parser("fetch-data", help="fetch the RUSSE-2022 data into data/russe2022")
    fetch.add_argument("--mirror", action="append", metavar="DIR", help="folder with a copy of the files (repeatable)")
    fetch.add_argument("--target", metavar="DIR", help="where to put them (default: data/russe2022)")
    fetch.add_argument("--no-download", action="store_true", help="use mirrors only")
    fetch.add_argument("--force", action="store_true", help="fetch again even when files are present and valid")
    fetch.add_argument("--timeout", type=float, default=20.0, help="seconds per download (default 20)")
    fetch.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    fetch.set_defaults(func=_cmd_fetch_data)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except DetoxInputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
