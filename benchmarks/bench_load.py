"""Load on one app server: concurrent browser sessions, and memory under many live requests.

Part 1 starts the app (embedded preset, the fetched data, a fresh SQLite file) and opens
N headless-Chromium sessions at once (N = 1 as the baseline of the same run, then 5 and
10) on Live scoring and on Leaderboard. The browsers run on the same machine as the
server, so on a small machine they take part of its processor. Per session it prints the time to the first render (the page's heading
and its first widgets drawn, the run finished) and, on Live scoring, the time from
typing a sentence and a rewrite to the score cards (the J metric shown).

Part 2 measures the server's memory: a fresh Python process runs 10,000 distinct
Live scoring requests (a corpus sentence made unique, two rewrites, a reference)
through the code path of the page (``detox_core.live.request.parse_request`` and
``detox_core.metrics.score_frame`` with the process-wide model pool), and prints its RSS
before the first request, after 1,000 and after 10,000, once with the default cache
budget (``DETOX_CACHE_MB``, 512 MB) and once with a 32 MB budget. Driving 10,000
requests through browsers would take hours on this machine; the per-request caches
that grow with distinct text are the same in both.

Part 3 attacks one server as a hostile visitor would and prints its RSS after each
attack (the baseline is the same server after one ordinary visit, once its models are
warm): six distinct
memory-bomb regular expressions opened as Corpus links, a 70 KB zip of 7 million rows
and a 10 MB plain-text submission of 5 million lines uploaded on Submissions, three
45 MB corpus TSVs and three 9 MB ones uploaded in the sidebar, 60 tabs of one
address, and 200 sessions from 200 addresses (Streamlit's WebSocket from as many
loopback addresses; the process keeps ``DETOX_MAX_SESSIONS``, 100). It states the
ceiling the design gives and whether the server stayed under it:
baseline + the cache budget (``DETOX_CACHE_MB``, 512 MB) + the uploads one address can
hold (40 sessions x ``server.maxUploadSize``) + the sessions a process holds
(``DETOX_MAX_SESSIONS`` x 13 MB) + 300 MB for buffers, against the process's peak (VmHWM).
Part 3b (with ``--attacks``, where nginx is installed) sends ten wrong organizer
passwords from one address through ``deploy/run.sh``'s nginx, each on the next of two
processes (the proxy's cookie set by the guesser), and prints what each try was told.

Part 3c (with ``--attacks``): the pressure of :mod:`bench_pressure` (300 idle WebSockets
from 9 addresses, eight corpus uploads at the caps at once, a cached Find similar build beside
a big one).

Part 4 (``--proxy``, alone) measures a shared deployment as it runs: ``deploy/run.sh``
with N app processes (``--processes``, 1 and 3) behind its nginx, on a fresh PostgreSQL
database (created for the run on the server of ``--postgres``, by default
``$DETOX_TEST_POSTGRES_URL`` or
``postgresql+psycopg://detox:detox@127.0.0.1:5432/postgres``, and dropped after), the
models warming at each process's start (``DETOX_WARMUP=1``). Before measuring it waits
until every process answers through the proxy, then, through a browser pinned to each
process (the ``detox_process`` cookie), scores one sentence on Live scoring and draws
Leaderboard and Annotate once (a server in use has drawn each page), then waits until the
app processes are idle (under 5% of a core each for 3 s, at most ``--settle`` s, 300 by
default): the warm-up is over. Then for each session count (``--sessions``, 10, 30 and 60)
one Chromium opens that many contexts at once against the proxy, without the cookie (nginx
sends each to the least busy process), each from its own client address
(a loopback address of its own, 127.x.y.z, which the proxy passes on as the client's, as it
would many visitors' addresses; one address may hold 40 sessions on a
process), in turn on Live scoring (a sentence and a rewrite typed, Ctrl+Enter, until the J
metric), Leaderboard (its first render) and Annotate (joining a project created beforehand
with :class:`~detox_core.annotation.store.AnnotationStore`, pages of 4 items, answering
the first page with the keyboard and submitting it). Per round it prints the time to the
first render, to a score (typing to the J metric), to the first page of items (Join to the
items drawn) and to a page saved (Enter to "Page 1 saved"), each as median and 95th
percentile; the errors (a measured span past ``--timeout`` s, an exception or a refusal
shown on the page: counted, the other sessions go on); how the sessions spread over the
processes (their cookie at the end); each app process's RSS after the round; the least
memory the machine had available during it, how busy its processor was, and the part of it
the app processes used (the rest is the browsers, nginx, this script and any other job
running at the same time); and what nginx sent. A summary table follows.

The browsers run on the same machine and take most of its processor: each context
downloads and compiles Streamlit's scripts (about 3.6 MB a session through nginx), and
Chromium's compositor draws the pages' CSS animations. Part 4 switches those off in the
browsers (``--animations`` keeps them): with them, 30 Leaderboard sessions on one process
cost the compositor 60 processor seconds instead of 6, and their first render took 120 s
instead of 68. On a 2-core machine 60 sessions on one process take up to about three
minutes to a first render, hence ``--timeout`` 300 s by default.

Usage: ``python benchmarks/bench_load.py [--sessions 1 5 10] [--requests 10000] [--attacks]``, or
``python benchmarks/bench_load.py --proxy [--processes 1 3] [--sessions 10 30 60] [--timeout 300]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from detox_core import config  # noqa: E402
from detox_core.deployment.deploy import COOKIE as PROXY_COOKIE  # noqa: E402
from tests.e2e.util import (  # noqa: E402
    BUSY_JS, CHROMIUM, free_block, free_port, from_address, peak_rss_mb, start_app, stop_app, stream_session)

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
from detox_core.live.request import parse_request
from detox_core.metrics import score_frame
from detox_core.models import default_pool

rows = editions.load_dataset("russe2022", ["train", "dev", "test"])
pool = default_pool()
req = parse_request("ты дебил", "ты неправ")
score_frame([req.source] * 2, [*req.candidates, req.source], [[]] * 2, preset="embedded", pool=pool)  # warm
out = {"before": rss_mb()}
start = time.monotonic()
for k in range(n):
    r = rows.iloc[k % len(rows)]
    req = parse_request(f"{r.toxic_comment} {k}", f"{r.neutral_comment1} {k}\n{r.toxic_comment} ({k})",
                        f"{r.neutral_comment1}")
    m = len(req.candidates)
    score_frame([req.source] * (m + 1), [*req.candidates, req.source], [list(req.references)] * m + [[]],
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


#: Sessions from as many addresses in part 3 (the process keeps DETOX_MAX_SESSIONS).
CROWD = 200
#: What one session may take while many start at once (13 MB measured by
#: tests/e2e/test_hostile_visitor.py), in the ceiling.
SESSION_MB = 13


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
        try:  # the baseline once the models have loaded (the warm-up starts with the first visit)
            await page.get_by_text("Models warm").wait_for(timeout=600_000)
        except Exception:  # noqa: BLE001 - the row says so
            rows.append(("(the warm-up did not end within 600 s)", _server_rss_mb(pid), ""))
        rows.append(("baseline (one visit, models warm)", _server_rss_mb(pid), ""))
        for k, pattern in enumerate(["(?:x{65535}){65535}", "(?:a{1000}){1000}", "(?:b{1000}){1000}",
                                     "(?:c{1000}){1000}", "(?:d{1000}|e){1000}", "(?V1)x"]):
            await visit(page, f"/corpus?q={quote(pattern)}&regex=true")
        rows.append(("6 memory-bomb regex links", _server_rss_mb(pid), await said(page)))
        # The three that passed the old size estimate (6 GB in 7.5 s): refused by the capped worker.
        for pattern in ("[[](?:x{65535}){65535}", "(?:x{9000})(?#){9000}", "(?x)(?:x{1000}) {1000}"):
            await visit(page, f"/corpus?q={quote(pattern)}&regex=true")
            try:  # the capped worker answers within 2.25 s
                await page.get_by_text("needs more memory than a search may use").wait_for(timeout=30_000)
            except Exception:  # noqa: BLE001 - the row then says what the page said instead
                pass
            rows.append((f"regex link {pattern}", _server_rss_mb(pid), await said(page)))
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
        for p in pages:
            await p.close()
        await browser.close()
    # Many addresses at once, each within its own limit (Streamlit's WebSocket, no browser).
    crowd = [f"127.0.{20 + k // 250}.{2 + k % 250}" for k in range(CROWD)]
    hold, ran = asyncio.Event(), []
    tasks = [asyncio.create_task(stream_session(url, a, hold=hold, ran=ran)) for a in crowd]
    deadline = time.monotonic() + 900
    while len(ran) + sum(t.done() for t in tasks) < CROWD and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    full = sum(any("This server is full" in x for x in t) for t in ran)
    served = sum("Corpus" in t for t in ran)
    rows.append((f"{CROWD} sessions from {CROWD} addresses ({served} served, {full} refused)", _server_rss_mb(pid),
                 f"peak {peak_rss_mb(pid):.0f} MB"))
    hold.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return rows


async def _alternating_sign_in(url: str, processes: int, tries: int) -> list[str]:
    """``tries`` wrong organizer passwords from one address, each on the next process (the
    proxy's cookie, which a guesser sets at will): what each try was told."""
    import re

    from playwright.async_api import async_playwright

    said = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        origin = from_address(url, "127.0.0.77")
        for k in range(tries):
            ctx = await browser.new_context(viewport={"width": 1400, "height": 1000}, base_url=origin)
            await ctx.add_cookies([{"name": PROXY_COOKIE, "value": str(k % processes + 1), "url": origin}])
            page = await ctx.new_page()
            await page.goto("/corpus")
            await page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=180_000)
            await _idle(page, timeout=180)
            await page.get_by_text("Organizer sign-in").click()
            await page.get_by_label("Organizer password", exact=True).fill(f"guess-{k}")
            started = time.monotonic()
            await page.get_by_role("button", name="Sign in").click()
            await page.get_by_text("Wrong password.").or_(page.get_by_text("Too many wrong passwords")).or_(
                page.get_by_text("before the next try")).first.wait_for(timeout=120_000)
            body = await page.inner_text("body")
            wait = re.search(r"Wait (\d+ s) before the next try", body) or re.search(r"try again in (\d+ min)", body)
            process = next((c["value"] for c in await ctx.cookies() if c["name"] == PROXY_COOKIE), "?")
            said.append(f"process {process}: " + (f"wait {wait.group(1)}" if wait else "checked, wrong")
                        + f" ({time.monotonic() - started:.1f} s)")
            await ctx.close()
        await browser.close()
    return said


