"""``python -m detox_core serve [streamlit options]``: the app's server, its models warming
from the start.

Streamlit runs ``app.py`` only when a browser session connects, so a warm-up started by
the app would start with the first visitor, whose first screens would then wait for it
(:mod:`detox_core.metrics.warmup` says why). This launcher starts the warm-up's thread and then
Streamlit's own command line (``streamlit run app.py ...``) in the same process: the
sessions' scripts find the models it loads. ``streamlit run app.py`` keeps working; the
app then starts the warm-up on its first session.

The launcher serves ``app.py`` through :data:`detox_core.ui.app.asgi.app` (a ``st.App``, which
Streamlit runs with uvicorn, as for a script that defines one): the same app plus the route
that sets the organizer's sign-in cookie ``HttpOnly``. Streamlit decides between the two
ways of serving by looking for an app object in the script; the launcher tells it that
``app.py``'s is in :mod:`detox_core.ui.app.asgi`.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from streamlit import config as st_config
from streamlit.web import cli as streamlit_cli
from streamlit.web.server import app_discovery

from detox_core.metrics import warmup
from detox_core.config import app_root, serve_address_set, streamlit_config_file, streamlit_env_set
from detox_core.errors import DataMissingError
from detox_core.ui.app.internals import internals_problem
from detox_core.ui.app.settings_check import settings_problem
from detox_core.ui.app.warming import app_steps

APP = app_root() / "app.py"
#: uvicorn's import string of the app object (:mod:`detox_core.ui.app.asgi`).
ASGI_APP = "detox_core.ui.app.asgi:app"


def _serve_app_object() -> None:
    """Make ``streamlit run app.py`` serve :data:`ASGI_APP`: Streamlit's command reads
    from ``app_discovery.discover_asgi_app`` whether a script defines an app object."""
    found = app_discovery.discover_asgi_app
    if getattr(found, "detox_app", False):
        return

    def discover(path: Path, *args, **kwargs):
        # st.App does not listen on a Unix socket: there, the plain server (no cookie route).
        unix = str(st_config.get_option("server.address") or "").startswith("unix://")
        if Path(path).resolve() == APP.resolve() and not unix:
            return app_discovery.AppDiscoveryResult(is_asgi_app=True, app_name="app", import_string=ASGI_APP)
        return found(path, *args, **kwargs)

    discover.detox_app = True
    app_discovery.discover_asgi_app = discover


def config_flags(config_file: Path | None = None) -> list[str]:
    """The app's Streamlit configuration (``.streamlit/config.toml``) as ``streamlit run`` options
    (``--server.maxUploadSize 25``, ...): Streamlit reads that file only from the folder it is
    started in, and an installed copy is started from anywhere. Options given on the command line
    after these win (click keeps an option's last value), and so does an option's own
    ``STREAMLIT_*`` variable (such an option is not passed)."""
    path = config_file or streamlit_config_file()
    try:
        sections = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    flags: list[str] = []
    for section, values in sections.items():
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if isinstance(value, dict) or streamlit_env_set(section, key):
                continue  # a nested table (none in the app's file); an option set by Streamlit's own variable
            for item in value if isinstance(value, list) else [value]:  # a list: the option repeated
                flags += [f"--{section}.{key}", str(item).lower() if isinstance(item, bool) else str(item)]
    return flags


def default_flags() -> list[str]:
    """What ``detox serve`` does unless told otherwise: answer this machine only (Streamlit's own
    default is every address), as ``make run`` does; ``--server.address 0.0.0.0`` (or
    ``STREAMLIT_SERVER_ADDRESS``) opens it to others: set an organizer password first."""
    return [] if serve_address_set() else ["--server.address", "127.0.0.1"]


def serve(streamlit_args: Sequence[str] = ()) -> int:
    """Start the warm-up, then serve the app with ``streamlit run app.py *streamlit_args``
    until the server stops (Ctrl+C, SIGTERM). Returns Streamlit's exit status.

    The same app from a checkout (its top-level ``app.py`` and ``pages/``) and from an installed
    copy (``pip install``: the package's copy of them, :data:`detox_core.config.INSTALLED_APP`),
    with the app's Streamlit configuration whatever folder it is started in.

    Raises:
        DataMissingError: no ``app.py`` where the package expects it (a broken install).
    """
    if not APP.is_file():
        raise DataMissingError(
            f"the app's pages are missing (no {APP}): reinstall the package (`pip install --force-reinstall "
            "detox-dashboard`), or serve the app from a checkout of the project (`make run`)")
    if problem := settings_problem():  # a broken secrets file would otherwise open every page
        print(f"detox serve: the access settings cannot be read, so the app does not start: {problem}",
              file=sys.stderr)
        return 2
    if problem := internals_problem():  # the visitor limits would silently do nothing
        print(f"detox serve: {problem}", file=sys.stderr)
        return 2
    _serve_app_object()
    warmup.start(app_steps=app_steps(wait_for_server=True))
    try:
        # Streamlit's click group: it parses the options as `streamlit run` does, installs its
        # own signal handlers and blocks until the server stops.
        streamlit_cli.main(["run", str(APP), *config_flags(), *default_flags(), *streamlit_args], prog_name="streamlit",
                           standalone_mode=True)
    except SystemExit as done:  # click's standalone mode ends with sys.exit
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
