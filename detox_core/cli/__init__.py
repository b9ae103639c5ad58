"""Command line: ``python -m detox_core <command> ...``.

Commands:
    fetch-data       fill ``data/<edition>`` from a mirror or the public sources.
    build-lexicons   build the toxic lexicon of every TextDetox language into ``data/lexicons``.
    train-embedded   train the offline models of the ``embedded`` preset, fit them on human
                     judgements (kept only if that agrees better on systems left out) and
                     measure the preset's agreement with people.
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
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from detox_core import __version__, config, data, editions
from detox_core.cli import embedded as cli_embedded
from detox_core.analysis.meta_eval import add_reference_metrics, join_score_files, meta_eval
from detox_core.annotation.aggregation import DEFAULT_AGGREGATOR, aggregator_names, aggregator_title
from detox_core.annotation.crowd import aggregate_crowd, load_crowd_tsv
from detox_core.annotation.results import aggregate_project, humaneval_table
from detox_core.cli.human import add_commands as add_human_commands
from detox_core.cli.score import add_score_command
from detox_core.annotation.store import AnnotationStore
from detox_core.db import health, make_engine
from detox_core.embedded.recipe import train_embedded
from detox_core.errors import DetoxError, DetoxInputError, EmbeddedMissingError
from detox_core.metrics import bertscore
from detox_core.metrics.textdetox2025 import add_2025_recipes


def _int_in(lo: int, hi: int):
    """argparse type: an integer in [lo, hi]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, found {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected an integer from {lo:,} to {hi:,}, found {value:,}")
        return value
    return parse


def _fraction(text: str) -> float:
    """argparse type: a number in [0, 1] (NaN refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, found {text!r}") from None
    if not 0.0 <= value <= 1.0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, found {text!r}")
    return value


def _out_file(path: str) -> Path:
    """An output file: not a folder, in a folder that exists or can be made, writable."""
    out = Path(path)
    if out.is_dir():
        raise DetoxInputError(f"--out {path} is a folder; give a file name, such as {out / 'out.csv'}")
    _writable_folder(out.parent, f"--out {path}")
    return out


def _out_dir(path: str) -> Path:
    """An output folder: refused when it is a file or cannot be made or written."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise DetoxInputError(f"--out {path} is a file; give a folder for the score files")
    _writable_folder(out, f"--out {path}")
    return out


def _writable_folder(folder: Path, what: str) -> None:
    """Refuse a folder that cannot be made or written, without making it: a command
    that fails later leaves nothing behind."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise DetoxInputError(f"{what}: cannot create the folder {folder} ({existing} is a file)")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise DetoxInputError(f"{what}: the folder {existing} is not writable")


def _cmd_fetch_data(args: argparse.Namespace) -> int:


    chosen = [editions.get_edition(args.edition)] if args.edition else editions.editions()
    if args.target and len(chosen) > 1:
        raise DetoxInputError(f"--target names one edition's folder: add --edition (one of "
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
    if failed:
        print(
            "The app still starts: load your own corpus or submission files in its sidebar, or run\n"
            "  python -m detox_core fetch-data --mirror DIR\n"
            "with DIR a folder that holds a copy of these files.",
            file=sys.stderr,
        )
        return 1
    return 0


def _cmd_train_embedded(args: argparse.Namespace) -> int:

    try:
        folder = train_embedded(Path(args.data_dir) if args.data_dir else None, force=args.force,
                                step=lambda msg: print(f"train-embedded: {msg}", file=sys.stderr))
    except EmbeddedMissingError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if args.data_dir and Path(args.data_dir).resolve() != config.data_dir().resolve():
        args.no_agreement = True  # measured on the app's data folder only
    status = cli_embedded.after_training(args, folder)
    print(folder)
    return status


def _parse_models(items: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise DetoxInputError(f"--model expects ROLE=DIR_OR_ID (roles: sta, sim, fl), found {item!r}")
        role, value = item.split("=", 1)
        out[role.strip()] = value.strip()
    return out


def _fmt(value: float, lo: float, hi: float) -> str:
    if value != value:
        return "n/a"
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


def _cmd_meta_eval(args: argparse.Namespace) -> int:

    out = _out_file(args.out) if args.out else None
    frame = add_reference_metrics(add_2025_recipes(data.load_human_judgements(Path(args.human))))
    if args.scores:
        if not Path(args.scores).is_dir():
            raise DetoxInputError(f"--scores {args.scores}: no such folder (give the --out folder of a `score` run)")
        frame = join_score_files(frame, Path(args.scores))
    table = meta_eval(frame, n_boot=args.n_boot)
    if table.empty:
        print("no automatic metric found: pass --scores DIR or a file with metric columns", file=sys.stderr)
        return 1
    print(f"{'axis':<4} {'metric':<18} {'level':<8} {'n':>5}  {'Spearman':<24} {'Pearson':<24} {'ROC-AUC / ranking acc.':<24}")
    for r in table.itertuples(index=False):
        third = _fmt(r.roc_auc, r.roc_auc_low, r.roc_auc_high) if r.level == "sentence" else _fmt(
            r.ranking_accuracy, r.ranking_accuracy_low, r.ranking_accuracy_high)
        print(f"{r.axis:<4} {r.metric:<18} {r.level:<8} {r.n:>5}  {_fmt(r.spearman, r.spearman_low, r.spearman_high):<24} "
              f"{_fmt(r.pearson, r.pearson_low, r.pearson_high):<24} {third:<24}")
    if out:
        data.write_text_atomic(out, table.to_csv(index=False, float_format="%.6f"))
        print(f"written: {args.out}", file=sys.stderr)
    return 0


def _cmd_aggregate(args: argparse.Namespace) -> int:

    out = _out_file(args.out)
    results = load_crowd_tsv(Path(args.crowd), args.task)
    table = aggregate_crowd(results, args.method, args.min_control_accuracy)
    data.write_text_atomic(out, table.to_csv(index=False))
    labelled = int(table["label"].notna().sum())
    print(f"{len(table)} items, {labelled} labelled, {len(table) - labelled} without a label; skipped rows: "
          f"{results.skipped_empty} with empty input, {results.skipped_rejected} rejected; written: {out}")
    return 0


def _cmd_export_annotations(args: argparse.Namespace) -> int:

    out = _out_file(args.out)
    store = AnnotationStore(args.db)
    projects = {p.name: p for p in store.projects()}
    if args.project not in projects:
        raise DetoxInputError(f"no annotation project named {args.project!r}; the database has "
                              f"{', '.join(sorted(projects)) or 'none'}")
    project = projects[args.project]
    table = humaneval_table(store, project, aggregate_project(store, project, method=args.method),
                            complete_only=not args.all)
    data.write_text_atomic(out, table.to_csv(index=False))
    print(f"{len(table)} pairs of {table['participant_name'].nunique()} systems; written: {out}")
    return 0


def _cmd_health(args: argparse.Namespace) -> int:

    problem = health(make_engine(args.db))
    if problem is None:
        print("database: ok")
        return 0
    print(f"database: down ({problem.kind}): {problem}", file=sys.stderr)
    return 1


def _cmd_build_lexicons(args: argparse.Namespace) -> int:
    from detox_core.lexicons.build import build_lexicons  # noqa: PLC0415 - loads wordfreq and the segmenters

    root = Path(args.data_dir) if args.data_dir else None
    built = build_lexicons(root, step=None if args.quiet else lambda msg: print(f"  {msg}", file=sys.stderr))
    weak = [lang for lang, lex in built.items() if lex.weak]
    print(f"{len(built)} lexicons built in {(root or config.data_dir()) / 'lexicons'}"
          + (f"; weak: {', '.join(weak)}" if weak else ""))
    return 0


def _cmd_deploy_nginx(args: argparse.Namespace) -> int:
    from detox_core.server import deploy  # noqa: PLC0415

    try:
        if args.run_dir:
            conf = deploy.write_configs(Path(args.run_dir), args.processes, args.first_port, args.listen, args.workers)
            print(conf)
        else:
            print(deploy.site_config(args.processes, args.first_port, args.listen, server_name=args.server_name,
                                     servers=args.servers.split(",") if args.servers else None), end="")
    except ValueError as err:
        print(f"deploy-nginx: {err}", file=sys.stderr)
        return 2
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from detox_core.ui.app.serve import serve  # noqa: PLC0415 - imports Streamlit's server

    return serve(args.streamlit_args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m detox_core", description="Evaluate text detoxification systems.")
    parser.add_argument("--version", action="version", version=f"detox-dashboard {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    fetch = sub.add_parser("fetch-data", help="fetch the editions' data into data/<edition>")
    fetch.add_argument("--edition", choices=[e.name for e in editions.editions()],
                       help="one edition (default: every edition: " + ", ".join(e.name for e in editions.editions()) + ")")
    fetch.add_argument("--mirror", action="append", metavar="DIR", help="folder with a copy of the files (repeatable)")
    fetch.add_argument("--target", metavar="DIR", help="where to put them (default: data/<edition>)")
    fetch.add_argument("--no-download", action="store_true", help="use mirrors only")
    fetch.add_argument("--force", action="store_true", help="fetch again even when files are present and valid")
    fetch.add_argument("--timeout", type=float, default=20.0, help="seconds per download (default 20)")
    fetch.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    fetch.set_defaults(func=_cmd_fetch_data)

    lex = sub.add_parser("build-lexicons", help="build the toxic lexicon of every TextDetox language into data/lexicons")
    lex.add_argument("--data-dir", metavar="DIR", help="data folder (default: data/ or $DETOX_DATA_DIR)")
    lex.add_argument("-q", "--quiet", action="store_true", help="no per-language lines")
    lex.set_defaults(func=_cmd_build_lexicons)

    train = sub.add_parser("train-embedded", help="train the offline models of the embedded preset")
    train.add_argument("--data-dir", metavar="DIR", help="data folder (default: data/ or $DETOX_DATA_DIR)")
    train.add_argument("--force", action="store_true", help="train again even when the models exist")
    cli_embedded.add_train_options(train)
    train.set_defaults(func=_cmd_train_embedded)

    add_score_command(sub, _int_in, _parse_models, _out_dir, _add_bertscore_options)

    meta = sub.add_parser("meta-eval", help="agreement of automatic metrics with human judgements")
    meta.add_argument("--human", required=True, metavar="FILE", help="human judgements (humaneval_textdetox_ru schema)")
    meta.add_argument("--scores", metavar="DIR", help="a folder written by `score --out`, joined by system and text")
    meta.add_argument("--out", metavar="FILE.csv", help="write the table as CSV")
    meta.add_argument("--n-boot", type=_int_in(1, 100_000), default=1000, help="bootstrap resamples for the intervals (default 1000)")
    _add_bertscore_options(meta)
    meta.set_defaults(func=_cmd_meta_eval)

    agg = sub.add_parser("aggregate", help="aggregate crowd answers exported from a crowdsourcing platform")
    agg.add_argument("--crowd", required=True, metavar="FILE.tsv", help="INPUT:/OUTPUT:/GOLDEN:/ASSIGNMENT: columns")
    agg.add_argument("--task", required=True, choices=["toxicity", "content", "fluency"])
    agg.add_argument("--method", choices=aggregator_names(), default=DEFAULT_AGGREGATOR,
                     help="; ".join(f"{n}: {aggregator_title(n)}" for n in aggregator_names())
                     + f" (default: {DEFAULT_AGGREGATOR})")
    agg.add_argument("--min-control-accuracy", type=_fraction, default=0.5,
                     help="drop workers below this accuracy on control items (default 0.5)")
    agg.add_argument("--out", required=True, metavar="FILE.csv")
    agg.set_defaults(func=_cmd_aggregate)

    exp = sub.add_parser("export-annotations", help="an annotation project's human judgements as a CSV")
    exp.add_argument("--project", required=True, help="the project's name")
    exp.add_argument("--method", choices=aggregator_names(), help="aggregation (default: the project's setting)")
    exp.add_argument("--all", action="store_true", help="also pairs that miss a label (as empty cells)")
    exp.add_argument("--db", metavar="URL", help="database URL (default: $DETOX_DB_URL or data/detox.sqlite)")
    exp.add_argument("--out", required=True, metavar="FILE.csv")
    exp.set_defaults(func=_cmd_export_annotations)

    hc = sub.add_parser("health", help="check that the database answers (exit 1 when it does not)")
    hc.add_argument("--db", metavar="URL", help="database URL (default: $DETOX_DB_URL or data/detox.sqlite)")
    hc.set_defaults(func=_cmd_health)
    dn = sub.add_parser("deploy-nginx", help="nginx's configuration for several app processes (see deploy/)")
    dn.add_argument("--processes", type=_int_in(1, 64), default=3, help="app processes (default 3)")
    dn.add_argument("--first-port", type=_int_in(1024, 65535), default=8601,
                    help="port of the first app process; the others follow (default 8601)")
    dn.add_argument("--listen", default="80", help="nginx's port, or address:port (default 80)")
    dn.add_argument("--servers", metavar="HOST:PORT,...",
                    help="the app processes' addresses (containers, other machines) instead of --processes/--first-port")
    dn.add_argument("--server-name", default="_", help="the site's server_name (default _: any)")
    dn.add_argument("--run-dir", metavar="DIR",
                    help="write a whole configuration that runs without root, DIR/nginx.conf (deploy/run.sh)")
    dn.add_argument("--workers", type=_int_in(1, 64), default=1, help="nginx worker processes with --run-dir")
    dn.set_defaults(func=_cmd_deploy_nginx)
    srv = sub.add_parser(
        "serve", allow_abbrev=False, help="start the app's server, its models warming from the start",
        description="Start the app's server: the default preset's models, and those of every preset whose models "
                    "are on this machine, warm in the background from the start, before the first visitor. Every "
                    "other option goes to `streamlit run app.py` (e.g. --server.port 8501 --server.headless true).")
    srv.set_defaults(func=_cmd_serve, passes_options=True)
    add_human_commands(sub, _parse_models, _out_file, _fraction)
    cli_embedded.add_commands(sub)
    return parser


def _add_bertscore_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("BERTScore (a reference metric; its model comes from the hub)")
    group.add_argument("--bertscore", action="store_true",
                       help="compute BERTScore F1 against the references (default: $DETOX_BERTSCORE, else off: n/a)")
    group.add_argument("--bertscore-model", metavar="ID_OR_DIR",
                       help=f"its model (default: bert-score's for Russian, {bertscore.DEFAULT_MODEL})")
    group.add_argument("--bertscore-layer", type=_int_in(0, 1000), metavar="N",
                       help="its layer (default: bert-score's layer for the model, 9 for the default)")


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if getattr(args, "passes_options", False):  # serve: Streamlit's options, and its own signal handling
        args.streamlit_args = extra
        return int(args.func(args))
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
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
    except DetoxError as err:  # bad input, missing data, the database: said for people
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # writing the output failed (disk full, permissions)
        print(f"error: {err.filename or 'output'}: {err.strerror or err}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
