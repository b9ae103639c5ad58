"""The deployment files in deploy/ agree with each other and with the code, checked
without Docker, systemd or nginx: the compose file's app services and nginx's site for
them, the systemd units and the shipped nginx site, the environment file's variables and
what the code reads, the image's entrypoint and the Makefile's data step."""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from detox_core.deployment import deploy
from detox_core.config import PROJECT_ROOT

DEPLOY = PROJECT_ROOT / "deploy"
COMPOSE = DEPLOY / "compose.yaml"
COMPOSE_SITE = DEPLOY / "nginx" / "compose.conf"
SHIPPED_SITE = DEPLOY / "nginx" / "detox-dashboard.conf"
SERVICE = DEPLOY / "systemd" / "detox-dashboard@.service"
TARGET = DEPLOY / "systemd" / "detox-dashboard.target"
ENV_EXAMPLE = DEPLOY / "env.example"
DOCKERFILE = DEPLOY / "Dockerfile"
ENTRYPOINT = DEPLOY / "docker-entrypoint.sh"
APPS = ("app1", "app2", "app3")


@pytest.fixture(scope="module")
def compose() -> dict:
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed: the compose file cannot be parsed here")
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def _app_port(service: dict) -> str:
    return str(service["environment"]["PORT"])


def _unit(path: Path) -> dict[str, list[str]]:
    """A unit file's settings: key -> its values, in order (comments skipped)."""
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, value = line.split("=", 1)
        out.setdefault(key.strip(), []).append(value.strip())
    return out


def _env_names() -> list[str]:
    """Every variable env.example names, set or commented out."""
    return re.findall(r"^#?([A-Z][A-Z0-9_]*)=", ENV_EXAMPLE.read_text(encoding="utf-8"), flags=re.MULTILINE)


def _upstream_ports(site: str) -> list[int]:
    block = re.search(r"upstream detox_any \{(.*?)\}", site, flags=re.DOTALL)
    assert block, "no upstream detox_any in the site"
    return [int(p) for p in re.findall(r"server \S+:(\d+) ", block.group(1))]


# --- docker compose --------------------------------------------------------------------

def test_compose_apps_listen_on_distinct_ports_that_nginx_proxies_to(compose):
    services = compose["services"]
    assert set(APPS) <= set(services)
    ports = [_app_port(services[name]) for name in APPS]
    assert len(set(ports)) == len(ports), f"the app services share a port: {ports}"
    site = COMPOSE_SITE.read_text(encoding="utf-8")
    for name, port in zip(APPS, ports):
        assert [str(p) for p in services[name]["expose"]] == [port]
        # nginx's cookie map tells the processes apart by the port that answered.
        assert f"server {name}:{port} max_fails=1" in site
        assert f"~:{port}$" in site


def test_compose_site_is_what_deploy_nginx_writes_for_the_apps(compose):
    servers = [f"{name}:{_app_port(compose['services'][name])}" for name in APPS]
    assert COMPOSE_SITE.read_text(encoding="utf-8") == deploy.site_config(servers=servers, listen="80"), (
        "deploy/nginx/compose.conf is out of date: python -m detox_core deploy-nginx "
        f"--servers {','.join(servers)} --listen 80 > deploy/nginx/compose.conf")


def test_compose_apps_share_secrets_database_and_data(compose):
    services = compose["services"]
    apps = [services[name] for name in APPS]
    # The secrets come from one environment file for all; none is set per service.
    assert all(app["env_file"] == apps[0]["env_file"] for app in apps)
    for app in apps:
        for secret in ("STREAMLIT_SERVER_COOKIE_SECRET", "DETOX_SESSION_SECRET"):
            assert secret not in app["environment"]
    for key in ("DETOX_DB_URL", "DETOX_DATA_DIR", "DETOX_TRUSTED_PROXIES"):
        values = {app["environment"][key] for app in apps}
        assert len(values) == 1, f"{key} differs between the app services: {values}"
    assert apps[0]["environment"]["DETOX_DB_URL"].startswith("postgresql+psycopg://")
    assert "@postgres:" in apps[0]["environment"]["DETOX_DB_URL"]
    assert all(app["depends_on"]["postgres"]["condition"] == "service_healthy" for app in apps)
    data = apps[0]["environment"]["DETOX_DATA_DIR"]
    volumes = {tuple(app["volumes"]) for app in apps}
    assert len(volumes) == 1 and any(v.endswith(f":{data}") for v in volumes.pop())
    assert all(app["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"} for app in apps)
    assert (COMPOSE.parent / apps[0]["build"]["context"] / apps[0]["build"]["dockerfile"]).resolve() == DOCKERFILE


