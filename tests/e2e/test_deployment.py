"""A shared deployment as it runs: ``deploy/run.sh`` with three app processes behind its
nginx, on PostgreSQL, driven through the proxy by headless Chromium.

Each browser context is pinned to one app process the way the proxy pins a browser: its
``detox_process`` cookie (deploy/nginx). Annotators come from different addresses: each
browser's connections reach the proxy from a loopback address of its own (127.0.0.x, through
a relay of the test: :func:`tests.e2e.util.from_address`), which the proxy passes on in
``X-Forwarded-For`` (the app believes it from the proxy on this machine, as it would
from a real one). Needs Debian's nginx, a PostgreSQL test
database (``DETOX_TEST_POSTGRES_URL``) and Chromium: skipped with the reason where one is
missing, and required (a failure) where ``DETOX_REQUIRE_DEPLOY=1`` (``.ci/run`` installs
them) or ``CI=true``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError, expect
from sqlalchemy import create_engine, text

from detox_core.annotation.controls import Control
from detox_core.annotation.store import AnnotationStore, Settings
from detox_core.data import PROJECT_ROOT
from tests.ci_skips import required
from tests.conftest import drop_database, postgres_server
from tests.e2e.util import (
    CHROMIUM,
    ORGANIZER_PASSWORD,
    free_block,
    free_port,
    from_address,
    no_exception,
    wait_idle,
    wait_markup,
    wait_until,
)

PG = os.environ.get("DETOX_TEST_POSTGRES_URL")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
REQUIRED = required("DETOX_REQUIRE_DEPLOY")  # DETOX_REQUIRE_DEPLOY=1 or CI=true
MISSING = [why for bad, why in [
    (not Path(CHROMIUM).exists(), "Chromium is not installed (apt-get install chromium)"),
    (not Path(NGINX).exists(), "nginx is not installed (apt-get install nginx)"),
    (not PG, "no PostgreSQL test database (set DETOX_TEST_POSTGRES_URL)"),
] if bad]
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(bool(MISSING) and not REQUIRED, reason="; ".join(MISSING))]


@pytest.fixture(scope="module", autouse=True)
def everything_the_deployment_needs():
    """Where the deployment is required, each test fails with what is missing (before any
    other fixture of this module starts something), instead of being skipped."""
    if MISSING:
        pytest.fail("DETOX_REQUIRE_DEPLOY=1 or CI=true, but " + "; ".join(MISSING), pytrace=False)

PROCESSES = 3


@dataclass
class Deployment:
    url: str
    run_dir: Path
    proc: subprocess.Popen
    db_url: str

    def app_pid(self, k: int) -> int:
        return int((self.run_dir / f"app-{k}.pid").read_text())

    def logs(self, lines: int = 40) -> str:
        """The last lines of each app process's log and of the proxy's logs (for a failure)."""
        parts = []
        for f in sorted(self.run_dir.glob("*.log")):
            tail = f.read_text(errors="replace").splitlines()[-lines:]
            parts.append(f"--- {f.name}\n" + "\n".join(tail))
        return "\n".join(parts)

    def served_by(self, k: int, path: str = "/_stcore/health") -> str:
        """Which process answers a request pinned to process ``k`` (its response header)."""
        req = urllib.request.Request(self.url + path, headers={"Cookie": f"detox_process={k}"})
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.headers.get("X-Detox-Process", "")


def start_run_sh(env: dict[str, str], run_dir: Path, processes: int, log: Path) -> tuple[subprocess.Popen, str, int]:
    proxy, first = free_port(), free_block(processes)
    full = {**os.environ, **env, "DETOX_PROCESSES": str(processes), "DETOX_PROXY_PORT": str(proxy),
            "DETOX_FIRST_APP_PORT": str(first), "DETOX_RUN_DIR": str(run_dir), "DETOX_PYTHON": sys.executable,
            "NGINX": NGINX}
    proc = subprocess.Popen(["bash", str(PROJECT_ROOT / "deploy" / "run.sh")], cwd=PROJECT_ROOT, env=full,
                            stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    return proc, f"http://127.0.0.1:{proxy}", first


def wait_up(url: str, proc: subprocess.Popen, log: Path, timeout: float = 180) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"deploy/run.sh exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"the proxy did not answer within {timeout} s:\n{log.read_text()[-3000:]}")


def stop_run_sh(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture(scope="module")
def deployment(data_root, tmp_path_factory):
    # pool_pre_ping: the restart test below cuts the connections this engine keeps.
    admin = create_engine(PG, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    with admin.connect() as c:
        drop_database(c, "detox_deploy")
        c.execute(text("CREATE DATABASE detox_deploy"))
    db_url = PG.rsplit("/", 1)[0] + "/detox_deploy"
    run_dir = tmp_path_factory.mktemp("run")
    log = run_dir / "run.log"
    proc = None
    try:
        for attempt in range(2):  # a free port can be taken meanwhile (by the other test worker): once more
            proc, url, _ = start_run_sh({"DETOX_DATA_DIR": str(data_root), "DETOX_DB_URL": db_url,
                                         "DETOX_ORGANIZER_PASSWORD": ORGANIZER_PASSWORD, "DETOX_WARMUP": "0"},
                                        run_dir, PROCESSES, log)
            try:
                wait_up(url, proc, log)
                break
            except RuntimeError as err:
                if attempt or "port(s) in use" not in str(err):
                    raise
                stop_run_sh(proc)
        yield Deployment(url, run_dir, proc, db_url)
    finally:
        if proc is not None:
            stop_run_sh(proc)
        with admin.connect() as c:
            drop_database(c, "detox_deploy")
        admin.dispose()


def pinned(browser, deployment: Deployment, k: int, address: str | None = None, width: int = 1400):
    """A browser context on process ``k``, from the loopback ``address`` (127.0.0.1 when
    None): a path its pages open (``page.goto("/annotate")``) goes to the proxy from there."""
    url = from_address(deployment.url, address) if address else deployment.url
    ctx = browser.new_context(viewport={"width": width, "height": 1000}, base_url=url)
    ctx.add_cookies([{"name": "detox_process", "value": str(k), "url": url}])
    return ctx


def sign_in(page, corpus_url: str, password: str) -> None:
    """Open the Corpus page at ``corpus_url`` and send ``password`` in the organizer's
    sign-in form of its sidebar (the caller waits for the outcome it expects)."""
    page.goto(corpus_url)
    page.get_by_role("heading", name="Corpus", exact=True).wait_for(timeout=120_000)
    wait_idle(page)
    page.get_by_text("Organizer sign-in").click()
    page.get_by_label("Organizer password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()


def process_of(page) -> str:
    return next((c["value"] for c in page.context.cookies() if c["name"] == "detox_process"), "")


def one_system(outputs: list[str], rude: str) -> pd.DataFrame:
    """Pairs of one system: ``rude`` + a number as each input, ``outputs`` as its outputs."""
    n = len(outputs)
    return pd.DataFrame({"system": "sys", "idx": range(n), "input": [f"{rude} {i}" for i in range(n)], "output": outputs})


def answer_all(page, key: str) -> int:
    """Answer every item of the open page with ``key`` and wait until each shows answered;
    returns the number of items."""
    items = page.locator(".ap-item")
    items.first.wait_for(timeout=60_000)
    n = items.count()
    for _ in range(3):
        page.locator("h1").first.click()
        for _ in range(n):
            page.keyboard.press(key)
        try:
            expect(page.locator(".ap-item.answered")).to_have_count(n, timeout=15_000)
            return n
        except AssertionError:
            continue
    raise AssertionError(f"the page's {n} items did not all show answered")


def join(page, code: str, name: str, password: str = "a-password-of-mine") -> None:
    """Join on the Annotate page of the proxy the page's context was pinned to (:func:`pinned`)."""
    page.goto("/annotate")
    page.get_by_label("Access code").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_label("Access code").fill(code)
    page.get_by_label("Your name").fill(name)
    page.get_by_label("Your password", exact=True).fill(password)
    page.get_by_role("button", name="Join").click()


