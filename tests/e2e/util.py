"""Helpers of the browser tests: start the app, wait for a run, screenshots."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
import time
import urllib.parse
import urllib.request
from pathlib import Path

from detox_core.data import PROJECT_ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = os.environ.get("DETOX_SCREENSHOTS")
ORGANIZER_PASSWORD = "e2e-organizer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Relay:
    """Passes every TCP connection made to its own port on to ``target`` from the source
    address ``address`` (a loopback address of this machine: 127.x.y.z)."""

    def __init__(self, target: tuple[str, int], address: str):
        self.target, self.address = target, address
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=10, source_address=(self.address, 0))
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while chunk := src.recv(65536):
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


_RELAYS: dict[tuple[str, int, str], _Relay] = {}
_RELAYS_LOCK = threading.Lock()


def from_address(url: str, address: str) -> str:
    """A URL of ``url``'s server (on 127.0.0.1) whose connections reach it from the client
    address ``address``, a loopback address (127.x.y.z): a relay of this process connects
    from there, so that a proxy in front of the app sees that address as the connection's
    own, as it sees each visitor's. (Chromium does not send a header such as
    ``X-Forwarded-For`` set on a browser context with the app's WebSocket, and the app
    reads the client from that WebSocket's request.)"""
    parts = urllib.parse.urlsplit(url)
    if not address.startswith("127.") or parts.hostname != "127.0.0.1" or not parts.port:
        raise ValueError(f"a loopback address and a URL on 127.0.0.1 with a port, not {address!r} and {url!r}")
    key = ("127.0.0.1", parts.port, address)
    with _RELAYS_LOCK:
        relay = _RELAYS.get(key) or _RELAYS.setdefault(key, _Relay(key[:2], address))
    return urllib.parse.urlunsplit(parts._replace(netloc=f"127.0.0.1:{relay.port}"))


def free_block(n: int, avoid: int | None = None) -> int:
    """The first of ``n`` consecutive free ports (none of them ``avoid``)."""
    for _ in range(100):
        first = free_port()
        if first + n > 65535 or (avoid is not None and avoid in range(first, first + n)):
            continue
        ok = True
        for port in range(first, first + n):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    ok = False
                    break
        if ok:
            return first
    raise RuntimeError("no block of free ports")


