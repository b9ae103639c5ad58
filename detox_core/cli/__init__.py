"""Command line: ``python -m detox_core <command> ...``; one module per command group
(:mod:`.data`, :mod:`.embedded`, :mod:`.score`, :mod:`.human`, :mod:`.annotation`,
:mod:`.server`), sharing :mod:`.args`. Only this package prints.

Commands:
    fetch-data       fill ``data/<edition>`` from a mirror or the public sources.
    build-lexicons   build the toxic lexicon of every TextDetox language into ``data/lexicons``.
    train-embedded   rebuild the ``embedded`` preset's heads from the data folder (they ship
                     trained with the package) and measure the preset's agreement with people.
    agreement        measure presets' agreement with people (what ranking pages state).
    score            score submissions with a metric preset.
    meta-eval        agreement of automatic metrics with human judgements.
    aggregate        aggregate crowd answers (majority vote or Dawid-Skene).
    crowd-filter     three crowd exports -> the pairs people accept, scored (MERA ruDetox).
    fit-calibrators  a preset's calibrators fitted on human judgements (JSON).
    export-annotations  an annotation project's human judgements as a CSV.
    health           check that the database answers (for monitoring a deployment).
    serve            start the app's server with its models warming from the start
                     (options after it go to ``streamlit run app.py``).

Conventions (also ``detox --help``): results (figures, tables, ``--json``) on stdout, every
message (progress, notes, "written: ...", errors) on stderr; exit codes in :data:`EXIT_CODES`.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence

from detox_core.cli import annotation, data, embedded, human, score, server
from detox_core.errors import DataMissingError, DetoxError, ScorerUnavailableError, UnknownNameError, UsageError
from detox_core.metrics import bertscore
from detox_core.version import __version__


#: What each exit code of a command means (documented in ``--help`` and on the docs site's Command line page).
EXIT_CODES = {
    0: "done",
    1: "bad data: a file's content, data not fetched or trained, the database",
    2: "usage: unknown, missing or conflicting options, an option's value of the wrong form",
    3: "a model, judge or part of the package that cannot load or run here (a missing extra: which to install)",
    130: "interrupted (Ctrl-C or SIGTERM); what was done so far is kept",
}


def exit_code(err: BaseException) -> int:
    """The exit code of a command that failed with ``err`` (see :data:`EXIT_CODES`)."""
    if isinstance(err, (UsageError, UnknownNameError)):
        return 2
    if isinstance(err, DataMissingError):  # models not trained yet are missing data, as files not fetched
        return 1
    if isinstance(err, ScorerUnavailableError):
        return 3
    return 1


class _Parser(argparse.ArgumentParser):
    """argparse's parser (its usage errors exit 2), keeping the last usage error's words for
    ``--json`` (the sub-commands' parsers are of this class too)."""

    last_error: str | None = None

    def error(self, message: str):  # noqa: D401 - argparse's hook
        _Parser.last_error = message
        super().error(message)


def _usage_json(argv: Sequence[str], done: SystemExit) -> None:
    """A usage error of a ``--json`` command, also as its JSON object on stdout."""
    if done.code == 2 and "--json" in argv and _Parser.last_error is not None:
        command = next((a for a in argv if not a.startswith("-")), None)
        print(json.dumps({"command": command, "error": _Parser.last_error, "exit_code": 2}, ensure_ascii=False))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="detox", description="Evaluate text detoxification systems (also: python -m detox_core).",
        epilog="results go to stdout, messages to stderr; exit codes: "
               + "; ".join(f"{code} {what}" for code, what in EXIT_CODES.items()),
    )
    parser.add_argument("--version", action="version", version=f"detox-dashboard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    data.add_commands(sub)  # fetch-data, build-lexicons
    embedded.add_commands(sub)  # train-embedded, agreement, ceilings
    score.add_commands(sub)
    human.add_commands(sub)  # meta-eval, crowd-filter, fit-calibrators
    annotation.add_commands(sub)  # aggregate, export-annotations
    server.add_commands(sub)  # health, deploy-nginx, serve
    return parser


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _said(err: DetoxError | OSError, args: argparse.Namespace | None = None) -> int:
    """Say ``err`` on stderr (and, for a ``--json`` command, as a JSON object on stdout: a
    script reading stdout gets one object either way); its exit code."""
    text = f"{err.filename or 'output'}: {err.strerror or err}" if isinstance(err, OSError) else str(err)
    code = 1 if isinstance(err, OSError) else exit_code(err)
    print(f"error: {text}", file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps({"command": getattr(args, "command", None), "error": text, "exit_code": code},
                         ensure_ascii=False))
    return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    _Parser.last_error = None
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and not getattr(args, "passes_options", False):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as done:  # a usage error (or --help, --version: exit 0)
        _usage_json(words, done)
        raise
    if getattr(args, "passes_options", False):  # serve: Streamlit's options, and its own signal handling
        args.streamlit_args = extra
        try:
            return int(args.func(args))
        except DetoxError as err:  # before the server starts: no app to serve
            return _said(err)
    if getattr(args, "bertscore", False) or getattr(args, "bertscore_model", None):
        bertscore.configure(enabled=True, model=args.bertscore_model, layer=args.bertscore_layer)
    # SIGTERM (a stopped job, a container) ends a command like Ctrl-C: the LLM judge then keeps
    # the answers of the requests it has sent (they are paid for) before exiting.
    previous = signal.signal(signal.SIGTERM, _interrupt) if threading.current_thread() is threading.main_thread() else None
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted: the answers received so far are kept; run the same command again to go on",
              file=sys.stderr)
        return 130
    except DetoxError as err:  # bad input, missing data, the database, a model: said for people
        return _said(err, args)
    except OSError as err:  # reading an input or writing the output failed (disk full, permissions)
        return _said(err, args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
