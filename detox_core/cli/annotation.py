"""Annotation commands: ``aggregate`` (crowd answers exported from a crowdsourcing platform)
and ``export-annotations`` (an annotation project's judgements as a CSV)."""

from __future__ import annotations

import argparse
from pathlib import Path

from detox_core import data
from detox_core.annotation.aggregation import DEFAULT_AGGREGATOR, aggregator_names, aggregator_title
from detox_core.annotation.crowd import aggregate_crowd, load_crowd_tsv
from detox_core.annotation.results import aggregate_project, humaneval_table
from detox_core.annotation.store import AnnotationStore
from detox_core.cli.args import add_json_option, emit_json, fraction, out_file, written
from detox_core.data.spreadsheet import csv_text
from detox_core.errors import UsageError
from detox_core.version import __version__


def _cmd_aggregate(args: argparse.Namespace) -> int:
    out = out_file(args.out)
    results = load_crowd_tsv(Path(args.crowd), args.task)
    table = aggregate_crowd(results, args.method, args.min_control_accuracy)
    data.write_text_atomic(out, csv_text(table))
    labelled = int(table["label"].notna().sum())
    if args.json:
        labels = table["label"].dropna().value_counts().sort_index()
        emit_json({"command": "aggregate", "crowd": args.crowd, "task": args.task, "method": args.method,
                   "items": len(table), "labelled": labelled, "unlabelled": len(table) - labelled,
                   "labels": {(str(int(k)) if float(k).is_integer() else str(k)): int(v) for k, v in labels.items()},
                   "skipped_rows": {"empty_input": results.skipped_empty, "rejected": results.skipped_rejected},
                   "signature": f"aggregate|task:{args.task}|method:{args.method}|"
                                f"min-control-accuracy:{args.min_control_accuracy:g}|lib:{__version__}",
                   "written": [str(out)]})
    else:
        print(f"{len(table)} items, {labelled} labelled, {len(table) - labelled} without a label; skipped rows: "
              f"{results.skipped_empty} with empty input, {results.skipped_rejected} rejected")
    written(out)
    return 0


def _cmd_export_annotations(args: argparse.Namespace) -> int:
    out = out_file(args.out)
    store = AnnotationStore(args.db)
    projects = {p.name: p for p in store.projects()}
    if args.project not in projects:
        raise UsageError(f"no annotation project named {args.project!r}; the database has "
                              f"{', '.join(sorted(projects)) or 'none'}")
    project = projects[args.project]
    table = humaneval_table(store, project, aggregate_project(store, project, method=args.method),
                            complete_only=not args.all)
    data.write_text_atomic(out, csv_text(table))
    print(f"{len(table)} pairs of {table['participant_name'].nunique()} systems")
    written(out)
    return 0


def add_commands(sub) -> None:
    agg = sub.add_parser("aggregate", help="aggregate crowd answers exported from a crowdsourcing platform")
    agg.add_argument("--crowd", required=True, metavar="FILE.tsv", help="INPUT:/OUTPUT:/GOLDEN:/ASSIGNMENT: columns")
    agg.add_argument("--task", required=True, choices=["toxicity", "content", "fluency"])
    agg.add_argument("--method", choices=aggregator_names(), default=DEFAULT_AGGREGATOR,
                     help="; ".join(f"{n}: {aggregator_title(n)}" for n in aggregator_names())
                     + f" (default: {DEFAULT_AGGREGATOR})")
    agg.add_argument("--min-control-accuracy", type=fraction, default=0.5,
                     help="drop workers below this accuracy on control items (default 0.5)")
    agg.add_argument("--out", required=True, metavar="FILE.csv")
    add_json_option(agg)
    agg.set_defaults(func=_cmd_aggregate)

    exp = sub.add_parser("export-annotations", help="an annotation project's human judgements as a CSV")
    exp.add_argument("--project", required=True, help="the project's name")
    exp.add_argument("--method", choices=aggregator_names(), help="aggregation (default: the project's setting)")
    exp.add_argument("--all", action="store_true", help="also pairs that miss a label (as empty cells)")
    exp.add_argument("--db", metavar="URL", help="database URL (default: $DETOX_DB_URL or data/detox.sqlite)")
    exp.add_argument("--out", required=True, metavar="FILE.csv")
    exp.set_defaults(func=_cmd_export_annotations)

