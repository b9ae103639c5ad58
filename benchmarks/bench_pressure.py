"""Pressure a visitor can put on one app process within the limits: idle sockets, uploads at
the caps, and Find similar builds (``bench_load.py --attacks`` runs it too).

Part A, idle sockets. One app process started as it is served (``python -m detox_core
serve``: the heartbeat route), its limits at their defaults (``DETOX_MAX_SESSIONS`` 100).
300 of Streamlit's WebSockets from 9 loopback addresses (127.0.9x.y) each run the Annotate
page once and then sit idle: no script runs in them, so they never beat. Meanwhile a new
visitor (Corpus) and a new annotator (Annotate) from other addresses open a session; it
prints how many idle sockets were admitted and refused, whether the visitor and the
annotator got in and how long it took, then waits until the server has closed the idle
sockets (at most 120 s) and prints when.

Part B, uploads at the caps. Eight Chromium tabs, each from a loopback address of its own,
upload a corpus TSV of 9.8 MB and 59,990 rows each (under the 10 MB and 60,000-row caps) at
the same moment, in the sidebar of
Corpus. It prints the server's RSS before, its peak (VmHWM) during the uploads, the slowest
answer of its health check (polled every 0.25 s throughout), what each tab was told, and
the RSS one and three minutes after the tabs closed (Streamlit keeps a closed tab's session
two minutes), against the ceiling docs/site_src/deployment.md states: baseline + the cache
budget (512 MB) + 40 sessions x 25 MB uploads + 100 sessions x 13 MB + 300 MB.

Part C, Find similar in the process (no browser): a scope of 600 distinct texts already
embedded is built while another visitor's scope of ~1,500 new texts is being built; it
prints how long the cached build took (alone, and beside the other), the estimate shown for
the big build (from the engine's measured speed and the texts not yet embedded) against the
time it took, and the CPU seconds it took.

Usage: ``python benchmarks/bench_pressure.py [--part A B C]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.util import CHROMIUM, from_address, peak_rss_mb, start_app, stop_app  # noqa: E402

IDLE_SOCKETS, IDLE_ADDRESSES = 300, 9
UPLOADS, UPLOAD_ROWS = 8, 59_990


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def _health_s(url: str) -> float:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=30):
            pass
    except OSError:
        return float("inf")
    return time.monotonic() - started


class _Poller:
    """The health check's slowest answer while it runs (every 0.25 s, in a thread)."""

    def __init__(self, url: str) -> None:
        self.url, self.worst, self.stop = url, 0.0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            self.worst = max(self.worst, _health_s(self.url))
            self.stop.wait(0.25)

    def __enter__(self) -> "_Poller":
        self.thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.stop.set()
        self.thread.join()


# ------------------------------------------------------------------ A: idle sockets