def submit_page(page, key: str, expected: str, wait_s: float = 120) -> None:
    """Answer the open page with ``key``, submit it, and wait for ``expected`` (the
    outcome is drawn in the page's component, a shadow root: a locator finds it).

    A submit that gets no reply (its message lost while the tab's connection moved to
    another process) makes the page say "No reply from the server yet ... Press Enter to
    send them again" after its retry time: the annotator does so, and so does this."""
    answer_all(page, key)
    page.keyboard.press("Enter")
    outcome, no_reply = page.get_by_text(expected).first, page.get_by_text("No reply from the server yet").first
    deadline, resent = time.monotonic() + wait_s, 0
    while True:
        try:
            outcome.wait_for(timeout=5_000)
            break
        except PlaywrightTimeoutError:
            pass
        if no_reply.is_visible():
            resent += 1
            page.locator("h1").first.click()
            page.keyboard.press("Enter")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {expected!r} within {wait_s:g} s ({resent} resend(s) as the page asked); "
                                 f"the page says: {page.inner_text('body')[-1500:]}")
    wait_idle(page)


def test_every_process_answers_through_the_proxy_and_the_cookie_pins_a_browser(deployment):
    assert [deployment.served_by(k) for k in range(1, PROCESSES + 1)] == ["1", "2", "3"]
    # A first visit (no cookie) gets one, naming the process that answered.
    with urllib.request.urlopen(deployment.url + "/", timeout=5) as r:
        cookie = r.headers.get("Set-Cookie", "")
        assert r.status == 200 and cookie.startswith("detox_process=") and r.headers["X-Detox-Process"] in "123"


