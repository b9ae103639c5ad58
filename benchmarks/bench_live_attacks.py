"""The round-6 attacks of a hostile visitor, driven live: over Streamlit's own WebSocket and
the beat route, against one app process (``detox serve``) and against the deployment
(``deploy/run.sh``: three processes behind nginx), each with ``DETOX_MAX_SESSIONS=25``
(20 places for visitors and 5 kept for the Annotate page, per process), on this machine.

Each attack prints what honest people got meanwhile, beside the same measured quiet
(before the attack, in the same run):

- **beats** (issue 58 item 1): ``--addresses`` addresses x 20 scripted tabs, each beating
  with its own token every 20 s and never running again, topping up whatever frees, for
  ``--minutes``; a newcomer (a new address) arrives every 15 s and its page tries again every
  10 s, as the full page does. Prints the places the scripts held, how many newcomers got in
  and within how long, and whether a new annotator's Annotate page got in.
- **guesses** (item 4): tabs from one address join at once as an existing annotator with a
  wrong password (20: one address's tabs on one process; 60 on the deployment, 20 per
  process); then three addresses do so together. Prints how many passwords were checked
  ("does not match") against the limit of 5 per (address, name), and an honest annotator's
  join meanwhile.
- **new names** (item 5): 20 tabs from one address join under new names as fast as they
  are answered, for ``--seconds``; an honest annotator in Chromium answers and saves pages
  meanwhile. Prints the fakes that joined and were told to wait, and the honest saves
  (median, p95, max) and join.

During the beats, the organizer also arrives from a new address and signs in with the
sidebar's form (drawn beside "full" too): what they got, and how fast.

    python benchmarks/bench_live_attacks.py [--target process|deployment|both]
        [--attacks beats,guesses,new-names] [--turns off|on|both] [--hashing off|on|both] [--gc off|on|both]
        [--server-cpus 1] [--addresses 4] [--minutes 3] [--seconds 60]

Each target runs once per setting compared, so each figure has its baseline in the same run:
``--turns both`` without the turns of an address's page runs (``DETOX_RUNS_PER_ADDRESS=0``, as
before them) and with them (the default); ``--hashing both`` with the password hashes at the
pages' priority (``DETOX_HASHING_NICE=0``, as before) and lower (the default); ``--gc both``
with Streamlit's full garbage collection after every page run and without it (the app's
``.streamlit/config.toml``).

``--server-cpus 1`` runs the server(s) on CPU 1 and the attacking clients and Chromium on the
others, as on a real deployment, where they are not on the server's cores (PostgreSQL, a
service of its own, stays where it is).

Needs nginx for the deployment, Chromium for the honest annotator's saves, and a
PostgreSQL URL in ``DETOX_TEST_POSTGRES_URL`` for the deployment (SQLite otherwise).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import websockets  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from detox_core.data import PROJECT_ROOT  # noqa: E402

PLACES = 25  # DETOX_MAX_SESSIONS of each process in these runs
RIGHT = "the-right-password-1"
ORGANIZER = "a long organizer password"
WRONG = "a-wrong-password-9"
REFUSED = ("This server is full", "Too many sessions")
_TOKEN = re.compile(rb'"token"\s*:\s*"([A-Za-z0-9_\-]{8,64})"')


class Tab:
    """One browser tab without a browser: a Streamlit session over its WebSocket, from the
    loopback address ``address``, that beats as the page's script does."""

    def __init__(self, url: str, address: str):
        self.url, self.address = url, address
        self.parts = urllib.parse.urlsplit(url)
        self.ws = None
        self.texts: list[str] = []
        self.inputs: dict[str, str] = {}
        self.buttons: dict[str, str] = {}
        self.token: str | None = None
        self.page = ""

    async def open(self, page: str = "", timeout: float = 120) -> list[str]:
        self.ws = await websockets.connect(f"ws://{self.parts.netloc}/_stcore/stream", subprotocols=["streamlit"],
                                           local_addr=(self.address, 0), max_size=2 ** 27, open_timeout=60)
        self.page = page
        return await self.run({}, timeout=timeout)

    async def run(self, widgets: dict[str, object], timeout: float = 120) -> list[str]:
        """One run of the tab's page with ``widgets`` (id -> a string, or True for a
        button's press); the texts it drew."""
        msg = BackMsg()
        msg.rerun_script.page_name = self.page
        for wid, value in widgets.items():
            state = msg.rerun_script.widget_states.widgets.add()
            state.id = wid
            if value is True:
                state.trigger_value = True
            else:
                state.string_value = str(value)
        await self.ws.send(msg.SerializeToString())
        self.texts = []
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout))
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                which = element.WhichOneof("type")
                if which in ("heading", "markdown", "alert", "html"):
                    self.texts.append(getattr(element, which).body)
                elif which == "text_input":
                    self.inputs[element.text_input.label] = element.text_input.id
                elif which == "button":
                    self.buttons[element.button.label] = element.button.id
                elif (found := _TOKEN.search(element.SerializeToString())) is not None:
                    self.token = found.group(1).decode()
            elif kind == "script_finished" and forward.script_finished != forward.FINISHED_EARLY_FOR_RERUN:
                break
        if self.token:
            await self.beat()
        return self.texts

    async def join(self, code: str, name: str, password: str) -> str:
        """Fill the Annotate page's join form and press Join; what the page said."""
        if "Access code" not in self.inputs:
            return "no join form: " + " ".join(self.texts)[:120]
        await self.run({self.inputs["Access code"]: code, self.inputs["Your name"]: name,
                        self.inputs["Your password"]: password, self.buttons["Join"]: True})
        return " ".join(self.texts)

    async def beat(self) -> bool:
        def post() -> int:
            req = urllib.request.Request(self.url + "/_detox/beat", data=self.token.encode(), method="POST")
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status
            except urllib.error.HTTPError as err:
                return err.code
            except OSError:
                return 0
        return await asyncio.to_thread(post) == 204

    @property
    def admitted(self) -> bool:
        return bool(self.texts) and not any(any(r in t for r in REFUSED) for t in self.texts)

    @property
    def open_(self) -> bool:
        return self.ws is not None and self.ws.state.name == "OPEN"

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


