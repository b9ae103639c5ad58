"""The first score of a whole submission after a start: the TextDetox 2024 sample (720 pairs,
80 in each of 9 languages) on the Submissions page's path, with the default embedded preset.

Each measurement is a fresh Python process over a data folder of its own: the fetched
datasets (linked), an empty on-disk cache of model outputs and an empty database, so that
nothing is loaded or embedded yet, as on a server started for the first time (a server
restarted over a filled cache reads the vectors from disk instead). The process scores one
shipped output (``--first``) with :func:`detox_core.submissions.service.score_and_store_multilingual`,
as the page does, then another (``--warm``, same process: its inputs are embedded, its
outputs are new), then a new process scores the first again over the now filled cache
(``restart``). It prints, per side, the seconds of each and of the first score's stages:
``load`` (from the call to the first pair counted: the models of meaning, lingua, jieba)
and ``embed`` (the new texts through the model of meaning).

Sides, measured in turn in the same run (``--repeat`` rounds, medians printed):

- ``engine threads``: the model of meaning as before, one engine call at a time, each
  split over OpenMP threads that meet at a barrier dozens of times a batch and spin while
  they wait (this checkout with its engine's OpenMP runtime not looked up);
- ``one thread a call``: this checkout: several calls at once, each on one thread;
- ``baseline``: with ``--baseline DIR``, another checkout of the app (an older commit:
  ``git worktree add DIR COMMIT``), first in each round.

``--load N`` runs N busy processes (a Python loop each) during every measurement: other
people's work on a shared machine, the same for every side. The load average is printed
before and after.

Usage: ``python benchmarks/bench_first_score.py [--repeat 2] [--load 0] [--baseline DIR]
[--first SomethingAwful] [--warm Team_SINAI]``. Needs the TextDetox 2024 data
(``python -m detox_core fetch-data``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDITION, SPLIT = "textdetox2024", "sample"


def child(root: Path, names: list[str], engine_threads: bool) -> None:
    """One fresh process: score ``names`` in turn; print one JSON line of timings."""
    sys.path.insert(0, str(root))
    started = time.perf_counter()
    # Imported here, from the side's checkout, and timed: the process starts with nothing loaded.
    from detox_core import editions
    from detox_core.models import meaning
    from detox_core.submissions.service import (
        languages_elsewhere,
        score_and_store_multilingual,
        shipped_outputs,
        split_rows,
    )
    from detox_core.submissions.store import Store

    if engine_threads:
        meaning._engine_openmp = lambda: None
    imported = time.perf_counter() - started
    ed = editions.get_edition(EDITION)
    whole = ed.load(ed.available_splits())
    rows = split_rows(whole, SPLIT)
    shipped = shipped_outputs(EDITION, SPLIT)
    store = Store(None)
    out: dict = {"import": imported, "scores": []}
    for name in names:
        calls: list[tuple[float, str, int]] = []
        t0 = time.perf_counter()
        result = score_and_store_multilingual(
            store, shipped[name].read_bytes(), shipped[name].name, dataset=EDITION, split=SPLIT, rows=rows,
            preset="embedded", calibrated=True, source="shipped",
            progress=lambda step, done, total, calls=calls, t0=t0: calls.append((time.perf_counter() - t0, step, done)),
            elsewhere=languages_elsewhere(EDITION, SPLIT, whole))
        took = time.perf_counter() - t0
        counted = [t for t, step, _ in calls if step == "pairs" or step.startswith("meaning")]
        out["scores"].append({"name": name, "seconds": took, "pairs": result.stored.n, "already": result.already,
                              "load": counted[0] if counted else None,
                              "embed": (counted[-1] - counted[0]) if counted else 0.0,
                              "texts": meaning.COUNTER["embedded"]})
    print("RESULT " + json.dumps(out), flush=True)


def fresh_data(real: Path, where: Path) -> Path:
    """A data folder of its own: the real datasets linked, no cache, no database."""
    where.mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name != "cache" and not entry.name.startswith("detox.sqlite"):
            (where / entry.name).symlink_to(entry.resolve())
    return where


def run_child(root: Path, data: Path, names: list[str], engine_threads: bool) -> dict:
    env = {**os.environ, "DETOX_DATA_DIR": str(data), "DETOX_DB_URL": f"sqlite:///{data / 'detox.sqlite'}",
           "DETOX_WARMUP": "0"}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(root), *names]
    if engine_threads:
        cmd.append("--engine-threads")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600, check=False)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"the measuring process failed:\n{proc.stderr[-3000:]}")
    return json.loads(line.removeprefix("RESULT "))


def measure(root: Path, real: Path, first: str, warm: str, engine_threads: bool, tmp: Path) -> dict:
    data = fresh_data(real, tmp / f"data-{time.monotonic_ns()}")
    cold = run_child(root, data, [first, warm], engine_threads)
    (data / "detox.sqlite").unlink()  # a new database: the first file is scored again, over the filled cache
    again = run_child(root, data, [first], engine_threads)
    a, b = cold["scores"]
    return {"first": a["seconds"], "load": a["load"], "embed": a["embed"], "texts": a["texts"],
            "warm": b["seconds"], "restart": again["scores"][0]["seconds"], "pairs": a["pairs"]}


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--load", type=int, default=0, help="busy processes during every measurement")
    parser.add_argument("--baseline", type=Path, help="another checkout of the app, measured first")
    parser.add_argument("--first", default="SomethingAwful", help="the shipped output scored first")
    parser.add_argument("--warm", default="Team_SINAI", help="the shipped output scored next")
    parser.add_argument("--data", type=Path, default=ROOT / "data", help="the fetched data folder")
    args = parser.parse_args()
    sides = ([("baseline", args.baseline.resolve(), False)] if args.baseline else []) + [
        ("engine threads", ROOT, True), ("one thread a call", ROOT, False)]
    print(f"{os.cpu_count()} cores; load average before: {load_average()}; busy processes added: {args.load}")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    results: dict[str, list[dict]] = {name: [] for name, _, _ in sides}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.repeat):
                for name, root, engine_threads in sides:
                    got = measure(root, args.data, args.first, args.warm, engine_threads, Path(tmp))
                    results[name].append(got)
                    print(f"  round {r + 1} {name}: first {got['first']:.1f} s (load {got['load'] or 0:.1f}, "
                          f"embed {got['embed']:.1f}, {got['texts']} texts) · warm {got['warm']:.1f} s · "
                          f"restart {got['restart']:.1f} s", flush=True)
    finally:
        for p in busy:
            p.kill()
            p.wait()
    print(f"load average after: {load_average()}")
    print(f"\n{'side':<20} {'first score':>12} {'warm score':>11} {'restart':>8}   ({results[sides[0][0]][0]['pairs']} "
          "pairs; median seconds)")
    med = {name: {k: statistics.median(x[k] for x in rows) for k in ("first", "warm", "restart")}
           for name, rows in results.items()}
    for name, m in med.items():
        print(f"{name:<20} {m['first']:>12.1f} {m['warm']:>11.1f} {m['restart']:>8.1f}")
    ref = med["baseline" if args.baseline else "engine threads"]
    new = med["one thread a call"]
    print(f"\nfirst score: {ref['first'] / new['first']:.2f}x faster than "
          f"{'the baseline' if args.baseline else 'the engine threads'} "
          f"({'under' if new['first'] < 60 else 'OVER'} the 60 s target)")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        names = [a for a in sys.argv[3:] if a != "--engine-threads"]
        child(Path(sys.argv[2]), names, "--engine-threads" in sys.argv)
    else:
        main()
