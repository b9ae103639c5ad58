"""Throughput of ``python -m detox_core score`` on the TextDetox 2024 files, for every preset
that runs on this machine.

Two workloads, each through :func:`detox_core.submissions.batch.score_submissions` (what
the command runs: validation, matching by text and language, scoring, writing the files):

* ``test``: the 5,400-row 2024 test set with the Duplicate output (9 languages);
* ``sample``: the 4,320 pairs of the nine-language meta-evaluation sample, six systems'
  outputs of the same 720 inputs, scored in one run (one pool, one memo).

Each workload runs twice in one process on one model pool: ``cold`` (models loaded, every
text new) and ``warm`` (the pool's per-text memo already holds the texts: what a second
command on a served pool, or several submissions sharing inputs, cost). A preset that
cannot run here (its models are on the hub, no LLM endpoint) is listed with the reason.
Rows answered and pairs scored are both printed: a preset that covers fewer languages
scores only theirs (the rest is n/a, written with the reason).

Run after ``make data``: ``.venv/bin/python benchmarks/bench_cli_score.py`` (``--preset``
to choose; ``--model ROLE=DIR`` to give a preset local model folders).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from detox_core import editions  # noqa: E402
from detox_core.editions.textdetox import SAMPLE_SYSTEMS  # noqa: E402
from detox_core.errors import DetoxError  # noqa: E402
from detox_core.metrics.registry import registered  # noqa: E402
from detox_core.models import ModelPool  # noqa: E402
from detox_core.submissions.batch import score_submissions  # noqa: E402


def workloads() -> dict[str, tuple[str, list[Path]]]:
    ed = editions.get_edition("textdetox2024")
    test = [ed.path("outputs/duplicate_test.tsv")]
    sample = [ed.path(f"outputs/{system}_sample.tsv") for system in SAMPLE_SYSTEMS]
    missing = [p for p in test + sample if not p.is_file()]
    if missing:
        sys.exit(f"missing {', '.join(map(str, missing))}: run `make data` (python -m detox_core fetch-data)")
    return {"test": ("test", test), "sample": ("sample", sample)}


def run(preset: str, split: str, files: list[Path], pool: ModelPool, models: dict[str, str]) -> tuple[float, int, int]:
    """Seconds, rows answered and pairs scored of one ``score`` run."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        result = score_submissions(None, files, Path(out), preset=preset, edition="textdetox2024", split=split,
                                   pool=pool, models=models or None)
        seconds = time.perf_counter() - start
        summary = result.summary
    return seconds, int(summary["n"].sum()), int(summary["n_scored"].sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", action="append", help="presets to run (default: every registered one)")
    parser.add_argument("--model", action="append", default=[], metavar="ROLE=DIR")
    parser.add_argument("--backend", default="auto", choices=["auto", "torch", "onnx"])
    args = parser.parse_args()
    models = dict(item.split("=", 1) for item in args.model)
    loads = workloads()
    print(f"{'preset':<14} {'workload':<8} {'rows':>6} {'scored':>7} {'cold s':>8} {'pairs/s':>8} "
          f"{'warm s':>8} {'pairs/s':>8}")
    for preset in args.preset or list(registered()):
        reason = registered()[preset].unavailable()
        if reason:
            print(f"{preset:<14} cannot run here: {reason.split(':')[0]}")
            continue
        pool = ModelPool(device="cpu", backend=args.backend)
        for name, (split, files) in loads.items():
            try:
                cold, rows, scored = run(preset, split, files, pool, models)
                warm, _, _ = run(preset, split, files, pool, models)
            except DetoxError as err:
                print(f"{preset:<14} cannot run here: {str(err).splitlines()[0][:160]}")
                break
            print(f"{preset:<14} {name:<8} {rows:>6,} {scored:>7,} {cold:>8.2f} {scored / cold:>8.0f} "
                  f"{warm:>8.2f} {scored / warm:>8.0f}")


if __name__ == "__main__":
    main()