def part_sign_in(processes: int = 2, tries: int = 10) -> None:
    print(f"Part 3b: {tries} wrong organizer passwords from one address, alternating over {processes} processes "
          "behind nginx (deploy/run.sh, SQLite)")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = _start_run_sh(f"sqlite:///{Path(tmp) / 'detox.sqlite'}", processes, Path(tmp))
        try:
            said = asyncio.run(_alternating_sign_in(url, processes, tries))
        finally:
            _stop_run_sh(proc)
    for k, line in enumerate(said, 1):
        print(f"  try {k:2d}, {line}")
    checked = sum("checked" in line for line in said)
    print(f"  {checked} of {tries} passwords checked (at most 5 per address, whatever the number of processes)")


def part_attacks() -> None:
    print("Part 3: server memory under a hostile visitor's attacks")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_app({"DETOX_DB_URL": f"sqlite:///{Path(tmp) / 'detox.sqlite'}"})
        try:
            rows = asyncio.run(_attacks(url, proc.pid))
            peak_mb = peak_rss_mb(proc.pid)
        finally:
            stop_app(proc)
    base = next(r[1] for r in rows if r[0].startswith("baseline"))
    upload_mb = 25  # .streamlit/config.toml server.maxUploadSize
    sessions = config.max_sessions()
    ceiling = base + 512 + 40 * upload_mb + sessions * SESSION_MB + 300
    for what, rss, message in rows:
        print(f"  {what:48s} RSS {rss:7.0f} MB  {message}", flush=True)
    peak = max(hwm for hwm in [r[1] for r in rows] + [peak_mb])
    print(f"  ceiling: baseline {base:.0f} + cache budget 512 + 40 sessions x {upload_mb} MB uploads + "
          f"{sessions} sessions (DETOX_MAX_SESSIONS) x {SESSION_MB} MB + 300 = {ceiling:.0f} MB; "
          f"peak (VmHWM) {peak:.0f} MB: {'under' if peak <= ceiling else 'OVER'} the ceiling")