def _listening_sockets(port: int) -> set[str] | None:
    """The inodes of the TCP sockets listening on ``port`` (None: this system has no /proc/net)."""
    found, tables = set(), [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not any(t.is_file() for t in tables):
        return None
    for table in tables:
        try:
            rows = table.read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                found.add(fields[9])
    return found


def listens_on(pid: int, port: int) -> bool:
    """Whether the process ``pid`` holds a socket listening on ``port`` (True where the system
    cannot tell). Two test workers can be handed the same free port: the app that answers
    there must be the one just started."""
    inodes = _listening_sockets(port)
    if inodes is None:
        return True
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return True
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[len("socket:["):-1] in inodes:
            return True
    return False


def start_app(env: dict[str, str], app_dir: Path = PROJECT_ROOT,
              launcher: bool = False, extra_args: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str]:
    """Start ``streamlit run app.py`` of the checkout ``app_dir`` (this one by default)
    with ``env`` added; return the process and its URL once its health check answers.
    ``launcher``: start it with ``python -m detox_core serve`` instead (the models warm
    from the server's start). ``extra_args``: more options of the command.

    A port another process took meanwhile (another test worker: ``make test`` runs two) is
    noticed (the app exits, or the answering server is not this process) and another tried."""
    command = [sys.executable, "-m", "detox_core", "serve"] if launcher else [
        sys.executable, "-m", "streamlit", "run", "app.py"]
    errors = []
    for _attempt in range(3):
        port, taken = free_port(), False
        proc = subprocess.Popen(
            [*command, "--server.port", str(port), "--server.headless", "true", "--server.fileWatcherType", "none",
             *extra_args],
            cwd=app_dir, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120  # a hang guard: a start takes seconds
        while time.monotonic() < deadline and proc.poll() is None and not taken:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200 and listens_on(proc.pid, port):
                        return proc, url
                    taken = r.status == 200  # another process's server answers there
            except OSError:
                time.sleep(0.3)
        proc.kill()
        proc.wait()
        errors.append(f"port {port}: " + proc.stderr.read().decode(errors="replace")[-2000:])
        if not (taken or "already in use" in errors[-1]):
            break  # it failed for a reason of its own, not for the port
    raise RuntimeError("the app did not start: " + "\n".join(errors))


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


#: Whether the page's script is running: the app's own script state (the status widget
#: alone comes and goes during a run), its status widget or a skeleton placeholder (also
#: what benchmarks/bench_load.py waits on, from its asynchronous browsers), or, once
#: :data:`TRACK_RERUNS_JS` is in the page, a rerun the page asked for that the server has
#: not answered yet.
BUSY_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return (app !== null && app.getAttribute('data-test-script-state') === 'running')
    || document.querySelector('[data-testid="stStatusWidget"]') !== null
    || document.querySelector('[data-testid="stSkeleton"]') !== null
    || (typeof window.__detoxRerunPending === 'function' && window.__detoxRerunPending());
}"""

#: Notes the reruns the page asks for: a click, a committed text or a page link sends a
#: ``rerun_script`` BackMsg (its first byte is field 11's tag, 0x5A), and the page shows
#: nothing of it until the server answers, a second or more later on a loaded machine (the
#: gap a wait on the page alone took for the end of the run). Pending from the request until
#: that socket's next message, or its close. Installed on the prototype, it also sees the
#: socket already open; a full page load drops it (the next wait puts it back).
TRACK_RERUNS_JS = """() => {
  if (window.__detoxRerunPending) return;
  const pending = new Set();
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!this.__detoxTracked) {
      this.__detoxTracked = true;
      this.addEventListener('message', () => pending.delete(this));
      this.addEventListener('close', () => pending.delete(this));
    }
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data)
      : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : null;
    if (bytes !== null && bytes.length > 0 && bytes[0] === 0x5A) pending.add(this);
    return send.call(this, data);
  };
  window.__detoxRerunPending = () => pending.size > 0;
}"""


def track_reruns(ctx) -> None:
    """Note the reruns of every page of the browser context ``ctx`` from its first load
    (:data:`TRACK_RERUNS_JS`; :func:`wait_idle` puts it in a page it finds without)."""
    ctx.add_init_script(f"({TRACK_RERUNS_JS})();")


#: How long the page must show no run, without a break, to count as settled (seconds).
QUIET_S = 1.2
#: How often the waits look at the page (seconds).
POLL_S = 0.1
#: The hang guards of :func:`wait_idle` and :func:`wait_until` stretched where the machine is shared
#: (CI: two cores, two test workers and their app processes scoring at once); a guard, never a
#: speed figure (those are the benchmarks').
HANG_SLACK = 2.0 if os.environ.get("CI") else 1.0


#: :data:`BUSY_JS`, with the tracking of reruns put in the page first (again after a full page load).
_TRACKED_BUSY_JS = f"() => {{ ({TRACK_RERUNS_JS})(); return ({BUSY_JS})(); }}"


def _busy(pg) -> bool:
    return bool(pg.evaluate(_TRACKED_BUSY_JS))


def wait_idle(pg, timeout: float = 60, quiet: float = QUIET_S) -> None:
    """Wait until Streamlit has finished its runs: nothing runs, and no rerun the page asked
    for is unanswered, for ``quiet`` seconds without a break (looked at every 0.1 s).

    After an action whose run draws something, wait for that (:func:`wait_until`): a
    run asked for before this wait's first look (before the tracking of reruns was in the
    page) can still start after the quiet period on a loaded machine."""
    timeout *= HANG_SLACK
    pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout * 1000)
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    while True:
        now = time.monotonic()
        if _busy(pg):
            quiet_since = now
        elif now - quiet_since >= quiet:
            return
        if now > deadline:
            raise AssertionError(f"the app kept running for {timeout:.0f} s")
        time.sleep(POLL_S)


def wait_until(pg, condition: str, arg=None, timeout: float = 120) -> None:
    """Wait until the JavaScript predicate ``condition`` (``arg`` passed to it) holds on the
    page, then until the app has settled (:func:`wait_idle`)."""
    pg.wait_for_function(condition, arg=arg, timeout=timeout * HANG_SLACK * 1000, polling=POLL_S * 1000)
    wait_idle(pg, timeout)


def wait_text(pg, text: str, timeout: float = 60) -> None:
    """Wait until ``text`` is on the page (a run that forwards, e.g. ``/`` to ``/corpus``,
    can look idle for a moment before the page it forwards to has drawn)."""
    wait_until(pg, "t => document.body.innerText.includes(t)", arg=text, timeout=timeout)


def wait_markup(pg, text: str, timeout: float = 60) -> None:
    """Wait until ``text`` is in the page's markup (what ``pg.content()`` returns), then until
    the app has settled: also what is drawn after the run has ended, such as a grid's cells
    or a Plotly chart's SVG, which a read right after :func:`wait_idle` can miss."""
    wait_until(pg, "t => document.documentElement.outerHTML.includes(t)", arg=text, timeout=timeout)


