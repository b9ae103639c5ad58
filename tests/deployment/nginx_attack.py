"""One address against the shipped nginx configuration: slow POSTs to the app's beat route
(headers, one byte of the body, then silence), as the hostile visitor's report sent 4,000
of them, while a visitor from another address loads the page. Used by
``tests/deployment/test_nginx_limits.py`` and ``benchmarks/bench_nginx_slow_clients.py``."""

from __future__ import annotations

import http.server
import random
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from detox_core.deployment import deploy

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
ATTACKER, VISITOR = "127.0.0.2", "127.0.0.1"  # two addresses of this machine's loopback


class _Server(http.server.ThreadingHTTPServer):
    request_queue_size = 4096  # as many waiting connections as nginx may open
    daemon_threads = True


class _App(http.server.BaseHTTPRequestHandler):
    """Stands for an app process: pages answer at once, a beat reads its whole body."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        self._answer(200, b"<html>the app</html>")

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._answer(204, b"")

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        return s.getsockname()[1]


@contextmanager
def proxy(run_dir: Path, limits: bool = True, workers: int | str = "auto"):
    """nginx with the configuration ``detox deploy-nginx --run-dir`` writes (one app process,
    a stand-in), listening on a free port of 127.0.0.1 (which both addresses reach); yields it."""
    app = _Server(("127.0.0.1", free_port()), _App)
    app.handle_error = lambda request, address: None  # a request nginx cut off midway
    threading.Thread(target=app.serve_forever, daemon=True).start()
    port = free_port()
    conf = deploy.write_configs(run_dir, 1, app.server_address[1], f"127.0.0.1:{port}", workers=workers, limits=limits)
    nginx = subprocess.Popen([NGINX, "-p", str(run_dir), "-c", str(conf), "-e", "stderr", "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while page_time(port) is None:
            if nginx.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not start: {nginx.stderr.read().decode(errors='replace')[-2000:]}")
            time.sleep(0.1)
        yield port
    finally:
        nginx.terminate()
        nginx.wait(timeout=20)
        app.shutdown()


def page_time(port: int, timeout: float = 30) -> float | None:
    """Seconds the visitor's page took (a 200 from the app), None when it did not come."""
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(f"http://{VISITOR}:{port}/", timeout=timeout) as r:
            return time.perf_counter() - t0 if r.status == 200 and b"the app" in r.read() else None
    except OSError:
        return None


@dataclass
class Attack:
    sockets: list[socket.socket]
    refused: int  # answered 429 at once

    def still_open(self) -> int:
        """Connections of the attack that nginx has not closed."""
        n = 0
        for s in self.sockets:
            s.settimeout(0.01)
            try:
                s.recv(1 << 16)  # b"" (closed) or nginx's last answer (408): not held
            except (TimeoutError, BlockingIOError):
                n += 1  # nothing came: still held
            except OSError:
                pass
        return n

    def close(self) -> None:
        for s in self.sockets:
            s.close()


def _source_ports():
    """Source ports below the system's ephemeral range (32768 up), so that thousands of
    attacking sockets never take a port another test has just picked for its server."""
    start = random.randrange(10_000, 20_000)
    yield from range(start, 32_000)


def slow_posts(port: int, count: int) -> Attack:
    """``count`` POSTs to ``/_detox/beat`` from :data:`ATTACKER`, each sending its headers and
    one byte of a 1,000-byte body, then pausing."""
    held, refused = [], 0
    ports = _source_ports()
    for _ in range(count):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        for source in ports:
            try:
                s.bind((ATTACKER, source))
                break
            except OSError:
                continue
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"POST /_detox/beat HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
                      b"Content-Length: 1000\r\n\r\nx")
        except OSError:
            s.close()
            continue
        held.append(s)
    time.sleep(1)  # what nginx refuses, it answers at once
    kept = []
    for s in held:
        s.settimeout(0.05)
        try:
            got = s.recv(1 << 16)
        except (TimeoutError, BlockingIOError):
            kept.append(s)
            continue
        except OSError:
            got = b""
        refused += got.startswith(b"HTTP/1.1 429")
        s.close()
    return Attack(kept, refused)