# Part 4: a shared deployment through its proxy (deploy/run.sh, nginx, PostgreSQL).

PROXY_PAGES = ("live_scoring", "leaderboard", "annotate")
DEFAULT_POSTGRES = "postgresql+psycopg://detox:detox@127.0.0.1:5432/postgres"
ANNOTATE_PAGE_SIZE = 4
ANNOTATOR_PASSWORD = "a-password-of-mine"


async def _settled(page, timeout: float) -> None:
    """Until the page's run is over: the app's script state, its status widget and its
    skeletons all quiet, twice 0.7 s apart (as the browser tests wait)."""
    await page.wait_for_selector('[data-testid="stApp"]', timeout=timeout * 1000)
    deadline = time.monotonic() + timeout
    await asyncio.sleep(0.5)
    while time.monotonic() < deadline:
        if not await page.evaluate(BUSY_JS):
            await asyncio.sleep(0.7)
            if not await page.evaluate(BUSY_JS):
                return
        await asyncio.sleep(0.3)
    raise TimeoutError("the page kept running")


async def _problem(page) -> str:
    """What the page shows that a visitor should not see: an exception, a refusal."""
    if await page.query_selector('[data-testid="stException"]') is not None:
        return "exception on the page"
    body = await page.inner_text("body")
    for words, what in (("Too many open tabs", "refused: too many tabs"),
                        ("The database is not available", "database not available"),
                        ("Reconnected.", "reconnected to another process")):
        if words in body:
            return what
    return ""


class _SpanTimeout(Exception):
    """A measured span of a session took longer than the timeout."""


