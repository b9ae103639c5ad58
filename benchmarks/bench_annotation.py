"""Annotation storage at shared-task size: how long handing out and storing a page takes.

A project of 10 systems x 875 test inputs with all three tasks (the size of a full
RUSSE-2022 human evaluation), 120 control items, overlap 5, pages of 10. Annotators
work in parallel threads without pause, through one shared store as in one app server,
or with ``--separate-stores`` each through a store of its own (as separate server
processes would); the script prints the median, 95th percentile and maximum of
``next_page`` and ``submit_page`` while the project fills up, and checks the overlap
at the end.

    python benchmarks/bench_annotation.py [--db URL] [--annotators 20] [--pages 20] [--separate-stores]

Without ``--db`` it uses a fresh SQLite file in a temporary folder.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from detox_core.annotation.controls import Control  # noqa: E402
from detox_core.annotation.store import AnnotationStore, Settings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--inputs", type=int, default=875)
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--pages", type=int, default=20, help="pages per annotator and task")
    parser.add_argument("--separate-stores", action="store_true", help="a store (engine) per annotator thread")
    args = parser.parse_args()
    url = args.db or f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite'}"

    pairs = pd.DataFrame([{"system": f"system-{s}", "idx": i, "input": f"toxic input number {i}",
                           "output": f"output {i} of system {s}"}
                          for s in range(args.systems) for i in range(args.inputs)])
    controls = [Control(task, f"control {task} {k}", float(k % 2), input=f"control input {k}" if task == "content" else "")
                for task in ("toxicity", "content", "fluency") for k in range(40)]
    store = AnnotationStore(url)
    t0 = time.perf_counter()
    project = store.create_project(f"bench-{random.randrange(10**9)}", ["toxicity", "content", "fluency"], pairs,
                                   controls=controls, settings=Settings(min_page_seconds=0, training=False,
                                                                     ban_control_accuracy=0.0))
    created = time.perf_counter() - t0
    items = store.items(project.id)
    print(f"database: {store.engine.dialect.name}; project: {len(pairs):,} pairs -> {len(items):,} items "
          f"(created in {created:.1f} s)")

    timings: dict[str, list[float]] = {"next_page": [], "submit_page": []}
    lock = threading.Lock()

    def work(k: int) -> None:
        own = AnnotationStore(url) if args.separate_stores else store
        ann = own.join(project.access_code, f"annotator-{k}")
        own.admit(ann.id)
        rng = random.Random(k)
        for _ in range(args.pages):
            for task in project.tasks:
                a = time.perf_counter()
                page = own.next_page(ann.id, task)
                b = time.perf_counter()
                if page is None:
                    continue
                labels = {i.id: rng.choice([0.0, 1.0]) for i in page.items}
                own.submit_page(ann.id, page.assignment_id, labels)
                c = time.perf_counter()
                with lock:
                    timings["next_page"].append(b - a)
                    timings["submit_page"].append(c - b)
        if own is not store:
            own.engine.dispose()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=work, args=(k,)) for k in range(args.annotators)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    answers = store.answers(project.id)
    real = answers[(answers["kind"] == "real") & (answers["status"] != "banned")]
    mode = "separate stores" if args.separate_stores else "one shared store"
    print(f"{args.annotators} annotators in parallel ({mode}): {len(timings['next_page']):,} pages, {len(answers):,} answers "
          f"in {wall:.1f} s ({len(answers) / wall:,.0f} answers/s)")
    for name, values in timings.items():
        ms = np.array(values) * 1000
        print(f"  {name:<12} median {np.median(ms):6.1f} ms   p95 {np.percentile(ms, 95):6.1f} ms   "
              f"max {ms.max():6.1f} ms")
    per_item = real.groupby("task").size()
    print(f"most answers on one item: {per_item.max()} (overlap {project.settings.overlap}); "
          f"repeated items: {int(answers.duplicated(['worker', 'task']).sum())}")


if __name__ == "__main__":
    main()
