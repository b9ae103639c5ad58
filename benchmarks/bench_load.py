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

Part 3 attacks one server as a hostile visitor would and prints its RSS after each
attack (the baseline is the same server after one ordinary visit): six distinct
memory-bomb regular expressions opened as Corpus links, a 70 KB zip of 7 million rows
and a 10 MB plain-text submission of 5 million lines uploaded on Submissions, three
45 MB corpus TSVs and three 9 MB ones uploaded in the sidebar, and 60 tabs of one
address. It states the ceiling the design gives and whether the server stayed under it:
baseline + the cache budget (``DETOX_CACHE_MB``, 512 MB) + the uploads one address can
hold (40 sessions x ``server.maxUploadSize``) + 300 MB for page state and buffers.

Usage: ``python benchmarks/bench_load.py [--sessions 1 5 10] [--requests 10000] [--attacks]``.
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


def _server_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _zip_bomb() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("submission.tsv", b"toxic_sentence\tneutral_sentence\tlang\n" + b"x\ty\ten\n" * 7_000_000)
    return buffer.getvalue()


def _corpus_tsv(mb: float) -> bytes:
    line = "этот тупой сосед опять всё испортил номер {k}\tэтот сосед опять всё испортил номер {k}\n"
    out, k, size = ["toxic_comment\tneutral_comment1\n"], 0, 0
    while size < mb * 2**20:
        row = line.format(k=k)
        out.append(row)
        size += len(row.encode())
        k += 1
    return "".join(out).encode()


async def _attacks(url: str, pid: int) -> list[tuple[str, float, str]]:
    from urllib.parse import quote

    from playwright.async_api import async_playwright

    rows: list[tuple[str, float, str]] = []

    async def visit(page, path: str) -> None:
        await page.goto(url + path)
        await _idle(page, timeout=180)

    async def said(page) -> str:
        texts = await page.locator('[data-testid="stAlert"]').all_inner_texts()
        return (" | ".join(t.replace("\n", " ") for t in texts) or "no message")[:110]

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = await browser.new_page(viewport={"width": 1400, "height": 900})
        await visit(page, "/corpus")
        rows.append(("baseline (after one visit)", _server_rss_mb(pid), ""))
        for k, pattern in enumerate(["(?:x{65535}){65535}", "(?:a{1000}){1000}", "(?:b{1000}){1000}",
                                     "(?:c{1000}){1000}", "(?:d{1000}|e){1000}", "(?V1)x"]):
            await visit(page, f"/corpus?q={quote(pattern)}&regex=true")
        rows.append(("6 memory-bomb regex links", _server_rss_mb(pid), await said(page)))
        for dataset, name, content in (("TextDetox%202024", "bomb.zip", _zip_bomb()),
                                       ("RUSSE-2022", "lines.txt", b"a\n" * 5_000_000)):
            await visit(page, f"/submissions?dataset={dataset}")
            await page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
                {"name": name, "mimeType": "application/octet-stream", "buffer": content})
            await _idle(page, timeout=180)
            buttons = page.get_by_role("button", name="Score the upload")
            if await buttons.count():
                await buttons.first.click()
                await _idle(page, timeout=180)
            rows.append((f"submission {name} ({len(content) / 2**20:.2f} MB)", _server_rss_mb(pid), await said(page)))
        for mb in (45, 45, 45, 9, 9, 9):
            await visit(page, "/corpus?dataset=Upload%20a%20corpus%20TSV")
            await page.locator('[data-testid="stSidebar"] [data-testid="stFileUploaderDropzoneInput"]').set_input_files(
                {"name": f"corpus_{mb}.tsv", "mimeType": "text/tab-separated-values", "buffer": _corpus_tsv(mb - 0.5)})
            await _idle(page, timeout=300)
            rows.append((f"corpus upload of {mb} MB", _server_rss_mb(pid), await said(page)))
        await page.close()
        pages = []
        for _ in range(60):
            p = await browser.new_page(viewport={"width": 1000, "height": 700})
            await p.goto(url + "/corpus")
            pages.append(p)
        await asyncio.gather(*[_idle(p, timeout=300) for p in pages])
        refused = 0
        for p in pages:
            refused += "Too many open tabs" in await said(p)
        rows.append((f"60 tabs of one address ({60 - refused} served, {refused} refused)", _server_rss_mb(pid), ""))
        await browser.close()
    return rows


def part_attacks() -> None:
    print("Part 3: server memory under a hostile visitor's attacks")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_app({"DETOX_DB_URL": f"sqlite:///{Path(tmp) / 'detox.sqlite'}"})
        try:
            rows = asyncio.run(_attacks(url, proc.pid))
        finally:
            stop_app(proc)
    base = rows[0][1]
    upload_mb = 25  # .streamlit/config.toml server.maxUploadSize
    ceiling = base + 512 + 40 * upload_mb + 300
    for what, rss, message in rows:
        print(f"  {what:48s} RSS {rss:7.0f} MB  {message}", flush=True)
    peak = max(r[1] for r in rows)
    print(f"  ceiling: baseline {base:.0f} + cache budget 512 + 40 sessions x {upload_mb} MB uploads + 300 = "
          f"{ceiling:.0f} MB; highest seen {peak:.0f} MB: {'under' if peak <= ceiling else 'OVER'} the ceiling")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="*", default=[1, 5, 10],
                        help="concurrent sessions per round; 1 is the baseline of the same run")
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--attacks", action="store_true", help="part 3 only: memory under a hostile visitor's attacks")
    args = parser.parse_args()
    if not (ROOT / "data" / "russe2022" / "train.tsv").is_file() and not os.environ.get("DETOX_DATA_DIR"):
        print("The RUSSE-2022 data is not fetched: run `python -m detox_core fetch-data` first.")
        return 1
    if args.attacks:
        if not Path(CHROMIUM).exists():
            print("Chromium is not installed (apt-get install chromium): part 3 needs it.")
            return 1
        part_attacks()
        return 0
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