async def _span(what: str, work, timeout: float, out: dict) -> None:
    """Run ``work`` (a coroutine), record its seconds as ``out[what]``; past ``timeout``
    seconds it is stopped and the session counts as timed out in that span."""
    start = time.monotonic()
    try:
        await asyncio.wait_for(work, timeout=timeout)
    except (asyncio.TimeoutError, TimeoutError) as err:
        raise _SpanTimeout(f"{what} over {timeout:.0f} s") from err
    except Exception as err:
        if type(err).__name__ == "TimeoutError":  # Playwright's, at the same limit
            raise _SpanTimeout(f"{what} over {timeout:.0f} s") from err
        raise
    out[what] = time.monotonic() - start


async def _open(page, url: str, path: str, ready, timeout: float) -> None:
    """Load ``url/path`` until ``ready`` (a locator) shows and the run is over."""
    await page.goto(f"{url}/{path}")
    await ready.wait_for()
    await _settled(page, timeout)


async def _live(page, url: str, k: int, tag: str, timeout: float, out: dict) -> None:
    heading = page.get_by_role("heading", name="Live scoring", exact=True)
    await _span("first_render", _open(page, url, "live_scoring", heading, timeout), timeout, out)
    toxic, rewrite = SENTENCES[k % len(SENTENCES)]

    async def score() -> None:
        # A text of its own per run and session: no cache (the on-disk one included) has it.
        await page.get_by_role("textbox", name="Toxic sentence").fill(f"{toxic} {tag}{k}")
        rewrites = page.get_by_role("textbox", name="Candidate rewrites (one per line)")
        await rewrites.fill(f"{rewrite} {tag}{k}")
        await rewrites.press("Control+Enter")
        await page.locator('[data-testid="stMetric"]').filter(has_text="J").first.wait_for()

    await _span("to_score", score(), timeout, out)


async def _leaderboard(page, url: str, timeout: float, out: dict) -> None:
    heading = page.get_by_role("heading", name="Leaderboard", exact=True)
    await _span("first_render", _open(page, url, "leaderboard", heading, timeout), timeout, out)


async def _annotate(page, url: str, code: str, name: str, timeout: float, out: dict) -> None:
    from playwright.async_api import expect

    await _span("first_render", _open(page, url, "annotate", page.get_by_label("Access code"), timeout), timeout, out)
    if not code:  # the page drawn only (the warm-up's visit)
        return
    await page.get_by_label("Access code").fill(code)
    await page.get_by_label("Your name").fill(name)
    await page.get_by_label("Your password", exact=True).fill(ANNOTATOR_PASSWORD)
    items = page.locator(".ap-item")

    async def join() -> None:
        await page.get_by_role("button", name="Join").click()
        await items.first.wait_for()

    await _span("to_items", join(), timeout, out)
    n = await items.count()
    for attempt in range(3):  # "2" is "No" on toxicity: every item answered by the keyboard
        await page.locator("h1").first.click()
        for _ in range(n):
            await page.keyboard.press("2")
        try:
            await expect(page.locator(".ap-item.answered")).to_have_count(n, timeout=30_000)
            break
        except AssertionError:
            if attempt == 2:
                raise

    async def submit() -> None:
        await page.keyboard.press("Enter")
        await page.get_by_text("Page 1 saved").first.wait_for()

    await _span("to_saved", submit(), timeout, out)


#: Injected into every page of the proxy mode: no CSS animations or transitions. A
#: visitor's browser runs them on its own machine; here they would take a large part of
#: the processor the app processes need (Chromium's compositor: 60 processor seconds
#: instead of 6 for 30 Leaderboard sessions on one process, the first render 120 s, not 68).
_NO_ANIMATIONS = """document.addEventListener('DOMContentLoaded', () => {
  const style = document.createElement('style');
  style.textContent = '*, *::before, *::after { animation: none !important; transition: none !important; }';
  document.head.appendChild(style);
});"""