def shown_pairs(pg) -> int:
    metric = pg.locator('[data-testid="stMetric"]').filter(has_text="Pairs shown").first
    return int(metric.locator('[data-testid="stMetricValue"]').inner_text().replace(",", ""))


def no_exception(pg) -> None:
    assert pg.query_selector('[data-testid="stException"]') is None, pg.inner_text("body")[:2000]


def shot(pg, name: str, height: int | None = None, width: int = 1400) -> None:
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    if height:
        pg.set_viewport_size({"width": width, "height": height})
        wait_idle(pg)
    pg.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


# Controls of the main area (not the sidebar, not inside a table's or a chart's own
# scrolling canvas) that lie outside the window, are clipped by a container, or whose
# label is cut short with an ellipsis.
_CUT_OFF_JS = """
() => {
  const W = document.documentElement.clientWidth;
  const skip = '[data-testid="stSidebar"], [data-testid="stDataFrame"], [data-testid="stHeader"], '
    + '[data-testid="stPlotlyChart"], [data-testid="stToolbar"], [data-testid="stDecoration"]';
  const controls = 'button, input:not([type="file"]), textarea, [role="radio"], [role="checkbox"], [role="switch"], '
    + '[role="tab"], [data-testid="stWidgetLabel"], [data-testid="stMetricLabel"], [data-testid="stMetricValue"]';
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none' && cs.opacity !== '0';
  };
  const name = (el) => (el.getAttribute('aria-label') || el.innerText || el.getAttribute('placeholder')
    || el.tagName).trim().slice(0, 60);
  // Custom components draw into shadow roots: look inside them too.
  const all = (root, sel) => {
    const found = [...root.querySelectorAll(sel)];
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) found.push(...all(e.shadowRoot, sel));
    return found;
  };
  const up = (a) => a.parentElement || (a.getRootNode() instanceof ShadowRoot ? a.getRootNode().host : null);
  const out = [];
  for (const el of all(document, controls)) {
    if (el.closest(skip) || el.closest('details:not([open]) > :not(summary)') || !visible(el)) continue;
    const r = el.getBoundingClientRect();
    let clipped = null;
    for (let a = up(el); a && a !== document.body; a = up(a)) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible') continue;
      const ar = a.getBoundingClientRect();
      if (ar.width <= 2 || ar.height <= 2) { clipped = 'hidden'; break; }  // a visually hidden native input
      if (!clipped && (r.right > ar.right + 1 || r.left < ar.left - 1)) clipped = 'clipped';
    }
    if (clipped === 'hidden') continue;
    if (r.right > W + 1 || r.left < -1) { out.push(`${name(el)}: outside the window`); continue; }
    if (clipped) out.push(`${name(el)}: clipped by its container`);
    for (const t of [el, ...el.querySelectorAll('*')]) {
      const cs = getComputedStyle(t);
      if (cs.textOverflow === 'ellipsis' && t.scrollWidth > t.clientWidth + 1 && visible(t)) {
        out.push(`${name(el)}: text cut short`); break;
      }
    }
  }
  if (document.documentElement.scrollWidth > W + 1) out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px)`);
  return [...new Set(out)];
}
"""


def cut_off_controls(pg) -> list[str]:
    """Controls the user cannot fully see: outside the window, clipped, or with a label cut short."""
    return pg.evaluate(_CUT_OFF_JS)


@contextmanager
def health_probe(server: str, every_s: float = 0.1) -> Iterator[list[float]]:
    """While inside: another user's health checks of ``server``, one every ``every_s``
    seconds; yields the list of their answer times (inf: no answer), filled until the end."""
    times: list[float] = []
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            start = time.monotonic()
            try:
                with urllib.request.urlopen(server + "/_stcore/health", timeout=10) as r:
                    ok = r.status == 200
            except OSError:
                ok = False
            times.append(time.monotonic() - start if ok else float("inf"))
            time.sleep(every_s)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        yield times
    finally:
        stop.set()
        prober.join()


