"""What the Submissions page's bar says of the time left during a first whole-submission
score, against the time that was really left.

Each measurement is a fresh Python process over a data folder of its own (the fetched
datasets linked, an empty on-disk cache of model outputs, an empty database), as on a
server started for the first time. It scores one shipped output of a split of an edition
with :func:`detox_core.submissions.service.score_and_store_multilingual`, as the page does,
with the side's :class:`~detox_core.submissions.progress.ScoringProgress` drawing the bar;
after the storing it asks what the page reads next, the agreement of the preset with
people (measured at once when nothing is stored or shipped, as the page did). It records
every call of the preset and every state of the bar with the time, and prints, per side:

- the bar's estimate every 10% of the run beside the seconds really left (to the scores
  shown, agreement included);
- the worst early overestimate and late underestimate (said / really left), and whether it
  ever said "a few seconds left" with more than 20 s to go;
- ``replayed``: the same recorded calls of the other side's run replayed through this
  side's estimator with the recorded clock: both estimators on one run.

Sides: ``before`` (``--baseline DIR``, another checkout: ``git worktree add DIR HEAD`` or
``git archive HEAD | tar -x -C DIR``) and ``after`` (this checkout), one after the other.

Usage: ``python benchmarks/bench_scoring_estimate.py [--edition textdetox2024] [--split dev]
[--output duplicate] [--baseline DIR] [--limit N]``. ``--limit`` keeps the first N rows of
every language (a smaller run on a busy machine). Needs the edition's data
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_first_score import fresh_data  # noqa: E402  (a data folder of its own: no cache, no database)
#: An estimate is "a few seconds" below 5 s; more than this really left is a broken promise.
FEW_SECONDS_BROKEN = 10.0


def child(root: Path, edition: str, split: str, output: str, limit: int | None) -> None:
    """One fresh process: score ``output`` of ``split``; print one JSON line of the timeline."""
    sys.path.insert(0, str(root))
    from detox_core import editions
    from detox_core.analysis import preset_agreement, preset_agreement_by_language
    from detox_core.submissions.progress import ScoringProgress
    from detox_core.submissions.service import (
        languages_elsewhere,
        score_and_store_multilingual,
        shipped_outputs,
        split_rows,
    )
    from detox_core.submissions.store import Store

    ed = editions.get_edition(edition)
    whole = ed.load(ed.available_splits())
    rows = split_rows(whole, split)
    content = shipped_outputs(edition, split)[output].read_bytes()
    if limit:
        rows = rows.groupby("lang", sort=False).head(limit).reset_index(drop=True)
        keep = set(zip(rows["toxic_comment"], rows["lang"]))
        lines = content.decode("utf-8").splitlines()
        header, body = lines[0], lines[1:]
        cols = header.split("\t")
        ix, il = cols.index("toxic_sentence"), cols.index("lang")
        content = "\n".join([header, *(x for x in body if (x.split("\t")[ix], x.split("\t")[il]) in keep)]).encode()
    t0 = time.perf_counter()
    calls: list[tuple[float, str, int, int]] = []
    views: list[tuple[float, str, float | None]] = []
    clock = lambda: time.perf_counter() - t0  # noqa: E731 - the run's seconds
    bar = ScoringProgress(lambda v: views.append((clock(), v.text, v.seconds_left)), clock=clock)
    events: dict[str, float] = {}

    def progress(step: str, done: int, total: int) -> None:
        calls.append((clock(), step, done, total))
        bar(step, done, total)

    def on_scored(_frame) -> None:
        events["scored"] = clock()
        if hasattr(bar, "storing"):  # the side tells the bar that the scores are being stored
            bar.storing()

    result = score_and_store_multilingual(
        Store(None), content, f"{output}.tsv", dataset=edition, split=split, rows=rows, preset="embedded",
        calibrated=True, source="shipped", progress=progress, on_scored=on_scored,
        elsewhere=languages_elsewhere(edition, split, whole))
    events["stored"] = clock()
    # What the page draws next: the preset's agreement with people; measured here when the
    # side's page would measure it on sight (nothing shipped or stored).
    measured = []
    if preset_agreement.stored("embedded", True) is None:
        measured.append("russian")
    if preset_agreement_by_language.stored("embedded", True) is None:
        measured.append("languages")
    on_sight = getattr(__import__("detox_core.ui.widgets.preset_agreement", fromlist=["x"]), "MEASURED_ON_SIGHT", ())
    if "embedded" in on_sight and "languages" in measured:
        preset_agreement_by_language.measure("embedded", True)
    events["shown"] = clock()
    print("RESULT " + json.dumps({"calls": calls, "views": views, "events": events, "pairs": result.stored.n,
                                  "unmeasured": measured, "load": os.getloadavg()}), flush=True)


def replay(root: Path, calls: list, events: dict) -> None:
    """Replay recorded calls through ``root``'s estimator with the recorded clock."""
    sys.path.insert(0, str(root))
    from detox_core.submissions.progress import ScoringProgress

    now = [0.0]
    views: list = []
    bar = ScoringProgress(lambda v: views.append((now[0], v.text, v.seconds_left)), clock=lambda: now[0])
    for t, step, done, total in calls:
        now[0] = t
        bar(step, done, total)
    if "scored" in events and hasattr(bar, "storing"):
        now[0] = events["scored"]
        bar.storing()
    print("RESULT " + json.dumps({"views": views}), flush=True)


