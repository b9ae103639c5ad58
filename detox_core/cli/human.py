"""Commands on human judgements: ``crowd-filter`` (three crowd exports -> the pairs
people accept, scored) and ``fit-calibrators`` (a preset's calibrators from human
labels, written as JSON). Registered by :mod:`detox_core.cli`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from detox_core import data
from detox_core.annotation.crowd_filter import KEEP, crowd_filter, read_pairs_table
from detox_core.errors import DetoxInputError
from detox_core.metrics import fitted_calibration
from detox_core.metrics.base import system_scores
from detox_core.metrics.registry import get_preset, preset_class, preset_names
from detox_core.models import ModelPool
from detox_core.vocab import HUMAN_AXES

#: Presets whose calibrators are fitted from human judgements (they take ``calibrators=``).
FITTED = ("rudetox-mera",)


def _progress(quiet: bool) -> tuple[Callable[[str, int, int], None], Callable[[], None]]:
    """A tqdm bar per scoring step, and a function closing the last one."""
    bars: dict[str, tqdm] = {}

    def step(name: str, done: int, total: int) -> None:
        bar = bars.get(name)
        if bar is None:
            for other in bars.values():
                other.close()
            bar = bars[name] = tqdm(total=total, desc=name, unit="text", file=sys.stderr, disable=quiet)
        bar.n = done
        bar.refresh()

    return step, lambda: [b.close() for b in bars.values()]


def _preset(args: argparse.Namespace, parse_models: Callable) -> object:
    options = {}
    if getattr(args, "calibrators", None):
        if args.preset not in FITTED:
            raise DetoxInputError(f"--calibrators applies to {', '.join(FITTED)}, not {args.preset}")
        options["calibrators"] = fitted_calibration.load(Path(args.calibrators))
    pool = ModelPool(device=args.device, batch_size=args.batch_size)
    return get_preset(args.preset, pool=pool, models=parse_models(args.model), **options)


def _score_pairs(preset, inputs: list[str], outputs: list[str], calibrated: bool, quiet: bool) -> pd.DataFrame:
    step, close = _progress(quiet)
    try:
        return preset.score(inputs, outputs, None, calibrated=calibrated, progress=step)
    finally:
        close()


def cmd_crowd_filter(args: argparse.Namespace, parse_models: Callable, out_file: Callable) -> int:
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
        preset = _preset(args, parse_models)
        scores = _score_pairs(preset, kept["input"].tolist(), kept["output"].tolist(), not args.raw, args.quiet)
        sig = scores.attrs["signature"]
        kept = pd.concat([kept, scores.drop(columns="chrf").reset_index(drop=True)], axis=1)
        means = system_scores(scores.drop(columns="chrf"))
        state = "calibrated" if sig["calibrated"] else "raw" + (f" ({sig['calibration']['note']})"
                                                                 if sig.get("calibration", {}).get("note") else "")
        print(f"{args.preset} on the {len(kept):,} kept pairs, {state}: "
              + ", ".join(f"{k.upper()} {v:.3f}" for k, v in means.items() if not k.endswith("_raw"))
              + "; raw: " + ", ".join(f"{k[:-4].upper()} {v:.3f}" for k, v in means.items() if k.endswith("_raw")))
    data.write_text_atomic(out, kept.to_csv(index=False))
    if labels_out:
        data.write_text_atomic(labels_out, result.table.to_csv(index=False))
    print(f"written: {out}" + (f", {labels_out}" if labels_out else ""), file=sys.stderr)
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
    lookup = {(str(a).strip(), str(b).strip()): (s, m, f) for a, b, s, m, f in
              zip(table[cols[0]], table[cols[1]], table["sta_raw"], table["sim_raw"], table["fl_raw"])}
    rows = [lookup.get((str(a).strip(), str(b).strip()), (np.nan,) * 3)
            for a, b in zip(frame["toxic_sentence"], frame["neutral_sentence"])]
    return pd.DataFrame(rows, columns=["sta", "sim", "fl"], index=frame.index, dtype=float)


def cmd_fit_calibrators(args: argparse.Namespace, parse_models: Callable, out_file: Callable) -> int:
    out = out_file(args.out) if args.out else fitted_calibration.saved_path(args.preset)
    if args.published:
        from detox_core.metrics.rudetox_mera_published import published_set

        path = fitted_calibration.save(published_set(args.preset), out)
        print(f"MERA's published calibrator (one isotonic map for STA, SIM and FL); written: {path}")
        return 0
    if not args.human:
        raise DetoxInputError("give --human FILE (the judgements to fit on) or --published")
    frame = data.load_human_judgements(Path(args.human))
    if "lang" in frame:
        frame = frame[frame["lang"].map(preset_class(args.preset).covers)]
    if frame.empty:
        raise DetoxInputError(f"no judged pair in a language {args.preset} covers", args.human)
    if args.scores:
        raw = raw_scores_from_file(Path(args.scores), frame)
    else:
        preset = _preset(args, parse_models)
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
          f"(sha256 {cals.fitted_on['sha256'][:12]}); written: {path}")
    return 0


def add_commands(sub, parse_models: Callable, out_file: Callable, fraction: Callable) -> None:
    """Register ``crowd-filter`` and ``fit-calibrators`` on the CLI's subparsers."""

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
    cf.set_defaults(func=lambda a: cmd_crowd_filter(a, parse_models, out_file))

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
    fc.set_defaults(func=lambda a: cmd_fit_calibrators(a, parse_models, out_file))
