"""The reverse proxy of a shared deployment: nginx's configuration for N app processes.

One Streamlit session lives in one app process (its WebSocket, its uploads, its page
state), so the proxy keeps a browser on one process: the first request of a browser goes
to the process with the fewest connections, and every response sets the cookie
``detox_process`` to the number of the process that answered; later requests with that
cookie go to that process. (The page reads the cookie, which holds nothing but that
number: a change tells it that its process stopped, see :mod:`detox_core.ui.app.reconnect`.) When it does not answer (stopped, restarting), nginx passes the
request to the next process and the cookie follows, so the browser's reconnect, its
uploads and its next page all land on the same new process (the app then says that the
tab reconnected). Stickiness by address (``ip_hash``) would put a whole lab behind one
NAT on one process, and every browser of a test machine too.

Also: WebSocket upgrades, long-lived connections, request bodies as large as the app's
upload limit (``server.maxUploadSize`` in ``.streamlit/config.toml``, plus the multipart
envelope), ``X-Forwarded-For`` for the app's sign-in throttle (believed from the
addresses in ``DETOX_TRUSTED_PROXIES``, by default the local machine, where this proxy
runs), and ``Host`` with its port (the app's WebSocket checks the page's origin).

:func:`site_config` is the part a system nginx includes (``deploy/nginx/detox-dashboard.conf``
is its output for three processes); :func:`standalone_config` wraps it in a whole nginx
configuration that runs without root in a folder of its own (``deploy/run.sh``).
"""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

from detox_core import config
from detox_core.config import streamlit_config_file

#: The cookie that keeps a browser on its app process.
COOKIE = "detox_process"
#: Megabytes nginx accepts in a request body beyond the app's upload limit (the multipart
#: envelope of an upload: boundaries and headers).
BODY_MARGIN_MB = 1

#: Connections one client address may hold beyond its app sessions' WebSockets (a browser's
#: page loads and uploads: about six at a time per browser, several browsers behind a NAT).
SPARE_CONNECTIONS = 40
#: Seconds a client may pause while sending a request's headers or body (between two reads,
#: not for the whole request: a slow upload that keeps sending is not cut).
CLIENT_PAUSE_S = 10
#: Requests a second one address may send on average, and the burst above that (a page
#: load fetches about 40 files: a lab of 30 behind one address opening the app together
#: sends about 1,200 at once).
REQUESTS_PER_S, REQUEST_BURST = 50, 1500
#: The same for the app's own routes (``/_detox/``: a tab's beat every 20 s, a sign-in's
#: ticket once).
ROUTE_REQUESTS_PER_S, ROUTE_BURST = 10, 120


def upload_limit_mb(config_file: Path | None = None) -> int:
    """The app's ``server.maxUploadSize`` in MB (Streamlit's default, 200, when unset)."""
    config_file = config_file or streamlit_config_file()
    try:
        return int(tomllib.loads(config_file.read_text(encoding="utf-8")).get("server", {}).get("maxUploadSize", 200))
    except (OSError, tomllib.TOMLDecodeError, TypeError, ValueError):
        return 200


def _ports(processes: int, first_port: int) -> list[int]:
    if not 1 <= processes <= 64:
        raise ValueError(f"the number of app processes must be between 1 and 64, not {processes}")
    if not 1024 <= first_port <= 65535 - processes:
        raise ValueError(f"app ports must lie between 1024 and 65535 (first port {first_port})")
    return [first_port + k for k in range(processes)]


def connections_per_address(processes: int) -> int:
    """Connections nginx lets one client address hold: the app's sessions per address in
    every process (``DETOX_MAX_SESSIONS_PER_ADDRESS``, each a WebSocket) and
    :data:`SPARE_CONNECTIONS`; 1,000 where the app sets no limit."""
    per_process = config.max_sessions_per_address()
    return 1000 if per_process == 0 else per_process * processes + SPARE_CONNECTIONS


