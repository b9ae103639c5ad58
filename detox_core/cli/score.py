"""The ``score`` command: whole submissions scored from the shell, as the editions'
official scripts do (:func:`detox_core.submissions.batch.score_submissions`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from detox_core import editions
from detox_core.cli.args import (add_bertscore_options, add_json_option, calibrator_options, emit_json, int_in, out_dir,
                                 parse_models, written)
from detox_core.errors import UsageError
from detox_core.metrics.registry import DEFAULT_PRESET, preset_class, registered
from detox_core.models import ModelPool
from detox_core.models.disk_cache import default_disk_cache
from detox_core.stats.summary import FIGURES as SUMMARY_FIGURES, LABELS, TOO_FEW
from detox_core.submissions.batch import BatchResult, Reporter, score_submissions


class TerminalReporter(Reporter):
    """A progress bar per submission on stderr, and its notes and languages there too. The
    notes are kept (``notes``) for ``--json``, which prints them in its object instead."""

    def __init__(self, quiet: bool, estimates: bool | None = None):
        self.quiet = quiet
        self.wants_estimates = not quiet if estimates is None else estimates
        self._bar: tqdm | None = None
        self.notes: dict[str, list[str]] = {}

    def note(self, name: str, text: str) -> None:
        self.notes.setdefault(name, []).append(text)
        if not self.quiet:
            print(f"{name}: {text}", file=sys.stderr)

    def progress(self, name: str, total: int, unit: str):
        bar = self._bar = tqdm(total=total, desc=name, unit=unit, file=sys.stderr, disable=self.quiet, leave=False)
        last = {"step": None}

        def step(label: str, done: int, total: int) -> None:
            if label != last["step"]:
                bar.set_postfix_str(label)
                last["step"] = label
            bar.total = max(total, 1)  # an LLM judge counts requests, not pairs
            bar.n = done
            bar.refresh()

        return step

    def finished(self, name: str) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def languages(self, name: str, described: str, table: pd.DataFrame) -> None:
        if self.quiet:
            return
        print(f"{name}: {described}", file=sys.stderr)
        for row in table.itertuples(index=False):
            j = "n/a" if pd.isna(row.j) else f"{row.j:.3f}"
            print(f"  {row.lang:<4} {row.language:<10} n={row.n:<5} J={j:<6} {row.note}", file=sys.stderr)


def _cmd_score(args: argparse.Namespace) -> int:
    if args.out is None and not args.json:
        raise UsageError("give --out DIR for the score files, or --json to print the figures only")
    preset_class(args.preset)  # an unknown preset is a usage error (exit 2), whatever the inputs
    pool = ModelPool(device=args.device, batch_size=args.batch_size, backend=args.backend,
                     precision=args.precision, token_budget=args.token_budget,
                     disk_cache=None if args.no_disk_cache else default_disk_cache())
    reporter = TerminalReporter(args.quiet or args.json, estimates=not args.quiet)
    result = score_submissions(
        Path(args.inputs) if args.inputs else None, [Path(p) for p in args.preds],
        out_dir(args.out) if args.out is not None else None,
        preset=args.preset, calibrated=not args.raw, models=parse_models(args.model), pool=pool,
        references=Path(args.refs) if args.refs else None, reporter=reporter,
        options={**_llm_options(args), **calibrator_options(args.preset, args.calibrators)},
        edition=args.edition, split=args.split, lang=args.lang.strip().lower() if args.lang else None,
        n_boot=args.n_boot,
    )
    if args.json:
        emit_json(score_json(args, result, reporter.notes))
    else:
        for line in system_lines(result):
            print(line)
    if result.written:
        written(f"{len(result.written)} files in {result.written[-1].parent}")
    return 0


#: The figures of a system line and of ``--json``, in this order (chrF needs references).
FIGURES = tuple((col, LABELS[col]) for col in SUMMARY_FIGURES)


def _interval(row: dict, col: str) -> dict:
    """A summary row's figure as ``{"mean", "low", "high"}`` (and ``"interval"``: why it is n/a)."""
    out = {"mean": row.get(col), "low": row.get(f"{col}_low"), "high": row.get(f"{col}_high")}
    if isinstance(row.get(f"{col}_interval"), str):
        out["interval"] = row[f"{col}_interval"]
    return out


