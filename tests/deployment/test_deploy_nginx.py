"""nginx's configuration for several app processes (detox_core.deployment.deploy): what it routes,
that nginx itself accepts it, and that bad settings are refused before nginx sees them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from detox_core.deployment import deploy
from detox_core.cli import main
from detox_core.config import PROJECT_ROOT

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def test_each_process_has_its_cookie_its_backups_and_the_least_busy_default():
    site = deploy.site_config(3, 9101, "8080")
    assert re.search(r"map \$cookie_detox_process \$detox_upstream \{\s*default detox_any;\s*1 detox_p1;\s*"
                     r"2 detox_p2;\s*3 detox_p3;\s*\}", site)
    any_block = site[site.index("upstream detox_any"):site.index("}", site.index("upstream detox_any"))]
    assert "least_conn" in any_block and all(f"127.0.0.1:{p}" in any_block for p in (9101, 9102, 9103))
    # A stopped process's browsers go to the others, each process's in another order.
    p1 = site[site.index("upstream detox_p1"):site.index("}", site.index("upstream detox_p1"))]
    p2 = site[site.index("upstream detox_p2"):site.index("}", site.index("upstream detox_p2"))]
    assert re.findall(r"server (\S+) backup", p1) == ["127.0.0.1:9102", "127.0.0.1:9103"]
    assert re.findall(r"server (\S+) backup", p2) == ["127.0.0.1:9103", "127.0.0.1:9101"]
    # The cookie names the process that answered, so it follows a failover.
    assert "~:9102$ 2;" in site and 'default "detox_process=$detox_served_by; Path=/; SameSite=Lax";' in site
    # What nginx answers itself (413, no process up) sets no cookie: the browser keeps its own.
    assert re.search(r"map \$detox_served_by \$detox_cookie \{\s*'' '';", site)
    assert "add_header Set-Cookie $detox_cookie always;" in site
    for needed in ("proxy_set_header Upgrade $http_upgrade", "proxy_set_header Connection $detox_connection",
                   "proxy_set_header Host $http_host", "X-Forwarded-For $proxy_add_x_forwarded_for",
                   "proxy_read_timeout 1d", "proxy_next_upstream error timeout", "listen 8080;"):
        assert needed in site


def test_the_body_limit_follows_the_apps_upload_limit(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[server]\nmaxUploadSize = 7\n")
    assert deploy.upload_limit_mb(config) == 7
    assert deploy.upload_limit_mb(tmp_path / "missing.toml") == 200  # Streamlit's default
    limit = deploy.upload_limit_mb()
    assert f"client_max_body_size {limit + deploy.BODY_MARGIN_MB}m;" in deploy.site_config()


def test_container_addresses_are_told_apart_by_port_or_by_address():
    by_port = deploy.site_config(servers=["app1:8601", "app2:8602"], listen="80")
    assert "~:8601$ 1;" in by_port and "server app2:8602 max_fails=1" in by_port
    same_port = deploy.site_config(servers=["10.0.0.5:8501", "10.0.0.6:8501"], listen="80")
    assert r"~10\.0\.0\.6:8501$ 2;" in same_port
    # Names on one port: nginx reports the resolved address, which no pattern of the name matches.
    with pytest.raises(ValueError, match="its own port"):
        deploy.site_config(servers=["app1:8501", "app2:8501"], listen="80")


@pytest.mark.parametrize("kwargs, words", [
    ({"processes": 0}, "between 1 and 64"),
    ({"processes": 65}, "between 1 and 64"),
    ({"first_port": 80}, "between 1024 and 65535"),
    ({"listen": "80; include /etc/passwd"}, "listen must be"),
    ({"host": "a b"}, "host may hold"),
    ({"server_name": "x; }"}, "server_name may hold"),
    ({"servers": ["app1:8601;"]}, "must be host:port"),
])
def test_bad_settings_are_refused_with_the_reason(kwargs, words):
    with pytest.raises(ValueError, match=words):
        deploy.site_config(**kwargs)


def test_the_cli_writes_the_site_or_a_rootless_configuration(tmp_path, capsys):
    assert main(["deploy-nginx", "--processes", "2", "--first-port", "9201", "--listen", "9200"]) == 0
    assert capsys.readouterr().out == deploy.site_config(2, 9201, "9200")
    assert main(["deploy-nginx", "--servers", "app1:8601,app1:86o2"]) == 2
    assert "must be host:port" in capsys.readouterr().err
    assert main(["deploy-nginx", "--run-dir", str(tmp_path / "run"), "--listen", "9200"]) == 0
    conf = (tmp_path / "run" / "nginx.conf").read_text()
    assert f'pid "{(tmp_path / "run").resolve() / "nginx.pid"}";' in conf and "user " not in conf
    assert all((tmp_path / "run" / "tmp" / kind).is_dir() for kind in ("client_body", "proxy"))


def test_a_run_folder_that_would_break_the_configuration_is_refused(tmp_path):
    with pytest.raises(ValueError, match="may not hold"):
        deploy.standalone_config(tmp_path / "a;b", deploy.site_config())
    # A space is fine: the paths are quoted.
    conf = deploy.standalone_config(tmp_path / "a b", deploy.site_config())
    assert f'pid "{(tmp_path / "a b").resolve() / "nginx.pid"}";' in conf


def test_the_shipped_site_is_what_the_command_writes():
    shipped = (PROJECT_ROOT / "deploy" / "nginx" / "detox-dashboard.conf").read_text(encoding="utf-8")
    assert shipped == deploy.site_config(**deploy.SHIPPED), (
        "deploy/nginx/detox-dashboard.conf is out of date: python -m detox_core deploy-nginx > "
        "deploy/nginx/detox-dashboard.conf")


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx)")
def test_nginx_accepts_the_configuration(tmp_path):
    conf = deploy.write_configs(tmp_path / "run dir", 4, 9301, "127.0.0.1:9300")
    done = subprocess.run([NGINX, "-t", "-p", str(tmp_path / "run dir"), "-c", str(conf), "-e", "stderr"],
                          check=False, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr
