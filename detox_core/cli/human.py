"""Commands on human judgements: ``meta-eval`` (automatic metrics against people),
``crowd-filter`` (three crowd exports -> the pairs people accept, scored) and
``fit-calibrators`` (a preset's calibrators from human labels, written as JSON)."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from detox_core import data
from detox_core.analysis.meta_eval import add_reference_metrics, join_score_files, meta_eval
from detox_core.annotation.crowd_filter import KEEP, crowd_filter, read_pairs_table
from detox_core.cli.args import (FITTED, add_bertscore_options, add_json_option, calibrator_options, emit_json, fraction,
                                 int_in, interval, out_file, parse_models, step_bars, written)
from detox_core.data.spreadsheet import csv_text, unescape_cell
from detox_core.errors import DetoxInputError, UsageError
from detox_core.calibration import fitted as fitted_calibration
from detox_core.metrics.base import system_scores
from detox_core.metrics.registry import get_preset, preset_class, preset_names
from detox_core.metrics.rudetox_mera_published import published_set
from detox_core.metrics.textdetox2025 import add_2025_recipes
from detox_core.models import ModelPool
from detox_core.version import __version__
from detox_core.vocab import HUMAN_AXES


def _preset(args: argparse.Namespace) -> object:
    options = calibrator_options(args.preset, getattr(args, "calibrators", None))
    pool = ModelPool(device=args.device, batch_size=args.batch_size)
    return get_preset(args.preset, pool=pool, models=parse_models(args.model), **options)


def _score_pairs(preset, inputs: list[str], outputs: list[str], calibrated: bool, quiet: bool) -> pd.DataFrame:
    step, close = step_bars(quiet)
    try:
        return preset.score(inputs, outputs, None, calibrated=calibrated, progress=step)
    finally:
        close()


def _cmd_crowd_filter(args: argparse.Namespace) -> int:
    out = out_file(args.out)
    labels_out = out_file(args.labels) if args.labels else None
    pairs = read_pairs_table(Path(args.table))
    exports = {task: (Path(getattr(args, task)), None) for task in KEEP}
    result = crowd_filter(pairs, exports, min_control_accuracy=args.min_control_accuracy, min_votes=args.min_votes)
    print(result.summary())
    for report in result.reports.values():
        for text in report.unmatched[:10]:
            print(f"  unmatched in {report.file}: {text[:120]!r}", file=sys.stderr)
        if len(report.unmatched) > 10:
            print(f"  ... and {len(report.unmatched) - 10} more unmatched in {report.file}", file=sys.stderr)
    kept = result.kept
    if not args.no_score and len(kept):
        preset = _preset(args)
        scores = _score_pairs(preset, kept["input"].tolist(), kept["output"].tolist(), not args.raw, args.quiet)
        sig = scores.attrs["signature"]
        kept = pd.concat([kept, scores.drop(columns="chrf").reset_index(drop=True)], axis=1)
        means = system_scores(scores.drop(columns="chrf"))
        state = "calibrated" if sig["calibrated"] else "raw" + (f" ({sig['calibration']['note']})"
                                                                 if sig.get("calibration", {}).get("note") else "")
        print(f"{args.preset} on the {len(kept):,} kept pairs, {state}: "
              + ", ".join(f"{k.upper()} {v:.3f}" for k, v in means.items() if not k.endswith("_raw"))
              + "; raw: " + ", ".join(f"{k[:-4].upper()} {v:.3f}" for k, v in means.items() if k.endswith("_raw")))
    data.write_text_atomic(out, csv_text(kept))
    if labels_out:
        data.write_text_atomic(labels_out, csv_text(result.table))
    written(out, *([labels_out] if labels_out else []))
    return 0


def _cmd_meta_eval(args: argparse.Namespace) -> int:
    out = out_file(args.out) if args.out else None
    frame = add_reference_metrics(add_2025_recipes(data.load_human_judgements(Path(args.human))))
    if args.scores:
        if not Path(args.scores).is_dir():
            raise UsageError(f"--scores {args.scores}: no such folder (give the --out folder of a `score` run)")
        frame = join_score_files(frame, Path(args.scores))
    table = meta_eval(frame, n_boot=args.n_boot)
    if table.empty:
        print("no automatic metric found: pass --scores DIR or a file with metric columns", file=sys.stderr)
        return 1
    if out:
        data.write_text_atomic(out, csv_text(table, float_format="%.6f"))
    if args.json:
        emit_json({"command": "meta-eval", "human": args.human, "scores": args.scores,
                   "judged_pairs": len(frame), "rows": table.to_dict("records"),
                   "signature": f"meta-eval|boot:{args.n_boot}|ci:95|lib:{__version__}",
                   "written": [str(out)] if out else []})
    else:
        print(f"{'axis':<4} {'metric':<18} {'level':<8} {'n':>5}  {'Spearman':<24} {'Pearson':<24} "
              f"{'ROC-AUC / ranking acc.':<24}")
        for r in table.itertuples(index=False):
            third = interval(r.roc_auc, r.roc_auc_low, r.roc_auc_high) if r.level == "sentence" else interval(
                r.ranking_accuracy, r.ranking_accuracy_low, r.ranking_accuracy_high)
            print(f"{r.axis:<4} {r.metric:<18} {r.level:<8} {r.n:>5}  "
                  f"{interval(r.spearman, r.spearman_low, r.spearman_high):<24} "
                  f"{interval(r.pearson, r.pearson_low, r.pearson_high):<24} {third:<24}")
    if out:
        written(args.out)
    return 0


def raw_scores_from_file(path: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """``sta``/``sim``/``fl`` raw scores of the judged rows, joined by (input, output)
    from a CSV with ``input``/``output`` (or ``toxic_sentence``/``neutral_sentence``) and
    ``sta_raw``/``sim_raw``/``fl_raw`` columns (what ``crowd-filter`` and ``score`` write)."""
    table = pd.read_csv(path, dtype={"input": str, "output": str}, keep_default_na=False, na_values=[""])
    cols = ("input", "output") if {"input", "output"} <= set(table.columns) else ("toxic_sentence", "neutral_sentence")
    need = {*cols, "sta_raw", "sim_raw", "fl_raw"}
    if not need <= set(table.columns):
        raise DetoxInputError(f"expected the columns {', '.join(sorted(need))}; found {', '.join(table.columns)}",
                              str(path), 1)
    lookup = {(unescape_cell(str(a)).strip(), unescape_cell(str(b)).strip()): (s, m, f) for a, b, s, m, f in
              zip(table[cols[0]], table[cols[1]], table["sta_raw"], table["sim_raw"], table["fl_raw"])}
    rows = [lookup.get((str(a).strip(), str(b).strip()), (np.nan,) * 3)
            for a, b in zip(frame["toxic_sentence"], frame["neutral_sentence"])]
    return pd.DataFrame(rows, columns=["sta", "sim", "fl"], index=frame.index, dtype=float)


def _cmd_fit_calibrators(args: argparse.Namespace) -> int:
    out = out_file(args.out) if args.out else fitted_calibration.saved_path(args.preset)
    if args.published:
        path = fitted_calibration.save(published_set(args.preset), out)
        print("MERA's published calibrator (one isotonic map for STA, SIM and FL)")
        written(path)
        return 0
    if not args.human:
        raise UsageError("give --human FILE (the judgements to fit on) or --published")
    frame = data.load_human_judgements(Path(args.human))
    if "lang" in frame:
        frame = frame[frame["lang"].map(preset_class(args.preset).covers)]
    if frame.empty:
        raise DetoxInputError(f"no judged pair in a language {args.preset} covers", args.human)
    if args.scores:
        raw = raw_scores_from_file(Path(args.scores), frame)
    else:
        preset = _preset(args)
        scores = _score_pairs(preset, frame["toxic_sentence"].tolist(), frame["neutral_sentence"].tolist(), False,
                              args.quiet)
        raw = pd.DataFrame({a: scores[f"{a}_raw"].to_numpy(float) for a in ("sta", "sim", "fl")}, index=frame.index)
    missing = int(raw.isna().any(axis=1).sum())
    if missing == len(raw):
        raise DetoxInputError("no judged pair has a score in --scores (joined by input and output text)", args.scores)
    human = {a: frame[HUMAN_AXES[a]].to_numpy(float) for a in ("sta", "sim", "fl")}
    description = args.description or (f"{Path(args.human).name}: {len(frame):,} judged pairs"
                                        + (f" of {frame['participant_name'].nunique()} systems"
                                           if "participant_name" in frame else ""))
    cals = fitted_calibration.fit_set(args.preset, {a: raw[a].to_numpy(float) for a in raw}, human, args.kind,
                                      description, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    path = fitted_calibration.save(cals, out)
    if missing:
        print(f"{missing:,} judged pairs without a score were left out", file=sys.stderr)
    print(f"{args.kind} calibrators for {args.preset} fitted on {cals.fitted_on['n']:,} pairs "
          f"(sha256 {cals.fitted_on['sha256'][:12]})")
    written(path)
    return 0


def add_commands(sub) -> None:
    meta = sub.add_parser("meta-eval", help="agreement of automatic metrics with human judgements")
    meta.add_argument("--human", required=True, metavar="FILE", help="human judgements (humaneval_textdetox_ru schema)")
    meta.add_argument("--scores", metavar="DIR", help="a folder written by `score --out`, joined by system and text")
    meta.add_argument("--out", metavar="FILE.csv", help="write the table as CSV")
    meta.add_argument("--n-boot", type=int_in(1, 100_000), default=1000, help="bootstrap resamples for the intervals (default 1000)")
    add_json_option(meta)
    add_bertscore_options(meta)
    meta.set_defaults(func=_cmd_meta_eval)



    def scoring_options(p: argparse.ArgumentParser, choices) -> None:
        p.add_argument("--preset", default="rudetox-mera", choices=choices, help="the metric recipe (default: rudetox-mera)")
        p.add_argument("--model", action="append", metavar="ROLE=DIR", help="load a role's model from a local folder")
        p.add_argument("--device", choices=["cpu", "cuda"], help="default: cuda when available")
        p.add_argument("--batch-size", type=int, default=32)
        p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")

    cf = sub.add_parser("crowd-filter", help="keep the pairs three crowd projects judged non-toxic, same meaning "
                        "and fluent (the MERA ruDetox workflow), and score them")
    cf.add_argument("--table", required=True, metavar="FILE", help="the pairs (CSV/TSV: inputs/outputs, "
                    "toxic_comment/neutral_comment, ...)")
    for task in KEEP:
        cf.add_argument(f"--{task}", required=True, metavar="FILE.tsv", help=f"the {task} project's export")
    cf.add_argument("--min-control-accuracy", type=fraction, default=0.5,
                    help="leave out workers below this accuracy on control items (default 0.5)")
    cf.add_argument("--min-votes", type=int, default=3, help="votes the majority label needs (default 3)")
    cf.add_argument("--out", required=True, metavar="FILE.csv", help="the kept pairs, with their scores")
    cf.add_argument("--labels", metavar="FILE.csv", help="also every pair of the table with its three labels")
    cf.add_argument("--no-score", action="store_true", help="only filter")
    cf.add_argument("--raw", action="store_true", help="uncalibrated scores")
    cf.add_argument("--calibrators", metavar="FILE.json", help="fitted calibrators (default: those saved for the preset)")
    scoring_options(cf, preset_names())
    cf.set_defaults(func=_cmd_crowd_filter)

    fc = sub.add_parser("fit-calibrators", help="fit a preset's calibrators on human judgements (JSON, no pickle)")
    fc.add_argument("--human", metavar="FILE", help="human judgements (humaneval_textdetox_ru schema)")
    fc.add_argument("--published", action="store_true", help="write MERA's published benchmark calibrator "
                    "(its lm-eval filter's isotonic map, applied to all three axes) instead of fitting")
    fc.add_argument("--scores", metavar="FILE.csv", help="the preset's raw scores (input, output, sta_raw, sim_raw, "
                    "fl_raw), joined by text; default: computed with the preset's models")
    fc.add_argument("--kind", choices=fitted_calibration.KINDS, default="isotonic",
                    help="isotonic (as MERA's calibrators) or logistic (default isotonic)")
    fc.add_argument("--description", help="what the judgements are (recorded in the signature)")
    fc.add_argument("--out", metavar="FILE.json", help="where to write them (default: the file the app and the "
                    "preset read, data/models/calibrators/<preset>.json)")
    scoring_options(fc, FITTED)
    fc.set_defaults(func=_cmd_fit_calibrators)