def _run(args: list[str], data: Path | None = None) -> dict:
    env = {**os.environ, "DETOX_WARMUP": "0"}
    if data is not None:
        env.update(DETOX_DATA_DIR=str(data), DETOX_DB_URL=f"sqlite:///{data / 'detox.sqlite'}")
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], env=env, capture_output=True,
                          text=True, timeout=7200, check=False)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"the measuring process failed:\n{proc.stderr[-3000:]}")
    return json.loads(line.removeprefix("RESULT "))


def judge(views: list, end: float) -> dict:
    """How the said time left (the views that say one) compares with the time really left
    to ``end``: the median and the worst ratios, and the most seconds left while the bar
    said "a few seconds"."""
    said = [(t, s / (end - t)) for t, text, s in views if text.endswith(" left") and s is not None and end - t > 0]
    early = [r for t, r in said if t < end / 2]
    late = [r for t, r in said if t >= end / 2]
    broken = [end - t for t, text, _ in views if "a few seconds" in text and end - t > FEW_SECONDS_BROKEN]
    return {"median": statistics.median(r for _, r in said) if said else None,
            "early_over": max(early, default=None), "late_under": min(late, default=None),
            "few_seconds_broken": max(broken, default=0.0)}


def table(views: list, end: float) -> list[str]:
    """The bar every tenth of the run: its words and the seconds really left."""
    lines, next_at = [], 0.0
    for t, text, _ in views:
        if t >= next_at:
            lines.append(f"    {t:6.1f} s  really {end - t:6.1f} s left  | {text}")
            next_at = t + end / 10
    if views:
        t, text, _ = views[-1]
        lines.append(f"    {t:6.1f} s  really {end - t:6.1f} s left  | {text} (last)")
    return lines


def _ratio(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="textdetox2024")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--output", default="duplicate", help="the shipped output scored")
    parser.add_argument("--baseline", type=Path, help="another checkout of the app (before)")
    parser.add_argument("--limit", type=int, help="the first N rows of every language only")
    parser.add_argument("--data", type=Path, default=ROOT / "data", help="the fetched data folder")
    parser.add_argument("--json", type=Path, help="write the recorded runs here")
    parser.add_argument("--replay-only", type=Path, help="replay the runs of a --json file, scoring nothing")
    args = parser.parse_args()
    sides = ([("before", args.baseline.resolve())] if args.baseline else []) + [("after", ROOT)]
    print(f"{os.cpu_count()} cores; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    runs: dict[str, dict] = {}
    if args.replay_only:
        runs = {k: v for k, v in json.loads(args.replay_only.read_text(encoding="utf-8")).items() if "calls" in v}
    with tempfile.TemporaryDirectory() as tmp:
        for name, root in sides:
            if name not in runs:
                data = fresh_data(args.data, Path(tmp) / f"data-{name}")
                runs[name] = _run(["--child", str(root), args.edition, args.split, args.output,
                                   str(args.limit or 0)], data)
            run = runs[name]
            end = run["events"]["shown"]
            print(f"\n{name}: {run['pairs']:,} pairs, {end:.1f} s to the scores shown (preset returned at "
                  f"{run['events']['scored']:.1f} s, stored at {run['events']['stored']:.1f} s; agreement "
                  f"not shipped or stored: {', '.join(run['unmeasured']) or 'none'}); load average at the end "
                  + " ".join(f"{x:.2f}" for x in run["load"]))
            print("\n".join(table(run["views"], end)))
        # Every side's estimator on every recorded run: the same calls, the same clock.
        for name, root in sides:
            for other in [k for k in list(runs) if "calls" in runs[k] and k != name]:
                spec = Path(tmp) / f"calls-{other}.json"
                spec.write_text(json.dumps({"calls": runs[other]["calls"], "events": runs[other]["events"]}),
                                encoding="utf-8")
                runs[f"{name} replayed on {other}"] = {**_run(["--replay", str(root), str(spec)]),
                                                       "events": runs[other]["events"]}
    print(f"\n{'estimator on run':<28} {'median':>7} {'early max':>10} {'late min':>9} {'few s said, s left':>19}")
    for name, run in runs.items():
        got = judge(run["views"], run["events"]["shown"])
        print(f"{name:<28} {_ratio(got['median']):>7} {_ratio(got['early_over']):>10} {_ratio(got['late_under']):>9} "
              f"{got['few_seconds_broken']:>19.1f}")
    print("(said / really left, over the views that say a time: 1.00 is right; early max: the worst "
          "overestimate in the first half of the run; late min: the worst underestimate in the second half; "
          f"few s: the most seconds really left while the bar said 'a few seconds' (over {FEW_SECONDS_BROKEN:.0f} s))")
    if args.json:
        args.json.write_text(json.dumps({k: v for k, v in runs.items() if "calls" in v}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]) or None)
    elif len(sys.argv) > 2 and sys.argv[1] == "--replay":
        spec = json.loads(Path(sys.argv[3]).read_text(encoding="utf-8"))
        replay(Path(sys.argv[2]), spec["calls"], spec["events"])
    else:
        main()
