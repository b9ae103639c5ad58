"""Data commands: ``fetch-data`` (each edition's files from a mirror or their public homes)
and ``build-lexicons`` (the toxic lexicon of every TextDetox language)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from detox_core import config, editions
from detox_core.errors import UsageError
from detox_core.lexicons.build import LANGUAGES, build_lexicons


def _cmd_fetch_data(args: argparse.Namespace) -> int:
    chosen = [editions.get_edition(args.edition)] if args.edition else editions.editions()
    if args.target and len(chosen) > 1:
        raise UsageError(f"--target names one edition's folder: add --edition (one of "
                              f"{', '.join(e.name for e in chosen)})")
    mirrors = [Path(m) for m in args.mirror] if args.mirror else None
    failed = 0
    for edition in chosen:
        files = edition.files
        bar = tqdm(total=len(files), desc=f"fetch-data {edition.name}", unit="file", file=sys.stderr,
                   disable=args.quiet)

        def progress(result: editions.FetchResult, bar=bar) -> None:
            bar.update(1)
            if args.quiet:
                return
            rows = f"{result.rows:,} rows" if result.rows is not None else ""
            where = f" ({result.detail})" if result.ok and result.status != "present" else ""
            bar.write(f"  {result.status:>8}  {result.rel:<40} {rows}{where}", file=sys.stderr)

        report = edition.fetch(Path(args.target) if args.target else None, mirrors, download=not args.no_download,
                               force=args.force, timeout=args.timeout, progress=progress)
        bar.close()
        for r in report.skipped:
            print(f"  optional, not fetched: {r.rel}: {r.detail}", file=sys.stderr)
        if report.ok:
            done = len(report.results) - len(report.skipped)
            print(f"data ready in {report.target}: {done} files verified"
                  + (f" ({len(report.skipped)} optional file(s) not fetched, see above)" if report.skipped else ""))
            continue
        failed += 1
        print(f"\n{len(report.missing)} file(s) of {edition.title} could not be fetched into {report.target}:",
              file=sys.stderr)
        for r in report.missing:
            print(f"  - {r.rel}: {r.detail}", file=sys.stderr)
    lexicons_ok = True
    if args.no_lexicons:
        pass
    elif args.target:
        print("lexicons not built (--target: they are built from the data folder; run build-lexicons there)",
              file=sys.stderr)
    else:
        # The Delete baseline and the Corpus page's marks read them: built from what is here now,
        # so an installed copy has them after this one command.
        lexicons_ok = _build(None, args.quiet)
    if failed:
        print(
            "The app still starts: load your own corpus or submission files in its sidebar, or run\n"
            "  python -m detox_core fetch-data --mirror DIR\n"
            "with DIR a folder that holds a copy of these files.",
            file=sys.stderr,
        )
        return 1
    return 0 if lexicons_ok else 1


def _build(root: Path | None, quiet: bool) -> bool:
    """Build every language's lexicon with a progress bar; False (said) when it fails."""
    bar = tqdm(total=len(LANGUAGES), desc="build-lexicons", unit="language", file=sys.stderr, disable=quiet)

    def step(msg: str) -> None:
        bar.update(1)
        if not quiet:
            bar.write(f"  {msg}", file=sys.stderr)

    try:
        built = build_lexicons(root, step=step)
    except (OSError, ValueError) as err:
        bar.close()
        print(f"build-lexicons: failed ({err}); the Delete baseline has no list outside Russian", file=sys.stderr)
        return False
    bar.close()
    weak = [lang for lang, lex in built.items() if lex.weak]
    print(f"{len(built)} lexicons built in {(root or config.data_dir()) / 'lexicons'}"
          + (f"; weak: {', '.join(weak)}" if weak else ""))
    return True


def _cmd_build_lexicons(args: argparse.Namespace) -> int:
    return 0 if _build(Path(args.data_dir) if args.data_dir else None, args.quiet) else 1


def add_commands(sub) -> None:
    fetch = sub.add_parser("fetch-data", help="fetch the editions' data into data/<edition>, then build the toxic "
                           "lexicons from it")
    fetch.add_argument("--edition", choices=[e.name for e in editions.editions()],
                       help="one edition (default: every edition: " + ", ".join(e.name for e in editions.editions()) + ")")
    fetch.add_argument("--mirror", action="append", metavar="DIR", help="folder with a copy of the files (repeatable)")
    fetch.add_argument("--target", metavar="DIR", help="where to put them (default: data/<edition>)")
    fetch.add_argument("--no-download", action="store_true", help="use mirrors only")
    fetch.add_argument("--force", action="store_true", help="fetch again even when files are present and valid")
    fetch.add_argument("--timeout", type=float, default=20.0, help="seconds per download (default 20)")
    fetch.add_argument("--no-lexicons", action="store_true",
                       help="do not build the toxic lexicons afterwards (build-lexicons does it alone)")
    fetch.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    fetch.set_defaults(func=_cmd_fetch_data)

    lex = sub.add_parser("build-lexicons", help="build the toxic lexicon of every TextDetox language into data/lexicons")
    lex.add_argument("--data-dir", metavar="DIR", help="data folder (default: data/ or $DETOX_DATA_DIR)")
    lex.add_argument("-q", "--quiet", action="store_true", help="no per-language lines")
    lex.set_defaults(func=_cmd_build_lexicons)