def test_an_organizer_scores_a_submission_and_a_visitor_on_another_process_sees_it(deployment, browser, data_root,
                                                                                   tmp_path):
    from detox_core.editions.registry import load_dataset

    inputs = load_dataset("russe2022", ["test"], data_root)["toxic_comment"].tolist()
    upload = tmp_path / "proxy-team.txt"
    upload.write_text("".join(f"{t}\n" for t in inputs), encoding="utf-8")
    organizer = pinned(browser, deployment, 1).new_page()
    organizer.goto(deployment.url + "/submissions")
    organizer.get_by_text("This page is for the organizers of this task").wait_for(timeout=120_000)
    sign_in(organizer, deployment.url + "/corpus", ORGANIZER_PASSWORD)
    organizer.get_by_text("Signed in as organizer").wait_for(timeout=60_000)
    wait_idle(organizer)
    organizer.goto(deployment.url + "/submissions")  # a new page load: the sign-in cookie holds
    organizer.get_by_text("Add a submission").wait_for(timeout=60_000)
    wait_idle(organizer)
    organizer.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
    wait_idle(organizer)
    organizer.get_by_role("button", name="Score the upload").click()
    organizer.get_by_text("proxy-team.txt scored and stored").wait_for(timeout=300_000)
    no_exception(organizer)
    assert process_of(organizer) == "1"  # the upload and the score went to the organizer's process
    visitor = pinned(browser, deployment, 2).new_page()
    visitor.goto(deployment.url + "/leaderboard")
    visitor.get_by_role("heading", name="Leaderboard", exact=True).wait_for(timeout=120_000)
    wait_idle(visitor, 120)
    no_exception(visitor)
    assert process_of(visitor) == "2"
    # The submission is named in the ranking's grid and the charts, drawn after the run has ended.
    wait_markup(visitor, "proxy-team.txt", timeout=120)
    assert "proxy-team.txt" in visitor.content()
    organizer.context.close()
    visitor.context.close()


