"""Scripted tabs that beat without running, against one process's places: who gets in.

Simulates, on the counter the app admits sessions with
(:class:`detox_core.deployment.presence.SessionCounter`, its own rules, a simulated clock),
the round-6 attack: ``--addresses`` addresses x 20 tabs that beat every 20 s with their
own tokens and never run again, topping up every place that frees, while one new visitor
(a new address) arrives every ``--every`` seconds and tries again every 5 s until admitted.
Prints how many newcomers got in and how long they waited: before (no tab ever gives its
place back), with the first rule alone (a tab idle for ``YIELD_IDLE_S`` gives its place), and
now (an address holding ``HOARD_SHARE`` of the places gives up a tab idle for ``HOARD_IDLE_S``,
and newcomers queue in turn ahead of a script's new tabs).

    python benchmarks/bench_scripted_beats.py [--addresses 4] [--minutes 10] [--every 15]

It measures the admission rules, not a live server: the browser-side of the same attack is
not driven here.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from detox_core.deployment import presence  # noqa: E402
from detox_core.deployment.presence import BEAT_S, SessionCounter  # noqa: E402


def run(addresses: int, minutes: float, every: float, yield_idle_s: float, hoard_idle_s: float,
        keep_s: float) -> tuple[int, int, list[float]]:
    presence.YIELD_IDLE_S, presence.HOARD_IDLE_S, presence.WAIT_KEEP_S = yield_idle_s, hoard_idle_s, keep_s
    now = [0.0]
    c = SessionCounter(20, clock=lambda: now[0], max_total=100, heartbeat=lambda: True)
    scripts = {f"203.0.113.{a}": 0 for a in range(addresses)}
    tabs: list[str] = []

    def top_up() -> None:
        for a in scripts:
            while c.live(a) < 20:
                sid = f"{a}-{scripts[a]}"
                scripts[a] += 1
                if not (c.admit(a, sid) and c.beat(c.token(sid))):
                    break
                tabs.append(sid)

    waiting: dict[str, float] = {}
    waits: list[float] = []
    arrived = 0
    step = 5.0
    while now[0] < minutes * 60:
        top_up()
        if now[0] >= arrived * every:
            waiting[f"198.51.100.{arrived % 250}-{arrived}"] = now[0]
            arrived += 1
        for who, since in list(waiting.items()):
            if c.admit(who.split("-")[0], who):
                c.beat(c.token(who))
                waits.append(now[0] - since)
                del waiting[who]
        now[0] += step
        if now[0] % BEAT_S < step:
            for sid in tabs:
                if (token := c.token(sid)) is not None:
                    c.beat(token)
            for who in [w for w in c._seen if w.startswith("198.51.100.")]:
                c.beat(c.token(who))
    return arrived, len(waits), waits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--addresses", type=int, default=4, help="attacking addresses, 20 tabs each")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--every", type=float, default=15, help="seconds between two newcomers")
    args = ap.parse_args()
    real = presence.YIELD_IDLE_S, presence.HOARD_IDLE_S, presence.WAIT_KEEP_S
    print(f"{args.addresses} addresses x 20 scripted tabs on one process (100 places, 80 for visitors), "
          f"a newcomer every {args.every:.0f} s for {args.minutes:.0f} minutes")
    rules = (("before", (math.inf, math.inf, -1.0)),  # no tab gives its place; no queue (waiters forgotten at once)
             ("idle 120 s", (real[0], real[0], -1.0)),
             ("now", real))
    for label, values in rules:
        arrived, admitted, waits = run(args.addresses, args.minutes, args.every, *values)
        within = sum(w <= 10 for w in waits)
        first = f"first after {min(waits):.0f} s" if waits else "none"
        print(f"  {label:10s}: {admitted} of {arrived} newcomers admitted ({within} within 10 s of arriving; {first}; "
              f"longest wait {max(waits, default=0):.0f} s)")
    presence.YIELD_IDLE_S, presence.HOARD_IDLE_S, presence.WAIT_KEEP_S = real


if __name__ == "__main__":
    main()
