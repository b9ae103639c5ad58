"""Annotators' joins under attack: guessed passwords past the limit, and floods of new names.

Drives, on this machine only and bounded in count and time, the two attacks of the hostile
visitor's report through the code the Annotate page runs (``JoinGuard`` reserving each try,
``AnnotationStore.join`` with real argon2id), each "app process" a store and a guard of
its own on one database, and prints what honest people got meanwhile:

1. **Guessing**: 60 simultaneous joins of one name from one address (and 3 addresses x 60),
   a wrong password each: how many passwords were checked. The documented limit is five per
   (address, name) per 15 minutes. *Before*: the page's former order (read the wait, check,
   then record the failure).
2. **A flood of new names**: ``--bots`` threads from one address joining under new names as
   fast as they are let, for ``--seconds``, while an honest annotator saves pages without
   pause and an honest newcomer joins from another address every 2 s: the saves' and joins'
   median, 95th percentile and maximum, and how many fake annotators got in. *Before*: the
   password hashed under the store's write lock and no limit on new names.

    python benchmarks/bench_join_flood.py [--db URL] [--bots 20] [--seconds 20] [--processes 3]

Without ``--db``: a fresh SQLite file in a temporary folder. It does not drive the pages
through a browser or nginx (the deployment's own limits are not measured here).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from detox_core.annotation.store import AnnotationStore, Settings, people  # noqa: E402
from detox_core.db import make_engine  # noqa: E402
from detox_core.errors import AnnotationError, UnknownCodeError, WrongSecretError  # noqa: E402
from detox_core.names import name_key  # noqa: E402
from detox_core.deployment.join_guard import JoinGuard  # noqa: E402
from detox_core.deployment.throttle import SharedLoginThrottle  # noqa: E402


def guard(url: str, new_names: bool = True) -> JoinGuard:
    """What one app process builds (``auth.join_guard``)."""
    return JoinGuard(SharedLoginThrottle(make_engine(url)),
                     SharedLoginThrottle(make_engine(url), **JoinGuard.address_rules()),
                     SharedLoginThrottle(make_engine(url), **JoinGuard.new_name_rules()) if new_names else None)


def join_now(store: AnnotationStore, g: JoinGuard, client: str, code: str, name: str, secret: str,
             before: bool) -> str:
    """One press of Join, as ``ui/annotate/session.join_section`` does it (``before``: its former
    order). Returns "joined", "wrong", "wait" or "refused"."""
    key = name_key(name)
    if before:
        wait, _what = g.wait(client, code, key)
        if wait > 0:
            return "wait"
        try:
            store.join(code, name, secret, client=client)
        except (WrongSecretError, UnknownCodeError) as err:
            g.failed(client, code, key, "password" if isinstance(err, WrongSecretError) else "code")
            return "wrong"
        except AnnotationError:
            return "refused"
        g.succeeded(client, code, key)
        return "joined"
    wait, _what, attempt = g.reserve(client, code, key, new_name=not store.knows_name(code, name))
    if attempt is None:
        return "wait"
    try:
        store.join(code, name, secret, client=client)
    except AnnotationError as err:
        g.settle(attempt, "password" if isinstance(err, WrongSecretError) else
                 "code" if isinstance(err, UnknownCodeError) else "other")
        return "wrong" if isinstance(err, (WrongSecretError, UnknownCodeError)) else "refused"
    g.settle(attempt, "joined")
    return "joined"


@contextmanager
def hashing_under_the_lock():
    """The former store: every argon2 hash and check inside the write lock."""
    real = people.AnnotatorActions._hash_first
    people.AnnotatorActions._hash_first = lambda self, code, name, secret, client: people._Hashing(secret)
    try:
        yield
    finally:
        people.AnnotatorActions._hash_first = real


def together(n: int, one: Callable[[int], None]) -> None:
    start = threading.Barrier(n)

    def run(k: int) -> None:
        start.wait()
        one(k)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def guessing(url: str, processes: int, before: bool) -> tuple[int, dict[str, int]]:
    """(passwords checked of 60 at once from one address, checked per address of 3 x 60)."""
    stores = [AnnotationStore(url) for _ in range(processes)]
    guards = [guard(url) for _ in range(processes)]
    p = stores[0].create_project(f"guess-{time.time_ns()}", ["toxicity"], pairs(20),
                                 settings=Settings(page_size=5, controls_per_page=0, training=False))
    stores[0].join(p.access_code, "Olga", "olgas-own-password", client="198.51.100.7")
    results: list[tuple[str, str]] = []
    lock = threading.Lock()

    def one(k: int, address: str) -> None:
        got = join_now(stores[k % processes], guards[k % processes], address, p.access_code, "Olga",
                       f"guess-number-{k}", before)
        with lock:
            results.append((address, got))

    together(60, lambda k: one(k, "203.0.113.5"))
    single = sum(1 for _, got in results if got == "wrong")
    results.clear()
    addresses = ["198.51.100.21", "198.51.100.22", "198.51.100.23"]
    together(180, lambda k: one(k, addresses[k % 3]))
    per = {a: sum(1 for who, got in results if who == a and got == "wrong") for a in addresses}
    for s in stores:
        s.engine.dispose()
    return single, per


def flood(url: str, bots: int, seconds: float, before: bool) -> dict:
    store = AnnotationStore(url)
    g = guard(url, new_names=not before)
    p = store.create_project(f"flood-{time.time_ns()}", ["toxicity"], pairs(400),
                             settings=Settings(page_size=5, controls_per_page=0, training=False,
                                               min_page_seconds=0, ban_control_accuracy=0.0))
    honest = store.admit(store.join(p.access_code, "Honest Annotator", "honest-password", client="198.51.100.9").id)
    stop = time.monotonic() + seconds
    saves: list[float] = []
    joins: list[float] = []
    outcomes = {"joined": 0, "wait": 0, "wrong": 0, "refused": 0}
    lock = threading.Lock()

    def bot(k: int) -> None:
        n = 0
        while time.monotonic() < stop:
            got = join_now(store, g, "203.0.113.66", p.access_code, f"fake {k}-{n}", "fake-password", before)
            n += 1
            with lock:
                outcomes[got] += 1
            if got == "wait":
                time.sleep(0.5)  # a script told to wait tries again soon

    def annotator() -> None:
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            page = store.next_page(honest.id, "toxicity")
            if page is None:
                return
            store.submit_page(honest.id, page.assignment_id, {i.id: 1.0 for i in page.items})
            saves.append(time.perf_counter() - t0)

    def newcomer() -> None:
        k = 0
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            join_now(store, g, f"192.0.2.{10 + k}", p.access_code, f"Newcomer {k}", "newcomers-password", before)
            joins.append(time.perf_counter() - t0)
            k += 1
            time.sleep(2)

    threads = [threading.Thread(target=bot, args=(k,)) for k in range(bots)]
    threads += [threading.Thread(target=annotator), threading.Thread(target=newcomer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.engine.dispose()
    return {"saves": saves, "joins": joins, **outcomes}


def pairs(n: int) -> pd.DataFrame:
    return pd.DataFrame([{"system": s, "idx": i, "input": f"toxic input {i}", "output": f"{s} output {i}"}
                         for s in ("A", "B") for i in range(n)])


def spread(xs: list[float]) -> str:
    if not xs:
        return "none"
    a = np.asarray(xs)
    return (f"median {np.median(a):.2f} s, p95 {np.percentile(a, 95):.2f} s, max {a.max():.2f} s "
            f"({len(a)} of them)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    ap.add_argument("--bots", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--processes", type=int, default=3, help="stores and guards of their own (app processes)")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    print("1. Guessing one name's password: 60 joins at once from one address, then 3 addresses x 60 "
          "(the limit: 5 per address and name)")
    for label, before in (("before", True), ("after", False)):
        url = args.db or f"sqlite:///{folder / f'guess-{label}.sqlite'}"
        t0 = time.perf_counter()
        single, per = guessing(url, args.processes, before)
        print(f"  {label:6s}: {single} of 60 passwords checked; 3 x 60: {sum(per.values())} of 180 checked "
              f"({', '.join(map(str, per.values()))}) [{time.perf_counter() - t0:.1f} s]")
    print(f"2. A flood of new names: {args.bots} scripted sessions from one address for {args.seconds:.0f} s, "
          "an honest annotator saving pages, a newcomer joining every 2 s")
    for label, before in (("before", True), ("after", False)):
        url = args.db or f"sqlite:///{folder / f'flood-{label}.sqlite'}"
        if before:
            with hashing_under_the_lock():
                got = flood(url, args.bots, args.seconds, before)
        else:
            got = flood(url, args.bots, args.seconds, before)
        print(f"  {label:6s}: fake annotators joined {got['joined']} (told to wait {got['wait']}); "
              f"honest saves {spread(got['saves'])}; honest joins {spread(got['joins'])}")


if __name__ == "__main__":
    main()