async def _proxy_session(browser, url: str, kind: str, k: int, tag: str, address: str, code: str,
                         timeout: float, cookie: str | None = None, animations: bool = False) -> dict:
    """One visitor: its timings, the process that served it (its cookie) and its error."""
    out: dict = {"kind": kind, "process": "", "error": ""}
    url = from_address(url, address)  # the proxy sees the session's own address
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        if not animations:
            await ctx.add_init_script(_NO_ANIMATIONS)
        if cookie:
            await ctx.add_cookies([{"name": PROXY_COOKIE, "value": cookie, "url": url}])
        page = await ctx.new_page()
        page.set_default_timeout(timeout * 1000)
        try:
            # Each measured span (first render, to a score, to the items, to the page saved)
            # has `timeout` seconds.
            if kind == "live_scoring":
                await _live(page, url, k, tag, timeout, out)
            elif kind == "leaderboard":
                await _leaderboard(page, url, timeout, out)
            else:
                await _annotate(page, url, code, f"bench {tag} {k}", timeout, out)
        except _SpanTimeout as err:
            out["error"] = f"timeout: {err}"
        except Exception as err:  # noqa: BLE001 - one session's failure is counted, the round goes on
            out["error"] = f"{type(err).__name__}: {str(err).splitlines()[0][:100] if str(err) else ''}"
        try:
            problem = await asyncio.wait_for(_problem(page), timeout=30)
            if problem:
                out["error"] = problem + (f"; {out['error']}" if out["error"] else "")
        except Exception:  # noqa: BLE001 - the page is gone: its error is recorded already
            pass
        try:
            cookies = await ctx.cookies()
            out["process"] = next((c["value"] for c in cookies if c["name"] == PROXY_COOKIE), "")
        except Exception:  # noqa: BLE001
            pass
    except Exception as err:  # noqa: BLE001 - the context itself failed
        out["error"] = out["error"] or f"{type(err).__name__}: {str(err)[:100]}"
    finally:
        try:
            await asyncio.wait_for(ctx.close(), timeout=60)
        except Exception:  # noqa: BLE001
            pass
    return out


def _cpu_ticks() -> tuple[int, int]:
    """The machine's busy and total processor ticks so far (/proc/stat; 0, 0 elsewhere)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    return sum(fields[:8]) - idle, sum(fields[:8])


def _nginx_sent(run_dir: Path) -> int:
    """Bytes of response bodies nginx has logged so far (its access log, combined format)."""
    total = 0
    try:
        with open(run_dir / "nginx-access.log", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split('"')
                fields = parts[2].split() if len(parts) > 2 else []
                if len(fields) >= 2 and fields[1].isdigit():
                    total += int(fields[1])
    except OSError:
        pass
    return total


def _mem_available_mb() -> float:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


async def _proxy_round(url: str, n: int, tag: str, net: int, code: str, timeout: float,
                       animations: bool) -> tuple[list[dict], float]:
    """``n`` sessions at once through the proxy, no cookie, pages in turn; returns their
    results and the least memory the machine had available meanwhile (MB)."""
    from playwright.async_api import async_playwright

    lowest = [_mem_available_mb()]
    done = asyncio.Event()

    async def watch_memory() -> None:
        while not done.is_set():
            lowest[0] = min(lowest[0], _mem_available_mb())
            try:
                await asyncio.wait_for(done.wait(), timeout=1.0)
            except asyncio.TimeoutError:
                pass

    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
        )
        watcher = asyncio.create_task(watch_memory())
        try:
            results = await asyncio.gather(*(
                _proxy_session(browser, url, PROXY_PAGES[k % len(PROXY_PAGES)], k, tag,
                               f"127.{net}.{k // 250}.{k % 250 + 1}", code, timeout, animations=animations)
                for k in range(n)))
        finally:
            done.set()
            await watcher
            await browser.close()
    return list(results), lowest[0]


async def _warm_processes(url: str, processes: int, tag: str, timeout: float,
                          animations: bool) -> list[list[dict]]:
    """On each process, through a browser pinned to it: a Live scoring score, then the
    Leaderboard and the Annotate form drawn once (a server in use has drawn each page)."""
    from playwright.async_api import async_playwright

    async def visit(browser, k: int) -> list[dict]:
        return [await _proxy_session(browser, url, kind, k, f"warm{tag}", f"127.250.0.{k}", "", timeout,
                                     cookie=str(k), animations=animations) for kind in PROXY_PAGES]

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            return list(await asyncio.gather(*(visit(browser, k) for k in range(1, processes + 1))))
        finally:
            await browser.close()


def _rss_mb(pid: int) -> float:
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss / 2**20
    except ImportError:
        pass
    except Exception:  # noqa: BLE001 - the process is gone
        return float("nan")
    try:
        return _server_rss_mb(pid)
    except OSError:
        return float("nan")


def _cpu_s(pid: int) -> float:
    """Processor seconds ``pid`` has used (user and system, all its threads)."""
    try:
        import psutil

        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    except ImportError:
        pass
    except Exception:  # noqa: BLE001
        return float("nan")
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _app_pids(run_dir: Path, processes: int) -> list[int]:
    pids = []
    for k in range(1, processes + 1):
        try:
            pids.append(int((run_dir / f"app-{k}.pid").read_text().strip()))
        except (OSError, ValueError):
            pids.append(-1)
    return pids


def _wait_idle(run_dir: Path, processes: int, limit: float, window: float = 3.0, share: float = 0.05) -> float:
    """Seconds until every app process used under ``share`` of a core over ``window`` s
    (at most ``limit`` s)."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        pids = _app_pids(run_dir, processes)
        before = [_cpu_s(pid) for pid in pids]
        time.sleep(window)
        after = [_cpu_s(pid) for pid in pids]
        if all(a - b < share * window for a, b in zip(after, before)):  # nan (a process gone): not idle
            return time.monotonic() - start
    return float("nan")