def test_wrong_passwords_spread_over_the_processes_are_counted_once(deployment, browser):
    """One address guessing the organizer password, moving to the next process before each
    try (the proxy's cookie, which a guesser sets at will): five wrong passwords in all lock
    it out of every process for 15 minutes, as on one process. Before, each process counted
    its own: 5 per process, 15 guesses before any lock with three."""
    import re

    said, locked_s = [], 0
    for k in range(12):
        ctx = pinned(browser, deployment, k % PROCESSES + 1, address="127.0.0.77")
        page = ctx.new_page()
        sign_in(page, "/corpus", f"guess-{k}")
        assert process_of(page) == str(k % PROCESSES + 1)
        page.get_by_text("Wrong password.").or_(page.get_by_text("Too many wrong passwords")).or_(
            page.get_by_text("before the next try")).first.wait_for(timeout=60_000)
        body = page.inner_text("body")
        pause, lock = re.search(r"Wait (\d+) s before the next try", body), re.search(r"try again in (\d+) min", body)
        wait = int(pause.group(1)) if pause else (int(lock.group(1)) * 60 if lock else None)
        said.append(f"wait {wait}" if wait is not None else "wrong")
        ctx.close()
        if wait is not None and wait > 600:
            locked_s = wait
            break
    assert said.count("wrong") == 5 and locked_s > 800, said  # locked after five, wherever they were tried
    # Another address is not slowed by this one.
    other = pinned(browser, deployment, 1, address="127.0.0.78").new_page()
    sign_in(other, "/corpus", ORGANIZER_PASSWORD)
    other.get_by_text("Signed in as organizer").wait_for(timeout=60_000)
    other.context.close()


def test_annotators_on_three_processes_overlap_repeats_and_bans_hold(deployment, browser):
    store = AnnotationStore(deployment.db_url)
    outputs = [f"вежливый ответ номер {i}" for i in range(12)]
    pairs = one_system(outputs, "ты дурак")
    controls = [Control("toxicity", f"спокойный контрольный текст {i}", 0.0) for i in range(8)]
    project = store.create_project(
        "across processes", ["toxicity"], pairs, controls=controls,
        settings=Settings(overlap=2, page_size=4, controls_per_page=1, min_control_answers=2,
                          ban_control_accuracy=0.7, ban_confidence=0.5, min_page_seconds=0, training=False,
                          max_refused_per_address=1))
    careless = pinned(browser, deployment, 3, "127.0.0.13").new_page()
    join(careless, project.access_code, "Carl")
    # "1" is "Yes, toxic": wrong on every control item (all polite): banned after two pages.
    submit_page(careless, "1", "Page 1 saved")
    submit_page(careless, "1", "your answers are no longer accepted")
    assert process_of(careless) == "3"
    # Two careful annotators on the other two processes take every item, twice in all.
    ann = {name: pinned(browser, deployment, k, f"127.0.0.1{k}").new_page() for name, k in (("Anna", 1), ("Boris", 2))}
    for name, page in ann.items():
        join(page, project.access_code, name)
    done, pages = set(), dict.fromkeys(ann, 0)
    for _ in range(12):
        for name, page in ann.items():
            if name in done:
                continue
            page.locator(".ap-item").or_(page.get_by_text("No toxicity items are left for you")).first.wait_for(
                timeout=60_000)
            if page.get_by_text("No toxicity items are left for you").count():
                done.add(name)
                continue
            pages[name] += 1
            submit_page(page, "2", f"Page {pages[name]} saved")
        if done == set(ann):
            break
    assert done == set(ann)
    assert process_of(ann["Anna"]) == "1" and process_of(ann["Boris"]) == "2"
    answers = store.answers(project.id)
    work = answers[answers["kind"] == "real"]
    # Nobody saw an item twice; overlap 2: every work item answered by Anna and Boris, once each.
    assert not answers.duplicated(["worker", "task"]).any()
    kept = work[work["worker"] != "Carl"]
    assert kept["task"].nunique() == len(outputs)
    assert all(sorted(names) == ["Anna", "Boris"] for names in kept.groupby("task")["worker"].apply(list))
    assert (answers.loc[answers["worker"] == "Carl", "status"] == "banned").all()
    # Carl is banned in the database, so every process refuses him.
    for k in (1, 2):
        again = pinned(browser, deployment, k, "127.0.0.13").new_page()
        join(again, project.access_code, "Carl")
        again.get_by_text("Your answers are no longer accepted").wait_for(timeout=60_000)
        assert process_of(again) == str(k)
        again.context.close()
    # A fourth person from Carl's address is refused by every process.
    for k in (1, 2, 3):
        newcomer = pinned(browser, deployment, k, "127.0.0.13").new_page()
        join(newcomer, project.access_code, f"Dora {k}")
        newcomer.get_by_text("an earlier attempt from your connection was not admitted").wait_for(timeout=60_000)
        assert process_of(newcomer) == str(k)
        newcomer.context.close()
    for page in [careless, *ann.values()]:
        page.context.close()
    store.engine.dispose()