def site_config(processes: int = 3, first_port: int = 8601, listen: str = "80", host: str = "127.0.0.1",
                server_name: str = "_", body_mb: int | None = None, servers: list[str] | None = None,
                limits: bool = True) -> str:
    """nginx's ``http``-level configuration (maps, upstreams, one ``server``) for app
    processes on ``host:first_port`` .. ``host:first_port + processes - 1`` (or at the
    ``host:port`` addresses of ``servers``: containers, other machines), listening on
    ``listen`` (a port, or ``address:port``). ``limits``: the per-address limits and
    slow-client timeouts (:func:`_limit_lines`); off only to measure what they do."""
    if servers:
        if not 1 <= len(servers) <= 64:
            raise ValueError(f"the number of app processes must be between 1 and 64, not {len(servers)}")
        bad = [a for a in servers if not re.fullmatch(r"[\w.-]+:\d{1,5}", a)]
        if bad:
            raise ValueError(f"an app process's address must be host:port, not {bad[0]!r}")
        ports = [a.rsplit(":", 1)[1] for a in servers]
        named = [a for a in servers if not re.fullmatch(r"[\d.]+:\d+", a)]
        if len(set(ports)) < len(ports) and named:
            # nginx reports a name as the address it resolved to: only ports or addresses tell them apart.
            raise ValueError(f"give each app process its own port when they are named by host name ({named[0]})")
        addresses = list(servers)
    else:
        if not re.fullmatch(r"[\w.-]+", host):
            raise ValueError("host may hold letters, digits, dots and dashes only")
        addresses = [f"{host}:{port}" for port in _ports(processes, first_port)]
    if not re.fullmatch(r"(\[[0-9a-fA-F:]+\]:|[\w.-]+:)?\d{1,5}", listen):
        raise ValueError(f"listen must be a port or address:port, not {listen!r}")
    if not re.fullmatch(r"[\w.* -]+", server_name):
        raise ValueError("server_name may hold letters, digits, dots, dashes, spaces and stars only")
    body = (upload_limit_mb() if body_mb is None else body_mb) + BODY_MARGIN_MB
    n = len(addresses)
    addr = dict(enumerate(addresses, 1))
    lines = [
        (f"# detox-dashboard behind nginx: {n} app process{'es' if n > 1 else ''} "
         f"(python -m detox_core serve) at {', '.join(addresses)}."),
        "# Written by `python -m detox_core deploy-nginx`; detox_core/deployment/deploy.py says why each part is there.",
        "",
        "# WebSocket upgrades pass through; other requests keep an ordinary connection.",
        "map $http_upgrade $detox_connection {",
        "    default upgrade;",
        "    ''      close;",
        "}",
        "",
        f"# A browser's process: the number in its {COOKIE} cookie, else the least busy one.",
        f"map $cookie_{COOKIE} $detox_upstream {{",
        "    default detox_any;",
        *[f"    {k} detox_p{k};" for k in addr],
        "}",
        "",
        "# The number of the process that answered (the last address tried), and its cookie;",
        "# none on what nginx answers itself (a refused upload, no process up): the browser keeps its own.",
        "map $upstream_addr $detox_served_by {",
        "    default '';",
        *[f"    ~{pattern}$ {k};" for k, pattern in _answered_patterns(addr).items()],
        "}",
        "map $detox_served_by $detox_cookie {",
        "    '' '';",
        f'    default "{COOKIE}=$detox_served_by; Path=/; SameSite=Lax";',
        "}",
        "",
        "upstream detox_any {",
        "    least_conn;",
        *[f"    server {a} max_fails=1 fail_timeout=5s;" for a in addr.values()],
        "}",
    ]
    for k, own in addr.items():
        # The others are backups, each process's in another order, so that the browsers of
        # a stopped process spread over the rest.
        others = [addr[(k - 1 + step) % n + 1] for step in range(1, n)]
        lines += ["", f"upstream detox_p{k} {{", f"    server {own} max_fails=1 fail_timeout=5s;",
                  *[f"    server {a} backup;" for a in others], "}"]
    zones, server_limits, route_limits = _limit_lines(n) if limits else ([], [], [])
    proxy = [
        "        proxy_pass http://$detox_upstream;",
        "        proxy_http_version 1.1;",
        "        proxy_set_header Upgrade $http_upgrade;",
        "        proxy_set_header Connection $detox_connection;",
        "        proxy_set_header Host $http_host;",
        "        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
        "        proxy_set_header X-Forwarded-Proto $scheme;",
        "        # A session's WebSocket stays open for hours; uploads stream to the app.",
        "        proxy_read_timeout 1d;",
        "        proxy_send_timeout 1d;",
        "        proxy_buffering off;",
        "        proxy_request_buffering off;",
        "        # A process that refuses the connection (stopped, restarting): the next one.",
        "        proxy_connect_timeout 5s;",
        "        proxy_next_upstream error timeout http_502 http_503;",
        "        add_header Set-Cookie $detox_cookie always;",
        "        add_header X-Detox-Process $detox_served_by always;",
    ]
    lines += [
        *zones,
        "",
        "server {",
        f"    listen {listen};",
        f"    server_name {server_name};",
        "",
        f"    # The app takes uploads up to {body - BODY_MARGIN_MB} MB (server.maxUploadSize).",
        f"    client_max_body_size {body}m;",
        *server_limits,
        "",
        "    location / {",
        *proxy,
        "    }",
        *(["", "    # The app's own routes (a tab's beat, a sign-in's ticket): small, a few a minute per tab.",
           "    location /_detox/ {", *route_limits, *proxy, "    }"] if route_limits else []),
        "}",
        "",
    ]
    return "\n".join(lines)