def test_compose_apps_believe_only_nginx(compose):
    services = compose["services"]
    subnet = ipaddress.ip_network(compose["networks"]["detox"]["ipam"]["config"][0]["subnet"])
    dynamic = ipaddress.ip_network(compose["networks"]["detox"]["ipam"]["config"][0]["ip_range"])
    nginx_ip = ipaddress.ip_address(services["nginx"]["networks"]["detox"]["ipv4_address"])
    fixed = [nginx_ip] + [ipaddress.ip_address(services[n]["networks"]["detox"]["ipv4_address"]) for n in APPS]
    assert len(set(fixed)) == len(fixed)
    assert all(ip in subnet and ip not in dynamic for ip in fixed)
    for name in APPS:
        trusted = services[name]["environment"]["DETOX_TRUSTED_PROXIES"].split(",")
        assert [ipaddress.ip_address(t.strip()) for t in trusted] == [nginx_ip]


def test_compose_nginx_serves_the_site_after_the_apps(compose):
    nginx = compose["services"]["nginx"]
    assert "./nginx/compose.conf:/etc/nginx/conf.d/default.conf:ro" in nginx["volumes"]
    assert (COMPOSE.parent / "nginx" / "compose.conf").resolve() == COMPOSE_SITE
    assert set(APPS) <= set(nginx["depends_on"])
    assert any(str(p).endswith(":80") for p in nginx["ports"])
    postgres = compose["services"]["postgres"]
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])


# --- systemd ---------------------------------------------------------------------------