async def _idle_socket(url: str, address: str, out: dict) -> None:
    """Run the Annotate page once and sit idle; record what it drew and when the server closed it."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    host = url.split("//", 1)[1]
    texts: list[str] = []
    texts_done = False
    opened = time.monotonic()
    try:
        async with websockets.connect(f"ws://{host}/_stcore/stream", subprotocols=["streamlit"],
                                      local_addr=(address, 0), max_size=2 ** 27, open_timeout=120) as ws:
            msg = BackMsg()
            msg.rerun_script.page_name = "annotate"
            await ws.send(msg.SerializeToString())
            while True:  # read everything the server sends, until it closes the socket
                forward = ForwardMsg()
                forward.ParseFromString(await ws.recv())
                if forward.WhichOneof("type") == "delta" and forward.delta.WhichOneof("type") == "new_element":
                    element = forward.delta.new_element
                    which = element.WhichOneof("type")
                    if which in ("heading", "markdown", "alert"):
                        texts.append(getattr(element, which).body)
                elif forward.WhichOneof("type") == "script_finished" and not texts_done:
                    texts_done = True
                    out.setdefault("ran", []).append(texts)
    except websockets.ConnectionClosed:
        out.setdefault("closed_after", []).append(time.monotonic() - opened)
        if not texts_done:
            out.setdefault("closed_before_a_run", []).append(1)
    except (OSError, asyncio.TimeoutError) as err:
        out.setdefault("errors", []).append(type(err).__name__)


async def _newcomer(url: str, address: str, page: str) -> tuple[bool, float, str]:
    from tests.e2e.util import stream_session

    started = time.monotonic()
    texts = await stream_session(url, address, page=page, timeout=120)
    joined = " ".join(texts)
    refused = next((t for t in texts if "full" in t or "Too many" in t), "")
    return not refused and ("Corpus" in joined or "Annotate" in joined), time.monotonic() - started, refused[:80]


async def _part_a(url: str) -> None:
    out: dict = {}
    addresses = [f"127.0.9{k}.{2 + k}" for k in range(IDLE_ADDRESSES)]
    tasks = [asyncio.create_task(_idle_socket(url, addresses[k % IDLE_ADDRESSES], out)) for k in range(IDLE_SOCKETS)]
    started = time.monotonic()
    def settled() -> int:
        return len(out.get("ran", [])) + len(out.get("errors", [])) + len(out.get("closed_before_a_run", []))

    while settled() < IDLE_SOCKETS and time.monotonic() - started < 300:
        await asyncio.sleep(0.5)
    ran = out.get("ran", [])
    refused = sum(any("Too many" in t or "full" in t for t in texts) for texts in ran)
    print(f"  {IDLE_SOCKETS} idle sockets from {IDLE_ADDRESSES} addresses asked for the Annotate page; "
          f"{time.monotonic() - started:.0f} s later {len(ran) - refused} had been admitted, {refused} refused, "
          f"{len(out.get('closed_before_a_run', []))} closed by the server before their run, "
          f"{len(out.get('errors', []))} failed to connect", flush=True)
    for who, address, page in (("a new visitor", "127.0.1.50", "corpus"), ("a new annotator", "127.0.1.51", "annotate")):
        ok, took, said = await _newcomer(url, address, page)
        print(f"  {who} ({page}) meanwhile: {'got in' if ok else 'refused: ' + said} in {took:.1f} s", flush=True)
    deadline = time.monotonic() + 150
    while len(out.get("closed_after", [])) < len(ran) and time.monotonic() < deadline:
        await asyncio.sleep(1)
    closed = sorted(out.get("closed_after", []))
    if closed:
        print(f"  the server closed {len(closed)} of them, {closed[0]:.0f}-{closed[-1]:.0f} s after they opened "
              f"(median {closed[len(closed) // 2]:.0f} s)", flush=True)
    else:
        print("  the server closed none of them within 150 s", flush=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def part_a() -> None:
    print(f"Part A: {IDLE_SOCKETS} idle WebSockets from {IDLE_ADDRESSES} addresses on one process")
    resource.setrlimit(resource.RLIMIT_NOFILE, (8192, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_app({"DETOX_DB_URL": f"sqlite:///{Path(tmp) / 'detox.sqlite'}", "DETOX_WARMUP": "0",
                               "DETOX_ORGANIZER_PASSWORD": ""}, launcher=True)
        try:
            asyncio.run(_part_a(url))
        finally:
            stop_app(proc)


# ------------------------------------------------------------------ B: uploads at the caps

def _corpus_at_the_caps() -> bytes:
    """59,990 rows of ~171 bytes: 9.8 MB, under both caps."""
    toxic = "этот тупой сосед {k:07d} опять всё испортил, idiot"
    neutral = "этот сосед {k:07d} опять всё испортил и кричит"
    lines = ["toxic_comment\tneutral_comment1"] + [f"{toxic.format(k=k)}\t{neutral.format(k=k)}"
                                                   for k in range(UPLOAD_ROWS)]
    return ("\n".join(lines) + "\n").encode()


async def _upload(browser, url: str, content: bytes, k: int, go: asyncio.Event) -> str:
    page = await browser.new_page(viewport={"width": 1400, "height": 900})
    await page.goto(from_address(url, f"127.0.8.{10 + k}") + "/corpus?dataset=Upload%20a%20corpus%20TSV")
    await page.locator('[data-testid="stSidebar"] [data-testid="stFileUploaderDropzoneInput"]').wait_for(
        state="attached", timeout=180_000)
    await go.wait()
    await page.locator('[data-testid="stSidebar"] [data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        {"name": f"corpus_{k}.tsv", "mimeType": "text/tab-separated-values", "buffer": content})
    try:
        told = page.get_by_text(f"corpus_{k}.tsv").or_(page.get_by_text("try again in a minute"))
        await page.get_by_text("Pairs shown").or_(told).first.wait_for(timeout=600_000)
    except Exception:  # noqa: BLE001 - the line says so
        return "no answer within 600 s"
    alerts = await page.locator('[data-testid="stAlert"]').all_inner_texts()
    said = " | ".join(a.replace("\n", " ") for a in alerts if f"corpus_{k}.tsv" in a or "try again" in a)
    shown = await page.get_by_text("Pairs shown").count()
    await page.close()
    return said[:100] or ("prepared, its table shown" if shown else "?")


async def _part_b(url: str, pid: int) -> None:
    from playwright.async_api import async_playwright

    content = _corpus_at_the_caps()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        go = asyncio.Event()
        tasks = [asyncio.create_task(_upload(browser, url, content, k, go)) for k in range(UPLOADS)]
        await asyncio.sleep(20)  # every tab open on the upload's sidebar
        base = _rss_mb(pid)
        print(f"  {UPLOADS} tabs open: RSS {base:.0f} MB; each uploads {len(content) / 2 ** 20:.1f} MB, "
              f"{UPLOAD_ROWS:,} rows", flush=True)
        started = time.monotonic()
        with _Poller(url) as poller:
            go.set()
            said = await asyncio.gather(*tasks)
        took = time.monotonic() - started
        await browser.close()
    peak = peak_rss_mb(pid)
    for k, line in enumerate(said, 1):
        print(f"  tab {k}: {line}")
    print(f"  all answered in {took:.0f} s; peak RSS (VmHWM) {peak:.0f} MB; slowest health check "
          f"{poller.worst:.2f} s", flush=True)
    await asyncio.sleep(60)
    minute = _rss_mb(pid)
    await asyncio.sleep(120)  # Streamlit keeps a closed tab's session two minutes, for a reconnect
    after = _rss_mb(pid)
    ceiling = base + 512 + 40 * 25 + 100 * 13 + 300
    print(f"  after the tabs closed: RSS {minute:.0f} MB a minute later, {after:.0f} MB three minutes later; "
          f"ceiling {ceiling:.0f} MB ({'under' if peak <= ceiling else 'OVER'})", flush=True)


def part_b() -> None:
    print(f"Part B: {UPLOADS} corpus uploads at the caps at once, on one process")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_app({"DETOX_DB_URL": f"sqlite:///{Path(tmp) / 'detox.sqlite'}", "DETOX_WARMUP": "0",
                               "DETOX_ORGANIZER_PASSWORD": ""}, launcher=True)
        try:
            asyncio.run(_part_b(url, proc.pid))
        finally:
            stop_app(proc)


# ------------------------------------------------------------------ C: Find similar

def part_c() -> None:
    from detox_core.analysis import similar
    from detox_core.models import meaning

    print("Part C: Find similar, a cached scope built beside another visitor's big build (in this process)")
    if not meaning.available():
        print(f"  skipped: {meaning.unavailable_reason()}")
        return
    small = similar.Scope(("textdetox2024",), ("test",), ("de",), ("input",))
    big = similar.Scope(("textdetox2025",), ("dev",), ("fr", "he", "hin", "it", "ja", "tt", "am", "ar"), ("input",))
    try:
        small_texts = similar.cached_scope_texts(small)["text"]
    except Exception as err:  # noqa: BLE001 - no data fetched
        print(f"  skipped: {err} (run `make data`)")
        return
    meaning.embed(small_texts.tolist())  # the small scope: embedded before
    t0 = time.monotonic()
    similar.index_for(small)
    alone = time.monotonic() - t0
    similar._INDEXES.clear()
    estimate = similar.estimate(big)
    cpu0 = time.process_time()
    done: dict = {}

    def build_big() -> None:
        started = time.monotonic()
        similar.index_for(big)
        done["big"] = time.monotonic() - started

    worker = threading.Thread(target=build_big)
    worker.start()
    time.sleep(2)
    t0 = time.monotonic()
    similar.index_for(small)
    beside = time.monotonic() - t0
    worker.join()
    cpu = time.process_time() - cpu0
    print(f"  cached scope ({small_texts.nunique():,} distinct texts, all embedded before): "
          f"{alone:.1f} s alone, {beside:.1f} s beside the big build")
    print(f"  big scope: {estimate.distinct:,} distinct texts, {estimate.new:,} new; estimated "
          f"{estimate.seconds:.0f} s, took {done['big']:.0f} s ({cpu:.0f} CPU-seconds for both builds)")


def main() -> int:
    # Part C's texts are new to this process: no on-disk cache of earlier runs.
    os.environ.setdefault("DETOX_SCORE_CACHE_MB", "0")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", nargs="+", choices=["A", "B", "C"], default=["A", "B", "C"])
    args = parser.parse_args()
    for part in args.part:
        {"A": part_a, "B": part_b, "C": part_c}[part]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
