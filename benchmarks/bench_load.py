"""Load on one app server: concurrent browser sessions, and memory under many live requests.

Part 1 starts the app (embedded preset, the fetched data, a fresh SQLite file) and opens
N headless-Chromium sessions at once (N = 1 as the baseline of the same run, then 5 and
10) on Live scoring and on Leaderboard. The browsers run on the same machine as the
server, so on a small machine they take part of its processor. Per session it prints the time to the first render (the page's heading
and its first widgets drawn, the run finished) and, on Live scoring, the time from
typing a sentence and a rewrite to the score cards (the J metric shown).

Part 2 measures the server's memory: a fresh Python process runs 10,000 distinct
Live scoring requests (a corpus sentence made unique, two rewrites, a reference)
through the code path of the page (``detox_core.submissions.live.parse_request`` and
``detox_core.metrics.score`` with the process-wide model pool), and prints its RSS
before the first request, after 1,000 and after 10,000, once with the default cache
budget (``DETOX_CACHE_MB``, 512 MB) and once with a 32 MB budget. Driving 10,000
requests through browsers would take hours on this machine; the per-request caches
that grow with distinct text are the same in both.

Usage: ``python benchmarks/bench_load.py [--sessions 1 5 10] [--requests 10000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.util import CHROMIUM, start_app, stop_app  # noqa: E402

SENTENCES = [
    ("ты дебил, иди отсюда", "ты неправ, иди отсюда"),
    ("этот мудак опять врёт", "этот человек опять врёт"),
    ("какая хрень эта ваша новость", "какая ерунда эта ваша новость"),
    ("заткнись уже, идиот", "помолчи уже"),
]


async def _idle(page, timeout: float = 120.0) -> None:
    """Until Streamlit's run is over (no running indicator twice in a row)."""
    await page.wait_for_selector('[data-testid="stApp"]', timeout=timeout * 1000)
    deadline = time.monotonic() + timeout
    await asyncio.sleep(0.3)
    quiet = 0
    while time.monotonic() < deadline:
        busy = await page.query_selector('[data-testid="stStatusWidget"]')
        quiet = 0 if busy else quiet + 1
        if quiet >= 2:
            return
        await asyncio.sleep(0.25)
    raise TimeoutError("the page kept running")


async def _session(browser, url: str, page_name: str, k: int) -> dict[str, float]:
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    out: dict[str, float] = {}
    start = time.monotonic()
    await page.goto(f"{url}/{page_name}")
    heading = "Live scoring" if page_name == "live_scoring" else "Leaderboard"
    await page.get_by_role("heading", name=heading, exact=True).wait_for(timeout=120_000)
    await _idle(page)
    out["first_render"] = time.monotonic() - start
    if page_name == "live_scoring":
        toxic, rewrite = SENTENCES[k % len(SENTENCES)]
        start = time.monotonic()
        await page.get_by_role("textbox", name="Toxic sentence").fill(f"{toxic} {k}")
        await page.get_by_role("textbox", name="Candidate rewrites (one per line)").fill(f"{rewrite} {k}")
        await page.get_by_role("textbox", name="Candidate rewrites (one per line)").press("Control+Enter")
        await page.locator('[data-testid="stMetric"]').filter(has_text="J").first.wait_for(timeout=120_000)
        out["to_score"] = time.monotonic() - start
    await ctx.close()
    return out


async def _browsers(url: str, n: int, page_name: str) -> list[dict[str, float]]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"],
        )
        try:
            return await asyncio.gather(*(_session(browser, url, page_name, k) for k in range(n)))
        finally:
            await browser.close()


def _summary(values: list[float]) -> str:
    return f"median {statistics.median(values):5.2f} s, max {max(values):5.2f} s"


def part_sessions(counts: list[int]) -> None:
    print("Part 1: concurrent browser sessions against one server (embedded preset)")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_app({"DETOX_DB_URL": f"sqlite:///{Path(tmp) / 'detox.sqlite'}"})
        try:
            # One visit first, as on a server in use: the corpus and models are loaded.
            asyncio.run(_browsers(url, 1, "live_scoring"))
            for n in counts:
                for page_name in ("live_scoring", "leaderboard"):
                    results = asyncio.run(_browsers(url, n, page_name))
                    line = f"  {n:2d} sessions on {page_name:12s}: first render {_summary([r['first_render'] for r in results])}"
                    if page_name == "live_scoring":
                        line += f" · to a score {_summary([r['to_score'] for r in results])}"
                    print(line, flush=True)
        finally:
            stop_app(proc)


_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
n = int(sys.argv[2])

def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

from detox_core import data
from detox_core import editions
from detox_core.submissions.live import parse_request
from detox_core.metrics import score
from detox_core.models import default_pool

rows = editions.load_dataset("russe2022", ["train", "dev", "test"])
pool = default_pool()
req = parse_request("ты дебил", "ты неправ")
score([req.source] * 2, [*req.candidates, req.source], [[]] * 2, preset="embedded", pool=pool)  # warm
out = {"before": rss_mb()}
start = time.monotonic()
for k in range(n):
    r = rows.iloc[k % len(rows)]
    req = parse_request(f"{r.toxic_comment} {k}", f"{r.neutral_comment1} {k}\n{r.toxic_comment} ({k})",
                        f"{r.neutral_comment1}")
    m = len(req.candidates)
    score([req.source] * (m + 1), [*req.candidates, req.source], [list(req.references)] * m + [[]],
          preset="embedded", pool=pool)
    if k + 1 in (1000, n):
        out[f"after_{k + 1}"] = rss_mb()
out["seconds"] = time.monotonic() - start
print(json.dumps(out))
"""


def part_memory(n: int) -> None:
    print(f"Part 2: RSS of a process serving {n:,} distinct Live scoring requests (embedded preset)")
    for label, budget in (("default budget (512 MB)", None), ("DETOX_CACHE_MB=32", "32")):
        env = {**os.environ}
        env.pop("DETOX_CACHE_MB", None)
        if budget is not None:
            env["DETOX_CACHE_MB"] = budget
        done = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), str(n)], env=env, capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            print(f"  {label}: failed\n{done.stderr[-2000:]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"  {label:24s}: RSS {r['before']:6.0f} MB before, {r.get('after_1000', float('nan')):6.0f} MB after "
              f"1,000, {r[f'after_{n}']:6.0f} MB after {n:,} (+{r[f'after_{n}'] - r['before']:.0f} MB; "
              f"{r['seconds'] / n * 1000:.1f} ms a request)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="*", default=[1, 5, 10],
                        help="concurrent sessions per round; 1 is the baseline of the same run")
    parser.add_argument("--requests", type=int, default=10_000)
    args = parser.parse_args()
    if not (ROOT / "data" / "russe2022" / "train.tsv").is_file() and not os.environ.get("DETOX_DATA_DIR"):
        print("The RUSSE-2022 data is not fetched: run `python -m detox_core fetch-data` first.")
        return 1
    if args.sessions:
        if not Path(CHROMIUM).exists():
            print("Chromium is not installed (apt-get install chromium): part 1 skipped.")
        else:
            part_sessions(args.sessions)
    if args.requests:
        part_memory(args.requests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
