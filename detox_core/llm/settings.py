"""Where the LLM judge's settings come from, first found wins:

1. explicit arguments (the CLI's ``--llm-*`` options, a library call);
2. the server's settings (:func:`set_server_settings`): the organizers' LLM judge
   settings in the app's sidebar, which start from ``[llm_judge]`` of
   ``.streamlit/secrets.toml``; they apply to the whole server, like the model pool;
3. the environment: ``OPENAI_BASE_URL``, ``DETOX_LLM_MODEL``, ``OPENAI_API_KEY``
   (read in :mod:`detox_core.config`).

The key only ever lives in memory: it is not logged, stored, cached, nor put in a
signature.
"""

from __future__ import annotations

import math
import threading
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from detox_core import config
from detox_core.errors import DetoxInputError
from detox_core.llm.client import Endpoint, RetryPolicy
from detox_core.llm.prompts import load_template
from detox_core.llm.runner import MAX_CONCURRENCY, JudgeSettings

#: The settings a server (or a test) may set; ``api_key`` included, kept in memory only.
KEYS = ("base_url", "model", "api_key", "concurrency", "temperature", "max_tokens", "price_in", "price_out",
        "template", "timeout", "max_retries")
_server: dict[str, Any] = {}
_lock = threading.Lock()


def origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port of ``url``: where a key may be sent."""
    parts = urlsplit(str(url or "").strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    return parts.scheme.lower(), (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(parts.scheme.lower())


def _effective_url(values: dict[str, Any]) -> str:
    return str(values.get("base_url") or config.llm_endpoint()[0] or "")


def set_server_settings(keep_key: bool = False, **values: Any) -> bool | None:
    """Replace the server-wide settings (None or "" leaves a setting to the environment);
    ``keep_key``: keep the key set before when ``values`` gives none, but only while the
    base URL stays on the same host: a key is never sent to a host it was not given for.

    Returns:
        None when no key was set before or a new one is given; True when the old key
        was kept; False when it was dropped because the host changed.
    """
    unknown = set(values) - set(KEYS)
    if unknown:
        raise DetoxInputError(f"unknown LLM judge setting {sorted(unknown)[0]!r}; known: {', '.join(KEYS)}")
    kept = None
    with _lock:
        if keep_key and not values.get("api_key") and _server.get("api_key"):
            kept = origin(_effective_url(_server)) == origin(_effective_url(values))
            if kept:
                values = {**values, "api_key": _server["api_key"]}
        _server.clear()
        _server.update({k: v for k, v in values.items() if v not in (None, "")})
    return kept


def server_settings() -> dict[str, Any]:
    """The server-wide settings, without the key (what a page may show)."""
    with _lock:
        return {k: v for k, v in _server.items() if k != "api_key"}


def _number(name: str, value: Any, low: float, high: float, integer: bool = False) -> float | int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not low <= number <= high or (integer and number != int(number)):
        kind = "a whole number" if integer else "a number"
        raise DetoxInputError(f"LLM judge setting {name} must be {kind} from {low:g} to {high:g}, got {value!r}")
    return int(number) if integer else number


def resolve(**explicit: Any) -> JudgeSettings:
    """The judge's settings (see the module docstring); an endpoint may be unconfigured
    (:attr:`Endpoint.configured` False), which the judge reports when asked to run.

    Raises:
        DetoxInputError: a setting out of range, a bad template file.
    """
    env_url, env_model, env_key = config.llm_endpoint()
    with _lock:
        server = dict(_server)
    merged = {"base_url": env_url, "model": env_model, "api_key": env_key, **server,
              **{k: v for k, v in explicit.items() if v not in (None, "")}}
    # OPENAI_API_KEY belongs to OPENAI_BASE_URL's host (or to OpenAI's, the SDKs' default
    # when no base URL is set): a base URL an organizer set in the app on another host
    # does not get it. (An explicit base URL, the CLI's, is the caller's own choice.)
    key_from_env = env_key and not server.get("api_key") and not explicit.get("api_key")
    url_from_server = server.get("base_url") and not explicit.get("base_url")
    if key_from_env and url_from_server and origin(server["base_url"]) != origin(env_url or "https://api.openai.com/v1"):
        merged["api_key"] = ""
    unknown = set(explicit) - set(KEYS)
    if unknown:
        raise DetoxInputError(f"unknown LLM judge setting {sorted(unknown)[0]!r}; known: {', '.join(KEYS)}")
    endpoint = Endpoint(str(merged.get("base_url") or ""), str(merged.get("model") or ""),
                        str(merged.get("api_key") or ""))
    prices = {}
    for name in ("price_in", "price_out"):
        value = merged.get(name)
        prices[name] = None if value in (None, "") else _number(name, value, 0, 1e6)
    policy = RetryPolicy()
    if "timeout" in merged:
        policy = replace(policy, timeout=_number("timeout", merged["timeout"], 0.1, 3600))
    if "max_retries" in merged:
        policy = replace(policy, max_retries=_number("max_retries", merged["max_retries"], 0, 20, integer=True))
    return JudgeSettings(
        endpoint=endpoint,
        template=load_template(merged.get("template") or None),
        concurrency=_number("concurrency", merged.get("concurrency", 8), 1, MAX_CONCURRENCY, integer=True),
        temperature=_number("temperature", merged.get("temperature", 0.0), 0, 2),
        max_tokens=_number("max_tokens", merged.get("max_tokens", 8), 1, 4096, integer=True),
        policy=policy, **prices)