@contextmanager
def slowed(pids: list[int], running: float, period: float = 1.0):
    """The processes ``pids`` run ``running`` of every ``period`` seconds (stopped the rest:
    SIGSTOP and SIGCONT), as on a machine that other work keeps busy; running again after."""
    done = threading.Event()

    def cycle() -> None:
        while not done.is_set():
            for pid in pids:
                os.kill(pid, signal.SIGSTOP)
            done.wait(period * (1 - running))
            for pid in pids:
                os.kill(pid, signal.SIGCONT)
            done.wait(period * running)

    worker = threading.Thread(target=cycle, daemon=True)
    worker.start()
    try:
        yield
    finally:
        done.set()
        worker.join()
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def test_a_killed_process_its_browser_reconnects_elsewhere_and_no_answer_is_lost(deployment, browser):
    store = AnnotationStore(deployment.db_url)
    outputs = [f"спокойный ответ {i}" for i in range(8)]
    pairs = one_system(outputs, "ты тупой")
    project = store.create_project("failover", ["toxicity"], pairs,
                                   settings=Settings(overlap=1, page_size=4, controls_per_page=0,
                                                     min_page_seconds=0, training=False))
    page = pinned(browser, deployment, 2).new_page()
    join(page, project.access_code, "Eva")
    submit_page(page, "2", "Page 1 saved")
    answer_all(page, "2")  # the second page answered, not yet submitted
    old = deployment.app_pid(2)
    os.kill(old, signal.SIGKILL)
    # The tab's WebSocket goes through the proxy to another process, and the page says so, even
    # when the processes left are slow to draw (a loaded machine: each runs a quarter of the time,
    # so a page takes seconds, longer than the tab's first requests to draw it are apart).
    try:
        with slowed([deployment.app_pid(1), deployment.app_pid(3)], running=0.25):
            page.get_by_text("Reconnected.").wait_for(timeout=120_000)
    except Exception as e:  # noqa: BLE001 - failed: with what the processes and the proxy logged
        raise AssertionError(f"no 'Reconnected.' notice (the tab's cookie: {process_of(page)!r})\n"
                             + deployment.logs()) from e
    assert process_of(page) in ("1", "3")
    no_exception(page)
    # Eva is still signed in (her tab's token), on the page she had open: it is submitted.
    page.get_by_text("signed in as Eva").wait_for(timeout=60_000)
    # No sign-in form once the new process's drawing settles (the first one, before the tab's token
    # reaches it, may still show the form for a moment).
    expect(page.get_by_label("Access code")).to_have_count(0, timeout=60_000)
    submit_page(page, "2", "Page 2 saved")
    answers = store.answers(project.id)
    assert len(answers) == 8 and set(answers["label"]) == {0.0}
    # run.sh started the killed process again: it answers on its own cookie.
    deadline = time.time() + 60
    while time.time() < deadline and (deployment.app_pid(2) == old or deployment.served_by(2) != "2"):
        time.sleep(1)
    assert deployment.app_pid(2) != old and deployment.served_by(2) == "2"
    page.context.close()
    store.engine.dispose()


def _pg_cluster() -> list[str] | None:
    """``pg_ctlcluster VERSION main`` of the local server the test database is on, when
    this user may restart it."""
    if os.geteuid() != 0 or not shutil.which("pg_ctlcluster") or not PG or "127.0.0.1" not in PG:
        return None
    versions = sorted(Path("/usr/lib/postgresql").glob("*"), key=lambda p: float(p.name) if p.name.isdigit() else 0)
    return ["pg_ctlcluster", versions[-1].name, "main"] if versions else None