def test_service_runs_one_app_process_on_the_instance_port():
    unit = _unit(SERVICE)
    (start,) = unit["ExecStart"]
    assert start.startswith("/opt/detox-dashboard/.venv/bin/python -m detox_core serve ")
    assert "--server.port %i" in start and "--server.address 127.0.0.1" in start
    assert "--server.headless true" in start
    assert unit["WorkingDirectory"] == ["/opt/detox-dashboard"]
    assert unit["User"] == ["detox"]
    assert unit["EnvironmentFile"] == ["/etc/detox-dashboard/env"]
    assert unit["Restart"] == ["always"] and unit["RestartSec"] == ["2"]
    assert unit["PartOf"] == ["detox-dashboard.target"]
    assert unit["ProtectSystem"] == ["strict"] and unit["NoNewPrivileges"] == ["true"]
    # The one folder the processes write is the data folder env.example names.
    data_dir = re.search(r"^#?DETOX_DATA_DIR=(.*)$", ENV_EXAMPLE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert unit["ReadWritePaths"] == [data_dir.group(1)] == [f"{unit['WorkingDirectory'][0]}/data"]


def test_target_wants_the_ports_the_shipped_nginx_site_proxies_to():
    site = SHIPPED_SITE.read_text(encoding="utf-8")
    assert site == deploy.site_config(**deploy.SHIPPED), (
        "deploy/nginx/detox-dashboard.conf is out of date: python -m detox_core deploy-nginx "
        "> deploy/nginx/detox-dashboard.conf")
    wants = " ".join(_unit(TARGET)["Wants"]).split()
    ports = [int(re.fullmatch(r"detox-dashboard@(\d+)\.service", w).group(1)) for w in wants]
    assert ports == _upstream_ports(site)
    assert _unit(TARGET)["WantedBy"] == ["multi-user.target"]


# --- the environment file --------------------------------------------------------------

def test_every_variable_of_env_example_is_read():
    names = _env_names()
    assert {"DETOX_DB_URL", "DETOX_SESSION_SECRET", "STREAMLIT_SERVER_COOKIE_SECRET",
            "DETOX_TRUSTED_PROXIES", "DETOX_ORGANIZER_PASSWORD"} <= set(names)
    source = "\n".join(p.read_text(encoding="utf-8") for p in (PROJECT_ROOT / "detox_core").rglob("*.py"))
    from streamlit import config as st_config

    streamlit_vars = {opt.env_var for opt in st_config._config_options_template.values()}
    unread = [n for n in names
              if not (n in streamlit_vars if n.startswith("STREAMLIT_") else re.search(rf"\b{n}\b", source))]
    assert not unread, f"deploy/env.example names variables nothing reads: {unread}"
    assert len(names) == len(set(names)), "a variable is named twice"


def test_env_example_is_read_alike_by_systemd_and_docker():
    for number, line in enumerate(ENV_EXAMPLE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", key), f"line {number}: {line!r}"
        # No quotes, no comment after a value: systemd and Docker read them differently.
        assert not re.search(r"[\"']|\s#", value), f"line {number}: {line!r}"


# --- the image -------------------------------------------------------------------------

def test_entrypoint_runs_the_makefiles_data_step_then_the_server():
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    data_step = re.search(r"^data:.*?\n((?:\t.*\n)+)", makefile, flags=re.MULTILINE).group(1)
    commands = re.findall(r"-m detox_core ([a-z-]+(?: --quiet)?)", data_step)
    assert commands == ["fetch-data --quiet"]  # it builds the lexicons; the embedded preset's heads ship
    script = ENTRYPOINT.read_text(encoding="utf-8")
    prepare = re.search(r"^prepare_data\(\) \{\n(.*?)^\}", script, flags=re.MULTILINE | re.DOTALL).group(1)
    assert re.findall(r"python -m detox_core ([a-z-]+(?: --quiet)?)", prepare) == commands
    assert 'python -m detox_core serve --server.port "$PORT" --server.address 0.0.0.0 --server.headless true' in script


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell here")
def test_entrypoint_is_valid_shell():
    subprocess.run(["sh", "-n", str(ENTRYPOINT)], check=True)


def test_dockerfile_installs_the_pinned_torch_and_checks_the_web_server():
    dockerfile = DOCKERFILE.read_text(encoding="utf-8")
    pin = re.search(r"^torch==(\S+)", (PROJECT_ROOT / "requirements.txt").read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert pin and f"--index-url https://download.pytorch.org/whl/cpu torch=={pin.group(1)}" in dockerfile
    assert "pip install -r requirements.txt" in dockerfile
    assert re.search(r"^HEALTHCHECK .*\n?.*/_stcore/health", dockerfile, flags=re.MULTILINE)
    assert re.search(r"^USER (?!root)\S+", dockerfile, flags=re.MULTILINE)
    entry = re.search(r'^ENTRYPOINT \["/bin/sh", "/app/(\S+)"\]', dockerfile, flags=re.MULTILINE)
    assert entry and (PROJECT_ROOT / entry.group(1)).resolve() == ENTRYPOINT
    ignored = {line.strip() for line in (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()}
    assert {".git", ".venv", ".venv-comet", "data", ".streamlit/secrets.toml"} <= ignored


def test_make_run_answers_this_machine_only_and_builds_no_test_environment():
    """`make run` listens on 127.0.0.1 unless told otherwise (no password is set by it), and
    does not build the test-only xCOMET environment (`make -n` prints what it would run)."""
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^ADDRESS \?= 127\.0\.0\.1$", makefile, flags=re.MULTILINE)
    run = re.search(r"^run:(.*)\n((?:\t.*\n)+)", makefile, flags=re.MULTILINE)
    assert "--server.address $(ADDRESS)" in run.group(2)
    if shutil.which("make") is None:
        pytest.skip("no make here")
    planned = subprocess.run(["make", "-n", "-B", "run"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                             check=True).stdout
    assert "--server.address 127.0.0.1" in planned
    assert ".venv-comet" not in planned and "tests/comet/requirements.txt" not in planned
    assert "--server.address 0.0.0.0" in subprocess.run(["make", "-n", "run", "ADDRESS=0.0.0.0"], cwd=PROJECT_ROOT,
                                                        capture_output=True, text=True, check=True).stdout


def test_the_counts_env_example_names_are_the_apps_defaults():
    """A number env.example gives for a count setting (set or commented out) is the default
    the app uses (it said 40 tabs per address where the app kept 20)."""
    from detox_core import config

    defaults = {config.MAX_SESSIONS_ENV: config.DEFAULT_MAX_SESSIONS_PER_ADDRESS,
                config.MAX_PROCESS_SESSIONS_ENV: config.DEFAULT_MAX_SESSIONS,
                config.RUNS_PER_ADDRESS_ENV: config.DEFAULT_RUNS_PER_ADDRESS,
                config.HASHING_NICE_ENV: config.DEFAULT_HASHING_NICE,
                config.CACHE_MB_ENV: config.DEFAULT_CACHE_MB,
                config.UPLOADS_MB_ENV: config.DEFAULT_UPLOADS_MB}
    given = dict(re.findall(r"^#?(DETOX_[A-Z0-9_]+)=(\d+)$", ENV_EXAMPLE.read_text(encoding="utf-8"),
                            flags=re.MULTILINE))
    named = {name: int(given[name]) for name in defaults if name in given}
    assert len(named) >= 4, named
    assert named == {name: defaults[name] for name in named}