def _limit_lines(processes: int) -> tuple[list[str], list[str], list[str]]:
    """(zones at the ``http`` level, the server's limits, the app routes' limits).

    One address can no longer hold the proxy: 4,000 POSTs sending a byte every 20 s held
    about 1,930 of nginx's connections and a new visitor's page never drew. Now a client that
    pauses :data:`CLIENT_PAUSE_S` seconds while sending headers or a body is cut off, one
    address holds at most :func:`connections_per_address` connections, and its requests are
    rate-limited; what is refused gets 429 at once. Keys are the client's address as nginx
    sees it (each IPv6 address on its own: nginx cannot group by /64 as the app does)."""
    conns = connections_per_address(processes)
    zones = [
        "",
        "# Per client address: open connections, and the request rate (detox_core/deployment/deploy.py: _limit_lines).",
        "limit_conn_zone $binary_remote_addr zone=detox_conn:10m;",
        f"limit_req_zone $binary_remote_addr zone=detox_req:10m rate={REQUESTS_PER_S}r/s;",
        f"limit_req_zone $binary_remote_addr zone=detox_routes:10m rate={ROUTE_REQUESTS_PER_S}r/s;",
    ]
    server = [
        "",
        f"    # A client that pauses {CLIENT_PAUSE_S} s while sending a request is cut off (slow-POST attacks);",
        f"    # one address holds at most {conns} connections (the app's sessions per address in every process",
        f"    # and {SPARE_CONNECTIONS} for page loads) and sends {REQUESTS_PER_S} requests a second (bursts of "
        f"{REQUEST_BURST}).",
        f"    client_header_timeout {CLIENT_PAUSE_S}s;",
        f"    client_body_timeout {CLIENT_PAUSE_S}s;",
        "    keepalive_timeout 30s;",
        f"    limit_conn detox_conn {conns};",
        f"    limit_req zone=detox_req burst={REQUEST_BURST} nodelay;",
        "    limit_conn_status 429;",
        "    limit_req_status 429;",
    ]
    routes = [
        f"        limit_req zone=detox_req burst={REQUEST_BURST} nodelay;",
        f"        limit_req zone=detox_routes burst={ROUTE_BURST} nodelay;",
    ]
    return zones, server, routes


def _answered_patterns(addr: dict[int, str]) -> dict[int, str]:
    """Per process, a pattern of its address as nginx reports it in ``$upstream_addr``: by
    port when the ports differ (a container's name is reported as its IP address)."""
    ports = [a.rsplit(":", 1)[1] for a in addr.values()]
    if len(set(ports)) == len(ports):
        return {k: ":" + a.rsplit(":", 1)[1] for k, a in addr.items()}
    return {k: re.escape(a) for k, a in addr.items()}


#: Connections each nginx worker handles (each proxied request holds two: the client's and
#: the app's).
WORKER_CONNECTIONS = 4096


def standalone_config(run_dir: Path, site: str, workers: int | str = "auto") -> str:
    """A whole nginx configuration around ``site`` that runs in the foreground without
    root: pid file, logs and temporary files under ``run_dir``; ``workers`` nginx worker
    processes ("auto": one per CPU core)."""
    if workers != "auto" and not (isinstance(workers, int) and 1 <= workers <= 64):
        raise ValueError(f"nginx workers must be 'auto' or 1 to 64, not {workers!r}")
    run = Path(run_dir).resolve()
    if any(c in str(run) for c in ';{}"\'\n#$\\'):
        raise ValueError(f"the run folder's path may not hold ; {{ }} quotes # $ or \\: {run}")
    temp = [f'    {kind}_temp_path "{run / "tmp" / kind}";' for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")]
    return "\n".join([
        "# nginx for deploy/run.sh: in the foreground, no root needed, everything under this folder.",
        f"worker_processes {workers};",
        f"worker_rlimit_nofile {2 * WORKER_CONNECTIONS + 64};",
        f'pid "{run / "nginx.pid"}";',
        f'error_log "{run / "nginx-error.log"}" warn;',
        "",
        "events {",
        f"    worker_connections {WORKER_CONNECTIONS};",
        "}",
        "",
        "http {",
        f'    access_log "{run / "nginx-access.log"}";',
        *temp,
        "",
        *[("    " + line) if line else "" for line in site.splitlines()],
        "}",
        "",
    ])


def write_configs(run_dir: Path, processes: int, first_port: int, listen: str,
                  workers: int | str = "auto", limits: bool = True) -> Path:
    """Write ``run_dir/nginx.conf`` (and the temporary folders it names); returns its path."""
    run = Path(run_dir)
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (run / "tmp" / kind).mkdir(parents=True, exist_ok=True)
    conf = run / "nginx.conf"
    conf.write_text(standalone_config(run, site_config(processes, first_port, listen, limits=limits), workers),
                    encoding="utf-8")
    return conf


#: The site file shipped as ``deploy/nginx/detox-dashboard.conf``: three processes on
#: 8601-8603 (``deploy/systemd/``), nginx on port 80.
SHIPPED = {"processes": 3, "first_port": 8601, "listen": "80"}