async def stream_session(url: str, address: str, page: str = "corpus", hold: "asyncio.Event | None" = None,
                         timeout: float = 300, ran: list | None = None, cookie: str = "") -> list[str]:
    """One browser session without a browser: Streamlit's own WebSocket, opened from the
    loopback address ``address`` (127.x.y.z), asking for a run of ``page``; returns the
    texts of the headings, markdown, alerts and HTML that run drew (``cookie``: the
    browser's ``Cookie`` header). With ``hold``, the session
    stays open (it counts as a live tab) until the event is set; ``ran`` gets the texts as
    soon as the run is over."""
    import asyncio

    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    parts = urllib.parse.urlsplit(url)
    texts: list[str] = []
    async with websockets.connect(f"ws://{parts.netloc}/_stcore/stream", subprotocols=["streamlit"],
                                  local_addr=(address, 0), max_size=2 ** 27, open_timeout=60,
                                  additional_headers={"Cookie": cookie} if cookie else None) as ws:
        msg = BackMsg()
        msg.rerun_script.page_name = page
        await ws.send(msg.SerializeToString())
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(ws.recv(), timeout))
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                which = element.WhichOneof("type")
                if which in ("heading", "markdown", "alert", "html"):
                    texts.append(getattr(element, which).body)
            elif kind == "script_finished" and forward.script_finished != forward.FINISHED_EARLY_FOR_RERUN:
                break  # a run cut short for a rerun (a changed address, st.rerun) goes on
        if ran is not None:
            ran.append(texts)
        if hold is not None:
            await hold.wait()
    return texts


def run_async(coro):
    """Run a coroutine to its end in a thread of its own: the browser tests' sync
    Playwright keeps an event loop running in the main thread, where ``asyncio.run`` fails."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def peak_rss_mb(pid: int) -> float:
    """A process's peak resident memory so far (VmHWM), in MB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


#: Simulated annotators of a pilot project: three careful ones and one who answers at random.
PILOT_ANNOTATORS = (("ann-1", 0.95), ("ann-2", 0.9), ("ann-3", 0.85), ("random", 0.5))


def answer_every_page(store, project, annotators=PILOT_ANNOTATORS, seed: int = 0) -> None:
    """Every page of ``project`` answered through ``store`` by ``(name, accuracy)`` annotators:
    right with that chance against the golden answer (a coin's for items without one)."""
    import numpy as np  # the browser tests' helpers load without it otherwise

    golden = store.items(project.id).set_index("item")["golden"]
    rng = np.random.default_rng(seed)
    truth = {i: (g if g == g else float(rng.integers(0, 2))) for i, g in golden.items()}
    for name, accuracy in annotators:
        annotator = store.join(project.access_code, name)
        for task in project.tasks:
            while (page := store.next_page(annotator.id, task)) is not None:
                answers = {item.id: (truth[item.id] if rng.random() < accuracy
                                     else (1.0 - truth[item.id] if task != "fluency" else 0.5)) for item in page.items}
                store.submit_page(annotator.id, page.assignment_id, answers)


def pilot_project(db_url: str, data_root: Path, overlap: int):
    """An annotation project "pilot" on two systems' outputs (a copy and an upper-cased copy) of
    eight RUSSE-2022 test inputs, with controls made from the training split, every page answered by
    :data:`PILOT_ANNOTATORS` (:func:`answer_every_page`); returns ``(store, project)``."""
    import pandas as pd  # the browser tests' helpers load without it otherwise

    from detox_core import editions
    from detox_core.annotation.projects import corpus_controls
    from detox_core.annotation.store import AnnotationStore, Settings

    store = AnnotationStore(db_url)
    corpus = editions.load_dataset("russe2022", ["train"], data_root)
    test = editions.load_dataset("russe2022", ["test"], data_root)["toxic_comment"].head(8).tolist()
    pairs = pd.concat([pd.DataFrame({"system": system, "idx": range(len(test)), "input": test,
                                     "output": [f(t) for t in test]})
                       for system, f in (("copy_test.txt", str), ("upper_test.txt", str.upper))], ignore_index=True)
    tasks = ["toxicity", "content", "fluency"]
    controls, exam = corpus_controls(corpus, tasks, per_task=6 if len(corpus) > 100 else 2, exam_per_task=0)
    project = store.create_project("pilot", tasks, pairs, controls=controls, exam=exam,
                                   settings=Settings(overlap=overlap, page_size=6, controls_per_page=1,
                                                     min_page_seconds=0, training=False, ban_control_accuracy=0.0))
    answer_every_page(store, project)
    return store, project