def system_lines(result: BatchResult) -> list[str]:
    """One line per submission: its name, J with its 95% interval, STA, SIM, FL and chrF (over
    languages, each counting once, for a multilingual task, and the edition's named averages), n."""
    lines = []
    width = max((len(n) for n in result.summary["submission"]), default=0)
    for row in result.summary.to_dict("records"):
        figures = []
        for col, label in FIGURES:
            value = row.get(col)
            text = "n/a" if value is None or pd.isna(value) else f"{value:.3f}"
            if col == "j" and text != "n/a":
                low, high = row.get("j_low"), row.get("j_high")
                text += (f" [{low:.3f}, {high:.3f}]" if low is not None and not pd.isna(low)
                         else f" (interval {row.get('j_interval') or TOO_FEW})")
            figures.append(f"{label} {text}")
        extra = "".join(f"  J_{k} {v:.3f}" for k, v in _averages(result, row).items() if not pd.isna(v))
        if "mean_over" in row:
            over = f", mean over {row['mean_over']} languages"
        elif str(row.get("averaged", "")).startswith("over ") and row["averaged"] != "over pairs":
            over = f", mean {row['averaged']}: {row['languages']}"  # detected languages, each counting once
        else:
            over = ""
        lines.append(f"{row['submission']:<{width}}  {'  '.join(figures)}{extra}  (n={int(row['n'])}{over})")
    return lines


def _averages(result: BatchResult, row: dict) -> dict[str, float]:
    """A summary row's named averages of J (an edition's ``avg_p``...), not its J per language."""
    languages = result.languages.get(row["submission"])
    codes = set(languages["lang"]) if languages is not None else set()
    return {k[2:]: row[k] for k in row
            if k.startswith("j_") and k not in ("j_raw", "j_low", "j_high", "j_interval") and k[2:] not in codes}


def score_json(args: argparse.Namespace, result: BatchResult, notes: dict[str, list[str]] | None = None) -> dict:
    """``score --json``: what was scored (the inputs, the preset), each submission's figures
    (each a mean and its 95% interval, per language for a multilingual task), its signature
    and the notes the terminal would have shown (an LLM judge's requests and cost, rows left
    unscored...), the files written (none without ``--out``). The figures are those of
    ``summary.csv`` and of ``detox_core.score``: one summary (:mod:`detox_core.stats.summary`)."""
    systems = []
    for row in result.summary.to_dict("records"):
        name = row["submission"]
        sig = result.tables[name].attrs.get("signature", {})
        entry: dict = {"name": name, "n": int(row["n"]), **{col: row.get(col) for col, _ in FIGURES},
                       "intervals": {col: _interval(row, col) for col, _ in FIGURES}}
        languages = result.languages.get(name)
        if languages is not None:
            entry["mean_over"] = row.get("mean_over")
            entry["averages"] = _averages(result, row)
            entry["languages"] = {
                lang["lang"]: {"language": lang["language"], "n": int(lang["n"]),
                               **{col: lang.get(col) for col, _ in FIGURES},
                               "intervals": {col: _interval(lang, col) for col, _ in FIGURES},
                               "note": lang["note"]}
                for lang in languages.to_dict("records")}
        entry["signature"] = result.signatures[name]
        entry["signature_fields"] = sig
        entry["notes"] = list((notes or {}).get(name, []))
        systems.append(entry)
    return {"command": "score", "inputs": result.label, "edition": args.edition, "split": result.split,
            "preset": args.preset, "calibrated": systems[0]["signature_fields"].get("calibrated") if systems else None,
            "systems": systems,
            "written": [str(p) for p in result.written]}