def _get(url: str, cookie: str | None = None) -> str:
    """The process that answers (``X-Detox-Process``), or "" when nothing does."""
    import urllib.request

    req = urllib.request.Request(url, headers={"Cookie": f"{PROXY_COOKIE}={cookie}"} if cookie else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.headers.get("X-Detox-Process", "") or "?"
    except OSError:
        return ""


def _start_run_sh(db_url: str, processes: int, run_dir: Path) -> tuple[subprocess.Popen, str]:
    import secrets

    proxy = free_port()
    first = free_block(processes, avoid=proxy)  # the processes' consecutive ports
    env = {**os.environ, "DETOX_DB_URL": db_url, "DETOX_WARMUP": "1", "DETOX_PROCESSES": str(processes),
           "DETOX_PROXY_PORT": str(proxy), "DETOX_FIRST_APP_PORT": str(first), "DETOX_RUN_DIR": str(run_dir),
           "DETOX_PYTHON": sys.executable, "NGINX": shutil.which("nginx") or "/usr/sbin/nginx",
           "DETOX_ORGANIZER_PASSWORD": secrets.token_hex(12)}
    log = (run_dir / "run.log").open("w")
    proc = subprocess.Popen(["bash", str(ROOT / "deploy" / "run.sh")], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{proxy}"
    deadline = time.time() + 240
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"deploy/run.sh exited with {proc.returncode}:\n"
                               f"{(run_dir / 'run.log').read_text()[-3000:]}")
        if all(_get(f"{url}/_stcore/health", str(k)) == str(k) for k in range(1, processes + 1)):
            return proc, url
        time.sleep(0.5)
    _stop_run_sh(proc)
    raise RuntimeError(f"the processes did not all answer through the proxy within 240 s:\n"
                       f"{(run_dir / 'run.log').read_text()[-3000:]}")


def _stop_run_sh(proc: subprocess.Popen) -> None:
    import signal

    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # run.sh's own process group (start_new_session)
        proc.wait()


def _pct(values: list[float], q: float) -> float:
    """The ``q``-th percentile, linear between the nearest ranks (nan without values)."""
    return float(np.percentile(values, q)) if values else float("nan")


def _med_p95(values: list[float]) -> str:
    if not values:
        return "     -        -  "
    return f"{statistics.median(values):6.2f} s {_pct(values, 95):6.2f} s"


def _project(db_url: str, tag: str, annotators: int) -> str:
    """An annotation project with two pages of 4 items for each annotator; its access code."""
    import pandas as pd

    from detox_core.annotation.store import AnnotationStore, Settings

    n = max(2 * ANNOTATE_PAGE_SIZE * annotators, 2 * ANNOTATE_PAGE_SIZE)
    pairs = pd.DataFrame({"system": "bench", "idx": range(n), "input": [f"ты дурак номер {i}" for i in range(n)],
                          "output": [f"вежливый ответ номер {i}" for i in range(n)]})
    store = AnnotationStore(db_url)
    try:
        project = store.create_project(f"load {tag}", ["toxicity"], pairs,
                                       settings=Settings(overlap=1, page_size=ANNOTATE_PAGE_SIZE, controls_per_page=0,
                                                         min_page_seconds=0, training=False))
        return project.access_code
    finally:
        store.engine.dispose()


def _errors_line(results: list[dict]) -> str:
    from collections import Counter

    kinds = Counter(f"{r['kind']}: {r['error']}" for r in results if r["error"])
    return ", ".join(f"{c} x {what}" for what, c in kinds.most_common()) or "none"


def part_proxy(process_counts: list[int], session_counts: list[int], postgres: str, timeout: float,
               settle: float, animations: bool = False) -> None:
    import uuid

    from sqlalchemy import create_engine, text

    print(f"Part 4: deploy/run.sh behind nginx on PostgreSQL, sessions through the proxy "
          f"({os.cpu_count()} cores; {_mem_available_mb():.0f} MB available; timeout of each measured span {timeout:.0f} s)",
          flush=True)
    nan = float("nan")
    admin = create_engine(postgres, isolation_level="AUTOCOMMIT", pool_pre_ping=True)

    def drop(db: str) -> None:
        for attempt in range(6):  # the server may be restarting: a few tries, a minute in all
            try:
                with admin.connect() as c:
                    c.execute(text(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
                return
            except Exception as err:  # noqa: BLE001
                if attempt == 5:
                    print(f"  could not drop the database {db}: {type(err).__name__}: {str(err).splitlines()[0]}")
                time.sleep(10)

    rows = []
    net = 0
    try:
        for processes in process_counts:
            tag = uuid.uuid4().hex[:6]
            db = f"detox_bench_load_{tag}"
            with admin.connect() as c:
                c.execute(text(f"CREATE DATABASE {db}"))
            db_url = postgres.rsplit("/", 1)[0] + "/" + db
            run_dir = Path(tempfile.mkdtemp(prefix="bench-load-run-"))
            proc = None
            try:
                t0 = time.monotonic()
                proc, url = _start_run_sh(db_url, processes, run_dir)
                up = time.monotonic() - t0
                warm = asyncio.run(_warm_processes(url, processes, tag, timeout, animations))
                idle = _wait_idle(run_dir, processes, settle)
                print(f"  {processes} process{'es' if processes > 1 else ''}: all answering after {up:.1f} s; "
                      "first score on each, pinned to it (then its Leaderboard and Annotate drawn once): "
                      + ", ".join(f"{k}: {w[0].get('first_render', nan) + w[0].get('to_score', nan):.1f} s"
                                  + "".join(f" ERROR {v['kind']}: {v['error']}" for v in w if v["error"])
                                  + "".join(f" ({v['kind']} served by {v['process'] or '?'})"
                                            for v in w if v["process"] != str(k))
                                  for k, w in enumerate(warm, 1))
                      + f"; idle {idle:.1f} s later" + (f" (not idle within {settle:.0f} s)" if idle != idle else ""),
                      flush=True)
                for n in session_counts:
                    net += 1
                    annotators = len(range(2, n, len(PROXY_PAGES)))
                    code = _project(db_url, f"{tag}-{n}", annotators)
                    pids = _app_pids(run_dir, processes)
                    sent = _nginx_sent(run_dir)
                    start, ticks, app_cpu = time.monotonic(), _cpu_ticks(), [_cpu_s(pid) for pid in pids]
                    results, lowest = asyncio.run(_proxy_round(url, n, f"{tag}r{n}x", net, code, timeout, animations))
                    wall = time.monotonic() - start
                    busy, total = (b - a for a, b in zip(ticks, _cpu_ticks()))
                    app_cpu = sum(_cpu_s(pid) - before for pid, before in zip(pids, app_cpu))
                    sent = _nginx_sent(run_dir) - sent
                    tick_s = total / (os.cpu_count() or 1) / wall if total and wall else nan  # ticks a second
                    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else nan
                    rss = [_rss_mb(pid) for pid in _app_pids(run_dir, processes)]
                    spread = {str(k): sum(r["process"] == str(k) for r in results) for k in range(1, processes + 1)}
                    unknown = n - sum(spread.values())
                    errors = sum(bool(r["error"]) for r in results)
                    pages = {kind: sum(r["kind"] == kind for r in results) for kind in PROXY_PAGES}
                    values = {step: [r[step] for r in results if step in r]
                              for step in ("first_render", "to_score", "to_items", "to_saved")}
                    print(f"  {processes} proc, {n:2d} sessions ({', '.join(f'{c} {k}' for k, c in pages.items())}), "
                          f"round {wall:.0f} s:", flush=True)
                    for kind in PROXY_PAGES:
                        got = [r["first_render"] for r in results if r["kind"] == kind and "first_render" in r]
                        print(f"      first render, {kind:12s} median/p95 {_med_p95(got)} ({len(got)}/{pages[kind]})")
                    for step, label in (("first_render", "first render, all pages"), ("to_score", "to a score"),
                                        ("to_items", "to a page of items"), ("to_saved", "to a page saved")):
                        print(f"      {label:26s} median/p95 {_med_p95(values[step])} ({len(values[step])})")
                    print(f"      errors {errors}: {_errors_line(results)}")
                    print("      spread: " + ", ".join(f"process {k}: {c}" for k, c in spread.items())
                          + (f", no cookie: {unknown}" if unknown else ""))
                    print("      RSS after the round: " + ", ".join(f"process {k}: {m:.0f} MB"
                                                                     for k, m in enumerate(rss, 1))
                          + f" (sum {sum(rss):.0f} MB); least available memory during the round {lowest:.0f} MB",
                          flush=True)
                    busy_s = busy / tick_s if tick_s == tick_s else nan
                    print(f"      machine: processor {100 * busy / total if total else nan:.0f}% busy during the "
                          f"round ({os.cpu_count()} cores: {busy_s:.0f} processor seconds, of which the app processes "
                          f"{app_cpu:.0f} and everything else {busy_s - app_cpu:.0f}: the browsers, nginx, this script "
                          f"and any other job), load average {load:.1f} at its end; nginx sent {sent / 2**20:.0f} MB "
                          f"({sent / 2**20 / n:.1f} MB a session)", flush=True)
                    rows.append((processes, n, values, errors, spread, rss, lowest, wall, app_cpu, busy_s))
                    _wait_idle(run_dir, processes, min(settle, 120))
            except Exception as err:  # noqa: BLE001 - the other process counts still run
                print(f"  {processes} processes: FAILED: {type(err).__name__}: {err}", flush=True)
            finally:
                if proc is not None:
                    _stop_run_sh(proc)
                drop(db)
                shutil.rmtree(run_dir, ignore_errors=True)
    finally:
        admin.dispose()
    print("\nSummary (times in s, median / p95; err: sessions with an error; spread: sessions per process; RSS of "
          "each app process after the round, MB; min avail: the machine's least available memory during the round; "
          "round: its wall time; cpu s: processor seconds the app processes used during the round / the "
          "whole machine used):")
    print(f"  {'proc':>4} {'sess':>4} | {'first render':>13} | {'to a score':>13} | {'page drawn':>13} | "
          f"{'page saved':>13} | {'err':>3} | {'spread':>10} | {'RSS MB':>16} | {'min avail':>9} | {'round':>5} | "
          f"cpu s app/all")
    for processes, n, values, errors, spread, rss, lowest, wall, app_cpu, busy_s in rows:
        def cell(step: str) -> str:
            v = values[step]
            return f"{statistics.median(v):5.1f} / {_pct(v, 95):5.1f}" if v else f"{'-':>13}"
        print(f"  {processes:4d} {n:4d} | {cell('first_render')} | {cell('to_score')} | {cell('to_items')} | "
              f"{cell('to_saved')} | {errors:3d} | {'/'.join(str(c) for c in spread.values()):>10} | "
              f"{'/'.join(f'{m:.0f}' for m in rss):>16} | {lowest:6.0f} MB | {wall:4.0f}s | {app_cpu:4.0f}/{busy_s:4.0f}",
              flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="*", default=None,
                        help="concurrent sessions per round (default 1 5 10, 1 being the baseline of the same run; "
                             "with --proxy 10 30 60)")
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--attacks", action="store_true", help="part 3 only: memory under a hostile visitor's attacks")
    parser.add_argument("--proxy", action="store_true",
                        help="part 4 only: deploy/run.sh's processes behind nginx on PostgreSQL, sessions through it")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 3], help="with --proxy: app processes")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="with --proxy: seconds each measured span of a session (first render, to a score, "
                             "to the items, to the page saved) may take before the session counts as timed out")
    parser.add_argument("--animations", action="store_true",
                        help="with --proxy: keep the pages' CSS animations (by default switched off in the browsers)")
    parser.add_argument("--settle", type=float, default=300.0,
                        help="with --proxy: at most this many seconds waiting for the processes to be idle")
    parser.add_argument("--postgres", default=os.environ.get("DETOX_TEST_POSTGRES_URL") or DEFAULT_POSTGRES,
                        help="with --proxy: a PostgreSQL URL whose role may create databases (one is created "
                             "for each process count and dropped after)")
    args = parser.parse_args()
    if not (ROOT / "data" / "russe2022" / "train.tsv").is_file() and not os.environ.get("DETOX_DATA_DIR"):
        print("The RUSSE-2022 data is not fetched: run `python -m detox_core fetch-data` first.")
        return 1
    if args.proxy:

        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        missing = [why for bad, why in [(not Path(CHROMIUM).exists(), "Chromium (apt-get install chromium)"),
                                        (not Path(nginx).exists(), "nginx (apt-get install nginx)")] if bad]
        if missing:
            print("Part 4 needs " + " and ".join(missing) + ".")
            return 1
        part_proxy(args.processes, args.sessions if args.sessions is not None else [10, 30, 60], args.postgres,
                   args.timeout, args.settle, args.animations)
        return 0
    if args.attacks:
        if not Path(CHROMIUM).exists():
            print("Chromium is not installed (apt-get install chromium): part 3 needs it.")
            return 1
        part_attacks()
        if shutil.which("nginx") or Path("/usr/sbin/nginx").exists():
            part_sign_in()
        else:
            print("nginx is not installed (apt-get install nginx): part 3b (sign-in over processes) skipped.")
        # Idle sockets, uploads at the caps, Find similar builds (benchmarks/bench_pressure.py).
        from bench_pressure import part_a, part_b, part_c

        part_a()
        part_b()
        part_c()
        return 0
    sessions = args.sessions if args.sessions is not None else [1, 5, 10]
    if sessions:
        if not Path(CHROMIUM).exists():
            print("Chromium is not installed (apt-get install chromium): part 1 skipped.")
        else:
            part_sessions(sessions)
    if args.requests:
        part_memory(args.requests)
    return 0

if __name__ == "__main__":
    sys.exit(main())