def test_postgresql_restarted_under_load_pages_say_so_and_recover(deployment, browser):
    cluster = _pg_cluster()
    if cluster is None:
        pytest.skip("restarting PostgreSQL needs root and a local Debian cluster (pg_ctlcluster)")
    pages = []
    for k in range(1, PROCESSES + 1):
        page = pinned(browser, deployment, k).new_page()
        page.goto(deployment.url + "/leaderboard")
        page.get_by_role("heading", name="Leaderboard", exact=True).wait_for(timeout=120_000)
        wait_idle(page, 120)
        pages.append(page)
    # The server is the other tests' too: stopped once none of them uses it (the other test worker's
    # wait meanwhile), and up again before they go on.
    with postgres_server(PG, exclusive=True):
        subprocess.run([*cluster, "stop", "-m", "fast"], check=True, capture_output=True)
        try:
            for page in pages:  # every process, each reading the database while it is down
                page.reload()
                page.get_by_text("The database is not available").first.wait_for(timeout=90_000)
                no_exception(page)
                body = page.inner_text("body")
                assert "cannot be reached" in body and "Traceback" not in body and "127.0.0.1" not in body
        finally:
            subprocess.run([*cluster, "start"], check=True, capture_output=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                create_engine(deployment.db_url).connect().close()
                break
            except Exception:  # noqa: BLE001 - still starting
                time.sleep(1)
    for k, page in enumerate(pages, 1):  # the same processes, not restarted, answer again
        page.get_by_role("button", name="Try again").click()
        page.get_by_role("heading", name="Leaderboard", exact=True).wait_for(timeout=60_000)
        expect(page.get_by_text("The database is not available")).to_have_count(0, timeout=60_000)
        wait_idle(page, 120)
        no_exception(page)
        # A stored submission is named in the grid and the charts, drawn after the run has ended.
        wait_until(page, """() => document.documentElement.outerHTML.includes('proxy-team.txt')
            || document.body.innerText.includes('Nothing scored')""", timeout=120)
        assert "proxy-team.txt" in page.content() or "Nothing scored" in page.inner_text("body")
        assert process_of(page) == str(k)
        page.context.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_run_sh_warns_without_a_database_url_and_stops_every_process(tmp_path, data_root):
    run_dir = tmp_path / "run"
    log = tmp_path / "run.log"
    env = {"DETOX_DATA_DIR": str(data_root), "DETOX_WARMUP": "0", "DETOX_ORGANIZER_PASSWORD": ""}
    env_clean = {k: v for k, v in os.environ.items() if k != "DETOX_DB_URL"}
    proxy, first = free_port(), free_block(2)
    proc = subprocess.Popen(["bash", str(PROJECT_ROOT / "deploy" / "run.sh")], cwd=PROJECT_ROOT,
                            env={**env_clean, **env, "DETOX_PROCESSES": "2", "DETOX_PROXY_PORT": str(proxy),
                                 "DETOX_FIRST_APP_PORT": str(first), "DETOX_RUN_DIR": str(run_dir),
                                 "DETOX_PYTHON": sys.executable, "NGINX": NGINX},
                            stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_up(f"http://127.0.0.1:{proxy}", proc, log)
        pids = [int((run_dir / f"app-{k}.pid").read_text()) for k in (1, 2)]
        nginx = int((run_dir / "nginx.pid").read_text())
    finally:
        stop_run_sh(proc)
    out = log.read_text()
    assert "no DETOX_DB_URL" in out and "PostgreSQL" in out and "the app is open" in out
    assert proc.returncode == 0
    deadline = time.monotonic() + 30  # run.sh has stopped them: each is gone (reaped) in a moment
    while (alive := [pid for pid in [*pids, nginx] if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive, f"still running after run.sh stopped: {alive}"
    for port in (proxy, first, first + 1):
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0


def test_run_sh_refuses_a_port_in_use_before_starting_anything(tmp_path, data_root):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(["bash", str(PROJECT_ROOT / "deploy" / "run.sh")], cwd=PROJECT_ROOT, timeout=60, check=False,
                              capture_output=True, text=True,
                              env={**os.environ, "DETOX_PROCESSES": "2", "DETOX_PROXY_PORT": str(port),
                                   "DETOX_FIRST_APP_PORT": str(free_block(2)), "DETOX_RUN_DIR": str(tmp_path / "run"),
                                   "DETOX_PYTHON": sys.executable, "NGINX": NGINX, "DETOX_DATA_DIR": str(data_root)})
    assert done.returncode == 1
    assert f"port(s) in use: {port}" in done.stderr
    assert not (tmp_path / "run").exists()  # nothing started, nothing written