async def newcomer(url: str, address: str, give_up_s: float = 120) -> float | None:
    """Seconds until a new visitor's page got in (its full page tries again every 10 s)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < give_up_s:
        tab = Tab(url, address)
        try:
            await tab.open()
            if tab.admitted:
                return time.monotonic() - t0
        except (OSError, asyncio.TimeoutError, websockets.WebSocketException):
            pass
        finally:
            await tab.close()
        await asyncio.sleep(10)
    return None


# --- item 1: scripted beats -------------------------------------------------------------

async def beats(url: str, addresses: int, minutes: float) -> None:
    quiet = await newcomer(url, "127.0.20.1")
    print(f"    quiet: a newcomer got in after {quiet:.1f} s" if quiet is not None else "    quiet: a newcomer never got in")
    scripts = {f"127.0.21.{a + 1}": [] for a in range(addresses)}
    stop = asyncio.Event()
    held: list[int] = []

    async def top_up() -> None:
        while not stop.is_set():
            for address, tabs in scripts.items():
                tabs[:] = [t for t in tabs if t.open_]
                for _ in range(20 - len(tabs)):
                    tab = Tab(url, address)
                    try:
                        await tab.open(timeout=60)
                    except (OSError, asyncio.TimeoutError, websockets.WebSocketException):
                        break
                    if not tab.admitted:
                        await tab.close()
                        break
                    tabs.append(tab)
            held.append(sum(len(t) for t in scripts.values()))
            await asyncio.sleep(5)

    async def beat_all() -> None:
        while not stop.is_set():
            await asyncio.sleep(20)
            await asyncio.gather(*(t.beat() for tabs in scripts.values() for t in tabs if t.open_ and t.token))

    workers = [asyncio.create_task(top_up()), asyncio.create_task(beat_all())]
    await asyncio.sleep(40)  # the scripts take the places first
    start = time.monotonic()
    arrivals, k = [], 0
    annotator = organizer = None
    while time.monotonic() - start < minutes * 60:
        k += 1
        arrivals.append(asyncio.create_task(newcomer(url, f"127.0.22.{k}")))
        if annotator is None and time.monotonic() - start > minutes * 30:
            annotator = asyncio.create_task(_annotate_page(url, "127.0.23.1"))
            organizer = asyncio.create_task(_organizer(url, "127.0.24.1"))
        await asyncio.sleep(15)
    waits = await asyncio.gather(*arrivals)
    stop.set()
    for w in workers:
        w.cancel()
    got = [w for w in waits if w is not None]
    print(f"    attack: {addresses} addresses x 20 scripted tabs, topped up every 5 s: up to {max(held, default=0)} "
          f"of their tabs open at once (admitted when opened; a tab that gave its place stays open until the "
          f"sweeper closes it), {held[-1] if held else 0} at the end")
    print(f"    newcomers: {len(got)} of {len(waits)} got in ({sum(w <= 10 for w in got)} within 10 s; "
          f"median {statistics.median(got):.1f} s, longest {max(got):.1f} s)" if got else
          f"    newcomers: none of {len(waits)} got in")
    if annotator is not None:
        print(f"    a new annotator's Annotate page: {await annotator}")
        print(f"    the organizer: {await organizer}")
    await asyncio.gather(*(t.close() for tabs in scripts.values() for t in tabs), return_exceptions=True)


async def _organizer(url: str, address: str) -> str:
    """The organizer opens the Corpus page from a new address and signs in with the sidebar's
    form (drawn beside "full" too); what they got, and how fast."""
    tab = Tab(url, address)
    t0 = time.monotonic()
    try:
        await tab.open("corpus")
        first = "the page" if tab.admitted else "told full"
        if "Organizer password" not in tab.inputs:
            return f"{first}, and no sign-in form: " + " ".join(tab.texts)[:120]
        await tab.run({tab.inputs["Organizer password"]: ORGANIZER, tab.buttons["Sign in"]: True})
        got = "the Corpus page" if any("Corpus" in t for t in tab.texts) and tab.admitted else "refused"
        return f"{first} at first, {got} once signed in, {time.monotonic() - t0:.1f} s after arriving"
    finally:
        await tab.close()


async def _annotate_page(url: str, address: str) -> str:
    tab = Tab(url, address)
    t0 = time.monotonic()
    try:
        await tab.open("annotate")
        return (f"the join form after {time.monotonic() - t0:.1f} s" if "Access code" in tab.inputs
                else "refused: " + " ".join(tab.texts)[:120])
    finally:
        await tab.close()


# --- item 4: guessed passwords ----------------------------------------------------------

async def _tabs(url: str, address: str, n: int, page: str = "annotate") -> list[Tab]:
    tabs = []
    for _ in range(n):  # one after another, each beating at once (as pages do): never 8 unconfirmed
        tab = Tab(url, address)
        await tab.open(page)
        if "Access code" in tab.inputs:
            tabs.append(tab)
        else:
            await tab.close()
    return tabs


async def guesses(url: str, code: str, per_address: int, places: int) -> None:
    honest = Tab(url, "127.0.30.1")
    await honest.open("annotate")
    t0 = time.monotonic()
    said = await honest.join(code, "Marta", RIGHT)
    print(f"    quiet: an honest annotator joined in {time.monotonic() - t0:.2f} s ({'signed in' if 'signed in' in said else said[:80]})")
    await honest.close()
    rounds = (("one address", ["127.0.31.1"], per_address),
              # as many tabs as leave a place for the honest annotator
              ("three addresses", [f"127.0.32.{a}" for a in (1, 2, 3)], min(per_address, (places - 3) // 3)))
    for label, addresses, each in rounds:
        tabs = [t for a in addresses for t in await _tabs(url, a, each)]
        honest = Tab(url, "127.0.30.2")
        await honest.open("annotate")

        async def honest_join() -> tuple[str, float]:
            await asyncio.sleep(0.5)  # while the burst is under way
            t0 = time.monotonic()
            said = await honest.join(code, "Marta", RIGHT)
            return said, time.monotonic() - t0

        t0 = time.monotonic()
        *results, (joined, took) = await asyncio.gather(*(t.join(code, "olga", WRONG) for t in tabs),
                                                       honest_join(), return_exceptions=True)
        burst_s = time.monotonic() - t0
        texts = [r if isinstance(r, str) else f"{type(r).__name__}" for r in results]
        checked = {a: sum(1 for t, r in zip(tabs, texts) if t.address == a and "password does not match" in r)
                   for a in addresses}
        waited = sum(1 for r in texts if "before the next try" in r or "try again in" in r)
        other = [r for r in texts if "password does not match" not in r and "before the next try" not in r
                 and "try again in" not in r]
        print(f"    {label}: {len(tabs)} wrong passwords for one name at once, answered in {burst_s:.1f} s; checked "
              f"{sum(checked.values())} ({', '.join(str(v) for v in checked.values())} per address; the limit is 5 "
              f"per address and name), {waited} told to wait"
              + (f", {len(other)} answered otherwise (e.g. {other[0][-100:]!r})" if other else "")
              + f"; an honest annotator's join meanwhile: {'signed in' if 'signed in' in joined else joined[:80]} "
              f"in {took:.2f} s")
        await asyncio.gather(*(t.close() for t in tabs + [honest]), return_exceptions=True)
        await asyncio.sleep(2)


# --- item 5: a flood of new names -------------------------------------------------------

async def new_names(url: str, code: str, seconds: float, honest_saves) -> None:
    quiet = await asyncio.to_thread(honest_saves, url, code, "Quiet", 4)
    print(f"    quiet: {_saves(quiet)}")
    stop = asyncio.Event()
    joined, waited, n = [0], [0], [0]

    async def fake(k: int) -> None:
        while not stop.is_set():
            tab = Tab(url, "127.0.40.1")
            try:
                await tab.open("annotate")
                if "Access code" not in tab.inputs:
                    await asyncio.sleep(1)
                    continue
                n[0] += 1
                said = await tab.join(code, f"bot {k} {n[0]}", RIGHT)
                joined[0] += "signed in" in said
                waited[0] += "try again in" in said
            except (OSError, asyncio.TimeoutError, websockets.WebSocketException, KeyError):
                await asyncio.sleep(1)
            finally:
                await tab.close()

    fakes = [asyncio.create_task(fake(k)) for k in range(20)]
    await asyncio.sleep(5)
    t0 = time.monotonic()
    honest = Tab(url, "127.0.41.1")
    await honest.open("annotate")
    said = await honest.join(code, "Nadia", RIGHT)
    join_s = time.monotonic() - t0
    await honest.close()
    during = await asyncio.to_thread(honest_saves, url, code, "Honest", max(2, int(seconds // 8)))
    stop.set()
    await asyncio.gather(*fakes, return_exceptions=True)
    print(f"    flood: 20 tabs from one address joined {joined[0]} new names, {waited[0]} were told to wait")
    print(f"    the honest annotator meanwhile: joined in {join_s:.2f} s ({'signed in' if 'signed in' in said else said[:80]}); "
          f"{_saves(during)}")


def _saves(times: list[float]) -> str:
    if not times:
        return "no page saved"
    times = sorted(times)
    return (f"{len(times)} page saves, median {statistics.median(times):.2f} s, "
            f"p95 {times[min(len(times) - 1, int(0.95 * len(times)))]:.2f} s, max {times[-1]:.2f} s")


def honest_saves(url: str, code: str, name: str, pages: int) -> list[float]:
    """An annotator in Chromium joins and saves ``pages`` pages; the seconds from Enter to
    "Page N saved" of each."""
    from playwright.sync_api import sync_playwright

    from tests.e2e.util import CHROMIUM

    times = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url + "/annotate")
        page.get_by_label("Access code").wait_for(timeout=120_000)
        page.get_by_label("Access code").fill(code)
        page.get_by_label("Your name").fill(name)
        page.get_by_label("Your password", exact=True).fill(RIGHT)
        page.get_by_role("button", name="Join").click()
        for k in range(1, pages + 1):
            items = page.locator(".ap-item")
            items.first.wait_for(timeout=120_000)
            page.locator("h1").first.click()
            for _ in range(items.count()):
                page.keyboard.press("1")
            t0 = time.monotonic()
            page.keyboard.press("Enter")
            page.get_by_text(f"Page {k} saved").first.wait_for(timeout=120_000)
            times.append(time.monotonic() - t0)
        browser.close()
    return times


# --- the targets ------------------------------------------------------------------------

def _project(db_url: str, pages: int) -> str:
    import pandas as pd

    from detox_core.annotation.store import AnnotationStore, Settings

    store = AnnotationStore(db_url)
    outputs = [f"спокойный ответ {i}" for i in range(4 * pages)]
    pairs = pd.DataFrame({"system": "sys", "idx": range(len(outputs)),
                          "input": [f"ты тупой {i}" for i in range(len(outputs))], "output": outputs})
    project = store.create_project(f"attacks {time.time():.0f}", ["toxicity"], pairs,
                                   settings=Settings(overlap=1, page_size=4, controls_per_page=0,
                                                     min_page_seconds=0, training=False))
    store.join(project.access_code, "olga", RIGHT)
    store.engine.dispose()
    return project.access_code


def _env(data: str, db_url: str, extra: dict[str, str]) -> dict[str, str]:
    return {"DETOX_DATA_DIR": data, "DETOX_DB_URL": db_url, "DETOX_WARMUP": "0",
            "DETOX_ORGANIZER_PASSWORD": ORGANIZER, "DETOX_MAX_SESSIONS": str(PLACES), **extra}


@contextmanager
def one_process(run: Path, db_url: str, data: str, extra: dict[str, str]):
    from tests.e2e.util import start_app, stop_app

    proc, url = start_app(_env(data, db_url, extra), launcher=True)
    try:
        yield url, proc.pid
    finally:
        stop_app(proc)


@contextmanager
def deployment(run: Path, db_url: str, data: str, extra: dict[str, str]):
    from tests.e2e.test_deployment import start_run_sh, stop_run_sh, wait_up

    log = run / "run.log"
    proc, url, _ = start_run_sh(_env(data, db_url, extra), run, 3, log)
    try:
        wait_up(url, proc, log)
        yield url, proc.pid
    finally:
        stop_run_sh(proc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", choices=("process", "deployment", "both"), default="both")
    ap.add_argument("--attacks", default="beats,guesses,new-names")
    ap.add_argument("--turns", choices=("off", "on", "both"), default="both",
                    help="the servers without the turns of an address's runs (DETOX_RUNS_PER_ADDRESS=0), with, or both")
    ap.add_argument("--hashing", choices=("off", "on", "both"), default="on",
                    help="the password hashes at the pages' priority (DETOX_HASHING_NICE=0), lower (the default), or both")
    ap.add_argument("--gc", choices=("off", "on", "both"), default="on",
                    help="a full garbage collection after every page run (Streamlit's default, "
                         "STREAMLIT_RUNNER_POST_SCRIPT_GC=true), none (the app's setting), or both")
    ap.add_argument("--server-cpus", default="",
                    help="CPUs the server(s) run on (e.g. 1), the attacking clients and Chromium on the others: "
                         "the clients off the server's cores, as on a real deployment (default: all share all)")
    ap.add_argument("--addresses", type=int, default=4, help="attacking addresses of the beats, 20 tabs each")
    ap.add_argument("--minutes", type=float, default=3, help="how long newcomers arrive during the beats")
    ap.add_argument("--seconds", type=float, default=60, help="about how long the flood of new names lasts")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    server_cpus = {int(c) for c in args.server_cpus.split(",") if c.strip()}
    if server_cpus:
        clients = set(range(os.cpu_count() or 1)) - server_cpus
        if not clients:
            ap.error("--server-cpus must leave a CPU for the clients")
        os.sched_setaffinity(0, clients)  # this process, its clients' threads and its Chromium
    from detox_core.config import data_dir

    data = str(data_dir())
    attacks = args.attacks.split(",")
    targets = ["process", "deployment"] if args.target == "both" else [args.target]
    from detox_core.config import DEFAULT_HASHING_NICE, DEFAULT_RUNS_PER_ADDRESS

    # Each compared setting: (label, environment) before and now; "both" runs each.
    compared = {
        "turns": ([("an address's runs unlimited", {"DETOX_RUNS_PER_ADDRESS": "0"})],
                  [(f"{DEFAULT_RUNS_PER_ADDRESS} runs of an address at a time", {})]),
        "hashing": ([("hashes at the pages' priority", {"DETOX_HASHING_NICE": "0"})],
                    [(f"hashes at niceness +{DEFAULT_HASHING_NICE}", {})]),
        "gc": ([("a full garbage collection after each run", {"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"})],
               [("no collection after each run", {})]),
    }
    settings = [("", {})]
    for name, (before, now) in compared.items():
        chosen = {"off": before, "on": now, "both": before + now}[getattr(args, name)]
        settings = [(", ".join(x for x in (label, c_label) if x), {**env, **c_env})
                    for label, env in settings for c_label, c_env in chosen]
    for target, (label, extra) in ((t, s) for t in targets for s in settings):
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp)
            pg = os.environ.get("DETOX_TEST_POSTGRES_URL")
            db_url = _fresh_database(pg) if pg and target == "deployment" else f"sqlite:///{run / 'app.sqlite'}"
            code = _project(db_url, pages=50)
            starter = one_process if target == "process" else deployment
            with starter(run, db_url, data, extra) as (url, server):
                where = f"{os.cpu_count()} cores shared with the clients"
                if server_cpus:
                    _pin(server, server_cpus)
                    where = (f"on CPU {','.join(map(str, sorted(server_cpus)))}, the clients and Chromium on the other "
                             f"{(os.cpu_count() or 1) - len(server_cpus)}")
                print(f"{target} ({'1 process' if target == 'process' else '3 processes behind nginx'}, "
                      f"{PLACES} sessions each, {where}), {label}:", flush=True)
                if "beats" in attacks:
                    print("  scripted beats (item 1):")
                    asyncio.run(beats(url, args.addresses, args.minutes))
                if "guesses" in attacks:
                    print("  guessed passwords (item 4):")
                    asyncio.run(guesses(url, code, 20 if target == "process" else 60, PLACES * (1 if target == "process" else 3)))
                if "new-names" in attacks:
                    print("  new names (item 5):")
                    asyncio.run(new_names(url, code, args.seconds, honest_saves))


def _descendants(root: int) -> list[int]:
    """``root`` and every process below it (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _pin(root: int, cpus: set[int]) -> int:
    """Every thread of ``root`` and its descendants on ``cpus``, the threads they start later
    too; the count of threads pinned."""
    pinned = 0
    for pid in _descendants(root):
        for task in Path(f"/proc/{pid}/task").glob("[0-9]*"):
            try:
                os.sched_setaffinity(int(task.name), cpus)
                pinned += 1
            except OSError:
                pass  # ended meanwhile
    return pinned


def _fresh_database(pg: str) -> str:
    """A database of its own on the test server (``detox_bench``, made afresh): the
    deployment's processes start on it; the tests' own database is left alone."""
    from sqlalchemy import create_engine, text

    admin = create_engine(pg, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text("DROP DATABASE IF EXISTS detox_bench WITH (FORCE)"))
        c.execute(text("CREATE DATABASE detox_bench"))
    admin.dispose()
    return pg.rsplit("/", 1)[0] + "/detox_bench"


if __name__ == "__main__":
    main()