def add_commands(sub) -> None:
    """Add ``score`` to the subcommands ``sub``."""
    score = sub.add_parser(
        "score", help="score submissions with a metric preset",
        description="Score submission files as the editions' official scripts do: RUSSE-2022 style (one output "
                    "per line) or TextDetox (CodaLab TSV toxic_sentence, neutral_sentence, lang, or its zip).",
        epilog=_score_examples(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    where = score.add_mutually_exclusive_group(required=True)
    where.add_argument("--inputs", metavar="FILE",
                       help="the toxic inputs: a corpus TSV (its neutral_comment columns are the references), a "
                            "text file with one input per line, or a TextDetox inputs TSV (toxic_sentence, lang; "
                            "references in an optional neutral_sentence column)")
    where.add_argument("--edition", choices=[e.name for e in editions.editions()],
                       help="the inputs and references of an edition's split, from the data folder (fetch-data)")
    score.add_argument("--split", metavar="SPLIT",
                       help="with --edition: the split (default: test); with a TextDetox --inputs file: its name "
                            "in messages")
    score.add_argument("--preds", required=True, nargs="+", metavar="FILE",
                       help="submissions: text or TSV; for TextDetox inputs the CodaLab TSV or the zip holding it")
    score.add_argument("--preset", default=DEFAULT_PRESET, metavar="PRESET",
                       help="the metric recipe: " + "; ".join(f"{n}: {c.title}" for n, c in registered().items())
                       + f" (default: {DEFAULT_PRESET})")
    score.add_argument("--model", action="append", metavar="ROLE=DIR",
                       help="load a preset's model (sta, sim, fl) from a local folder or another id")
    score.add_argument("--refs", metavar="FILE",
                       help="references: a corpus TSV row for row (RUSSE style), or a TSV toxic_sentence, "
                            "neutral_sentence, lang matched by text and language (TextDetox); default: those of "
                            "the inputs")
    score.add_argument("--raw", action="store_true", help="uncalibrated scores (official calibration is the default)")
    score.add_argument("--calibrators", metavar="FILE.json",
                       help="rudetox-mera: calibrators written by fit-calibrators (default: those saved for it)")
    score.add_argument("--out", metavar="DIR",
                       help="where the score files go (per sentence, per language, summary.csv, signatures); "
                            "without it, --json prints the figures and nothing is written")
    score.add_argument("--lang", metavar="CODE",
                       help="the language of inputs without a lang column (a text file, a corpus TSV); default: "
                            "each input's language is detected, as detox_core.score detects it")
    score.add_argument("--n-boot", type=int_in(1, 10000), default=1000,
                       help="bootstrap resamples for the 95%% intervals (default 1000)")
    score.add_argument("--device", choices=["cpu", "cuda"], help="default: cuda when available")
    score.add_argument("--backend", choices=["auto", "torch", "onnx"], default="auto",
                       help="CPU runtime for transformer models (default: ONNX Runtime when installed)")
    score.add_argument("--batch-size", type=int_in(1, 4096), default=32,
                       help="texts per forward pass at most (default: 32; short texts go 8x as many a batch)")
    score.add_argument("--token-budget", type=int_in(16, 10**7), metavar="TOKENS",
                       help="tokens per forward pass at most, padding included (default: 64 x --batch-size)")
    score.add_argument("--precision", choices=["float32", "float16", "bfloat16"],
                       help="the models' floating-point type on a GPU (default: DETOX_PRECISION, else float32; "
                            "half precision is recorded in the signature); the CPU always runs float32")
    score.add_argument("--no-disk-cache", action="store_true",
                       help="do not read or fill the on-disk cache of model outputs (data/cache/model_outputs)")
    score.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    add_json_option(score)
    add_bertscore_options(score)
    llm = score.add_argument_group("llm-judge preset (the key: $OPENAI_API_KEY only)")
    llm.add_argument("--llm-base-url", metavar="URL", help="chat-completions server (default $OPENAI_BASE_URL)")
    llm.add_argument("--llm-model", metavar="NAME", help="model name (default $DETOX_LLM_MODEL)")
    llm.add_argument("--llm-concurrency", type=int_in(1, 64), help="requests in flight (default 8)")
    llm.add_argument("--llm-template", metavar="FILE.toml", help="a prompt template (default: the built-in one)")
    llm.add_argument("--llm-price-in", type=float, metavar="USD", help="price per 1M input tokens (for the cost)")
    llm.add_argument("--llm-price-out", type=float, metavar="USD", help="price per 1M output tokens")
    llm.add_argument("--llm-timeout", type=float, metavar="S", help="seconds per request (default 60)")
    llm.add_argument("--llm-local", metavar="DIR_OR_ID", help="judge with a local causal LM instead of a server")
    score.set_defaults(func=_cmd_score)


def _llm_options(args: argparse.Namespace) -> dict:
    """The ``--llm-*`` options, for the llm-judge preset (the key only from the environment)."""
    if args.preset != "llm-judge":
        return {}
    values = {"base_url": args.llm_base_url, "model": args.llm_model, "concurrency": args.llm_concurrency,
              "template": args.llm_template, "price_in": args.llm_price_in, "price_out": args.llm_price_out,
              "timeout": args.llm_timeout}
    options: dict = {"local_model": args.llm_local} if args.llm_local else {}
    return {**options, **{k: v for k, v in values.items() if v is not None}}


def _score_examples() -> str:
    """``score --help``'s examples, with the registered editions' names."""
    mono = next((e.name for e in editions.editions() if not e.multilingual), None)
    multi = [e.name for e in editions.editions() if e.multilingual]
    lines = ["examples:"]
    if mono:
        lines.append(f"  python -m detox_core score --edition {mono} --preds team.txt --out out")
    if multi:
        lines.append(f"  python -m detox_core score --edition {multi[-1]} --split dev --preds a.tsv b.zip --out out")
    lines.append("  python -m detox_core score --inputs test_inputs.tsv --refs refs.tsv --preds team.tsv --out out")
    return "\n".join(lines)


