"""The access settings read before anything is served: a file or value that cannot be read
stops the app with a message naming it, never opens it.

The organizer password decides who may see what (:mod:`detox_core.ui.app.auth`). Were a
broken ``.streamlit/secrets.toml`` (a missing quote) read as "no password", every page and
setting of a shared deployment would be open to whoever reaches it. So the secrets files
Streamlit reads (``secrets.files``: ``~/.streamlit/secrets.toml`` and the app's
``.streamlit/secrets.toml``) are parsed here first, and the access values checked:

- a file that is not TOML (its path, line and column), not UTF-8, or cannot be read;
- ``[access]`` / ``[annotation]`` that are not tables;
- ``organizer_password`` (either table, or ``$DETOX_ORGANIZER_PASSWORD``) that is not text or
  is shorter than :data:`MIN_ORGANIZER_CHARS` characters (a short one is guessed, whatever
  the sign-in throttle);
- ``public_pages`` that is not a list of the app's page ids, ``model_roots`` that is not a
  list of folders;
- ``$DETOX_TRUSTED_PROXIES`` or ``$DETOX_IPV6_PREFIX`` that cannot be read (who a client is).

``detox serve`` refuses to start on such a problem (exit status 2), ``deploy/run.sh`` before
starting any process, and every page draws only the message (a file broken while the server
runs).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from detox_core import config
from detox_core.errors import DetoxInputError
from detox_core.deployment.addresses import _networks
from detox_core.ui.app.page_ids import ORGANIZER_ONLY, PAGES

#: The shortest organizer password the app accepts.
MIN_ORGANIZER_CHARS = 12
#: The access values of the secrets files, by table.
_TABLES = ("access", "annotation")


class SettingsError(RuntimeError):
    """The access settings cannot be read, or are not safe to serve with."""


def secrets_files() -> list[Path]:
    """The secrets files Streamlit reads (its ``secrets.files`` option), in its order."""
    from streamlit import config as st_config  # noqa: PLC0415 - Streamlit's config only where it is asked for

    return [Path(f).expanduser() for f in st_config.get_option("secrets.files") or []]


def _line_of(text: str, key: str) -> int | None:
    for n, line in enumerate(text.splitlines(), 1):
        if re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", line):
            return n
    return None


def _where(path: Path, text: str, key: str) -> str:
    line = _line_of(text, key)
    return f"{path}, line {line}" if line else str(path)


def password_problem(value: Any, where: str) -> str | None:
    """Why ``value`` cannot be the organizer password (None when it can)."""
    if not isinstance(value, str):
        return f"{where}: organizer_password must be text in quotes, not {type(value).__name__}"
    if len(value.strip()) < MIN_ORGANIZER_CHARS:
        return (f"{where}: the organizer password has {len(value.strip())} characters; it needs at least "
                f"{MIN_ORGANIZER_CHARS} (a short one is guessed)")
    return None


def _file_problem(path: Path) -> str | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"{path} cannot be read ({err.strerror})"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        return f"{path}, line {line}: not UTF-8 text (byte {err.start})"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:  # its message ends "(at line L, column C)"
        return f"{path} is not valid TOML: {err}"
    for table in _TABLES:
        section = data.get(table)
        if section is None:
            continue
        if not isinstance(section, dict):
            return f"{_where(path, text, table)}: {table} must be a table ([{table}]), not {type(section).__name__}"
        if "organizer_password" in section:
            if problem := password_problem(section["organizer_password"], _where(path, text, "organizer_password")):
                return problem
    access = data.get("access") or {}
    pages = access.get("public_pages")
    if pages is not None:
        if not isinstance(pages, list) or not all(isinstance(p, str) for p in pages):
            return f"{_where(path, text, 'public_pages')}: public_pages must be a list of page ids in quotes"
        unknown = [p for p in pages if p not in PAGES or p in ORGANIZER_ONLY]
        if unknown:
            allowed = ", ".join(p for p in PAGES if p not in ORGANIZER_ONLY)
            return (f"{_where(path, text, 'public_pages')}: public_pages names {', '.join(map(repr, unknown))}, "
                    f"not a page a visitor may see (the pages: {allowed})")
    roots = access.get("model_roots")
    if roots is not None and (not isinstance(roots, list) or not all(isinstance(r, str) and r.strip() for r in roots)):
        return f"{_where(path, text, 'model_roots')}: model_roots must be a list of folders in quotes"
    return None


def settings_problem(files: list[Path] | None = None) -> str | None:
    """What keeps the access settings from being read safely, naming the file and line (or the
    variable); None when they can be. ``files``: the secrets files (default
    :func:`secrets_files`)."""
    for path in secrets_files() if files is None else files:
        if problem := _file_problem(path):
            return problem
    env = config.organizer_password()
    if env is not None and (problem := password_problem(env, f"${config.ORGANIZER_PASSWORD_ENV}")):
        return problem
    # Who a client is: the proxies believed, and the IPv6 network counted as one client.
    try:
        _networks(tuple(config.trusted_proxies()))
        config.ipv6_prefix()
        config.hashing_nice()
    except DetoxInputError as err:
        return str(err)
    return None


def check_settings(files: list[Path] | None = None) -> None:
    """Raise :class:`SettingsError` with :func:`settings_problem`'s words when there is one."""
    if problem := settings_problem(files):
        raise SettingsError(problem)
