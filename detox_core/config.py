"""Settings from the environment: every environment variable the library reads, here.

Each setting is read when it is asked for (not at import), so that a server started
with other variables, or a test that sets one, sees the current value.

| variable | meaning | default |
| --- | --- | --- |
| ``DETOX_DATA_DIR`` | datasets, trained models, caches | a checkout's ``data/``; installed: ``$XDG_DATA_HOME/detox-dashboard`` or ``~/.local/share/detox-dashboard`` |
| ``DETOX_DB_URL`` | SQLAlchemy URL of the app's database | SQLite ``<data>/detox.sqlite`` |
| ``DETOX_CACHE_MB`` | memory of all per-text caches together | 512 |
| ``DETOX_MODEL_MAP`` | ``id=DIR;id2=DIR2``: model ids loaded from local folders | none |
| ``DETOX_MODEL_DIR`` | a folder of ``<org>__<name>`` model folders | none |
| ``DETOX_MIRROR`` | a folder holding a copy of the public data files | none |
| ``DETOX_HUB_DIR`` | a folder of ``<org>__<name>`` copies of hub datasets | none |
| ``DETOX_HEADS_DIR`` | a folder of the embedded preset's heads to score with (``detox train-embedded`` writes one) | the heads shipped in the package |
| ``DETOX_ORGANIZER_PASSWORD`` | the organizers' password (else ``secrets.toml``) | none: open app |
| ``DETOX_SESSION_SECRET`` | the key sign-in cookies are signed with (every app process the same) | a random key in ``<data>/sessions/secret`` |
| ``DETOX_TRUSTED_PROXIES`` | comma-separated addresses or networks (CIDR) of the reverse proxies whose ``X-Forwarded-For`` is believed | ``127.0.0.1, ::1`` |
| ``DETOX_IPV6_PREFIX`` | the IPv6 network length counted as one client by every per-address limit (places, sign-in and join throttles, the engine budget, uploads); 128 = each address | 64 |
| ``DETOX_MAX_SESSIONS_PER_ADDRESS`` | browser sessions one client address may hold open per app process (0 = no limit) | 20 |
| ``DETOX_SECURE_COOKIE`` | 1: the sign-in cookie is always ``Secure`` (TLS ends before the app's own proxy) | ``Secure`` over https only |
| ``DETOX_MAX_SESSIONS`` | browser sessions one app process holds open, all addresses together (0 = no limit); a signed-in organizer always gets in | 100 |
| ``DETOX_PUBLIC_PAGES`` | comma-separated page ids visitors see | Corpus, Live scoring, Leaderboard, Annotate |
| ``DETOX_MODEL_ROOTS`` | ``os.pathsep``-separated folders model folders must lie in | ``<data>/models``, ``DETOX_MODEL_DIR`` |
| ``OPENAI_BASE_URL`` | the LLM judge's chat-completions server (OpenAI, vLLM, llama.cpp, Ollama) | none: no judge |
| ``OPENAI_API_KEY`` | the LLM judge's key (never logged, stored or shown) | none |
| ``DETOX_LLM_MODEL`` | the LLM judge's model name | none |
| ``DETOX_BERTSCORE`` | compute BERTScore F1 (the model comes from the hub) | off |
| ``DETOX_BERTSCORE_MODEL`` | BERTScore's model id | ``bert-base-multilingual-cased`` |
| ``DETOX_BERTSCORE_LAYER`` | BERTScore's layer | bert-score's layer for the model (9) |
| ``DETOX_PRECISION`` | models' floating-point type on a GPU: ``float32``, or ``float16``/``bfloat16`` as an opt-in (in the signature) | ``float32`` |
| ``DETOX_REGEX_MEMORY_MB`` | memory a Corpus regex worker may allocate beyond its own size (MB) | 256 |
| ``DETOX_WARMUP`` | ``0``: no warm-up of the models at the server's start; each loads on its first use | on |
| ``DETOX_UPLOADS_MB`` | memory the uploaded corpora that open tabs hold may take together, per app process (MB); one client address holds at most a quarter of it | 400 |
| ``DETOX_SCORE_CACHE_MB`` | size bound of the on-disk cache of model outputs (``<data>/cache/model_outputs``; 0 = off) | 512 |
| ``STREAMLIT_SERVER_ADDRESS`` | where ``detox serve`` listens (Streamlit's own variable; also ``--server.address``) | ``127.0.0.1``: this machine only |
| ``HF_HUB_OFFLINE`` | the model hub is not tried | off |
| ``HF_ENDPOINT`` | the model hub's address | ``https://huggingface.co`` |
"""

from __future__ import annotations

import os
from pathlib import Path

from detox_core.errors import DetoxInputError

#: The folder holding the package: a checkout's top level, or ``site-packages`` for an installed copy.
PROJECT_ROOT = Path(__file__).resolve().parent.parent

#: The folder of shared offline mirrors beside the project (``../shared/data``).
SHARED_MIRRORS = PROJECT_ROOT.parent / "shared" / "data"

DATA_DIR_ENV = "DETOX_DATA_DIR"
DB_URL_ENV = "DETOX_DB_URL"
CACHE_MB_ENV = "DETOX_CACHE_MB"
MODEL_MAP_ENV = "DETOX_MODEL_MAP"
MODEL_DIR_ENV = "DETOX_MODEL_DIR"
MIRROR_ENV = "DETOX_MIRROR"
HUB_DIR_ENV = "DETOX_HUB_DIR"
HEADS_DIR_ENV = "DETOX_HEADS_DIR"
ORGANIZER_PASSWORD_ENV = "DETOX_ORGANIZER_PASSWORD"
PUBLIC_PAGES_ENV = "DETOX_PUBLIC_PAGES"
TRUSTED_PROXIES_ENV = "DETOX_TRUSTED_PROXIES"
IPV6_PREFIX_ENV = "DETOX_IPV6_PREFIX"
#: Default of ``DETOX_IPV6_PREFIX``: one subscriber's allocation (a /64 holds 2^64 addresses a
#: client may pick from at will).
DEFAULT_IPV6_PREFIX = 64
MAX_SESSIONS_ENV = "DETOX_MAX_SESSIONS_PER_ADDRESS"

#: Default of ``DETOX_MAX_SESSIONS_PER_ADDRESS``: a lab of annotators behind one address
#: fits, a script opening hundreds of tabs does not.
DEFAULT_MAX_SESSIONS_PER_ADDRESS = 20
MAX_PROCESS_SESSIONS_ENV = "DETOX_MAX_SESSIONS"
HASHING_NICE_ENV = "DETOX_HASHING_NICE"
#: Default of ``DETOX_HASHING_NICE``: how much lower than the pages' the priority of the
#: password hashing threads is (:mod:`detox_core.annotation.passwords`); at 10 a page's work
#: weighs about ten times a hash's on a busy core.
DEFAULT_HASHING_NICE = 10
RUNS_PER_ADDRESS_ENV = "DETOX_RUNS_PER_ADDRESS"
#: Default of ``DETOX_RUNS_PER_ADDRESS``: the page runs of one address at a time, per process
#: (:mod:`detox_core.deployment.runs`). The runs of a process share one interpreter lock, so this
#: is the share of the process one address may take, whatever the machine's cores.
DEFAULT_RUNS_PER_ADDRESS = 2
#: Default of ``DETOX_MAX_SESSIONS``: a session of the Corpus page takes about 13 MB while
#: many start at once (tests/e2e/test_hostile_visitor.py, benchmarks/bench_load.py --attacks),
#: so 100 keep a process within its stated memory ceiling; a deployment adds processes.
DEFAULT_MAX_SESSIONS = 100
SESSION_SECRET_ENV = "DETOX_SESSION_SECRET"
MODEL_ROOTS_ENV = "DETOX_MODEL_ROOTS"
LLM_BASE_URL_ENV = "OPENAI_BASE_URL"
LLM_API_KEY_ENV = "OPENAI_API_KEY"
LLM_MODEL_ENV = "DETOX_LLM_MODEL"
BERTSCORE_ENV = "DETOX_BERTSCORE"
BERTSCORE_MODEL_ENV = "DETOX_BERTSCORE_MODEL"
BERTSCORE_LAYER_ENV = "DETOX_BERTSCORE_LAYER"
PRECISION_ENV = "DETOX_PRECISION"
WARMUP_ENV = "DETOX_WARMUP"
SCORE_CACHE_ENV = "DETOX_SCORE_CACHE_MB"

#: Default budget of all per-text caches together, in MB.
DEFAULT_CACHE_MB = 512
UPLOADS_MB_ENV = "DETOX_UPLOADS_MB"
DEFAULT_UPLOADS_MB = 400


def _get(name: str) -> str:
    return os.environ.get(name, "").strip()


#: Whether the package runs from a checkout of the project (``make``, ``pip install -e .``) rather
#: than from an installed copy in site-packages.
IN_CHECKOUT = (PROJECT_ROOT / "app.py").is_file()

#: The app as the wheel carries it: ``app.py``, ``pages/`` and ``.streamlit/config.toml`` (in a
#: checkout, links to the top-level ones; ``pip install`` copies them into the package).
INSTALLED_APP = Path(__file__).resolve().parent / "ui" / "site"


def app_root() -> Path:
    """The folder holding ``app.py``, ``pages/`` and ``.streamlit/config.toml``: the checkout's top
    level, else the installed package's copy (``detox_core/ui/site``)."""
    return PROJECT_ROOT if IN_CHECKOUT else INSTALLED_APP


def streamlit_config_file() -> Path:
    """The app's Streamlit configuration (``.streamlit/config.toml`` beside ``app.py``)."""
    return app_root() / ".streamlit" / "config.toml"


def data_dir() -> Path:
    """Where datasets, trained models and caches live; the first of:

    1. ``$DETOX_DATA_DIR`` when it is set and not blank, as written (a relative path is read from
       the working directory; ``~`` is not expanded);
    2. running from a checkout (:data:`IN_CHECKOUT`: ``app.py`` beside the package, as with
       ``make`` or ``pip install -e .``): the checkout's ``data/``;
    3. an installed copy (``pip install detox-dashboard``): ``$XDG_DATA_HOME/detox-dashboard``
       when ``XDG_DATA_HOME`` is set and not blank, else ``~/.local/share/detox-dashboard``
       (the same on every system, Windows and macOS included).

    The folder is not created here."""
    env = _get(DATA_DIR_ENV)
    if env:
        return Path(env)
    if IN_CHECKOUT:
        return PROJECT_ROOT / "data"
    return Path(_get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "detox-dashboard"


def serve_address_set() -> bool:
    """Whether ``STREAMLIT_SERVER_ADDRESS`` names where the server listens (else ``detox serve``
    answers this machine only)."""
    return bool(_get("STREAMLIT_SERVER_ADDRESS"))


def streamlit_env_set(section: str, key: str) -> bool:
    """Whether Streamlit's own variable for the option ``section.key`` is set
    (``STREAMLIT_SERVER_MAX_UPLOAD_SIZE`` for ``server.maxUploadSize``): it then wins over the
    app's config file."""
    snake = "".join(f"_{ch}" if ch.isupper() else ch for ch in key).upper()
    return bool(_get(f"STREAMLIT_{section.upper()}_{snake}"))


def db_url() -> str:
    """``$DETOX_DB_URL``, else the SQLite file ``<data>/detox.sqlite``."""
    return _get(DB_URL_ENV) or f"sqlite:///{data_dir() / 'detox.sqlite'}"


def cache_mb() -> float:
    """Megabytes for all per-text caches together (``$DETOX_CACHE_MB``, default 512).

    Raises:
        DetoxInputError: the variable is not a non-negative number.
    """
    raw = _get(CACHE_MB_ENV)
    try:
        total = float(raw) if raw else DEFAULT_CACHE_MB
    except ValueError:
        total = -1.0
    if not total >= 0:  # also refuses NaN
        raise DetoxInputError(f"{CACHE_MB_ENV} must be a number of megabytes >= 0, got {raw!r}")
    return total


def model_map() -> dict[str, str]:
    """Model id -> local folder, from ``$DETOX_MODEL_MAP`` (``id=DIR;id=DIR``; commas work too)."""
    out: dict[str, str] = {}
    for item in _get(MODEL_MAP_ENV).replace(",", ";").split(";"):
        if "=" in item:
            key, value = item.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def model_dir() -> Path | None:
    """``$DETOX_MODEL_DIR``: a folder of ``<org>__<name>`` model folders, or None."""
    value = _get(MODEL_DIR_ENV)
    return Path(value) if value else None


def mirror_dirs() -> list[Path]:
    """``$DETOX_MIRROR`` (a folder with a copy of the data files), when set."""
    value = _get(MIRROR_ENV)
    return [Path(value)] if value else []


def hub_dir() -> Path | None:
    """``$DETOX_HUB_DIR``: a folder of ``<org>__<name>`` copies of hub datasets, or None."""
    value = _get(HUB_DIR_ENV)
    return Path(value) if value else None


def heads_dir() -> Path | None:
    """``$DETOX_HEADS_DIR``: a folder of the embedded preset's heads to score with instead of the
    shipped ones (``detox train-embedded`` writes such a folder), or None."""
    value = _get(HEADS_DIR_ENV)
    return Path(value) if value else None


SECURE_COOKIE_ENV = "DETOX_SECURE_COOKIE"


def secure_cookie() -> bool:
    """``$DETOX_SECURE_COOKIE`` is 1 (true, yes): the sign-in cookie is always ``Secure``."""
    return (_get(SECURE_COOKIE_ENV) or "").strip().lower() in ("1", "true", "yes")


def session_secret() -> str | None:
    """``$DETOX_SESSION_SECRET``, or None when unset or empty."""
    return os.environ.get(SESSION_SECRET_ENV) or None


def organizer_password() -> str | None:
    """``$DETOX_ORGANIZER_PASSWORD``, or None when unset or empty."""
    return os.environ.get(ORGANIZER_PASSWORD_ENV) or None


def ipv6_prefix() -> int:
    """``$DETOX_IPV6_PREFIX``: the IPv6 network length one client is counted by (default 64).

    Raises:
        DetoxInputError: a value that is not a whole number from 32 to 128.
    """
    raw = _get(IPV6_PREFIX_ENV)
    if not raw:
        return DEFAULT_IPV6_PREFIX
    if not raw.isdigit() or not 32 <= int(raw) <= 128:
        from detox_core.errors import DetoxInputError  # noqa: PLC0415 - as the other settings' errors

        raise DetoxInputError(f"{IPV6_PREFIX_ENV} is the IPv6 network length counted as one client, 32 to 128 "
                              f"(64: a subscriber's network; 128: each address), not {raw!r}")
    return int(raw)


def trusted_proxies() -> list[str]:
    """``$DETOX_TRUSTED_PROXIES`` as a list (addresses or CIDR networks); unset: the
    loopback addresses (a proxy on the same machine, the usual nginx set-up)."""
    value = os.environ.get(TRUSTED_PROXIES_ENV)
    if value is None:
        return ["127.0.0.1", "::1"]
    return [v.strip() for v in value.split(",") if v.strip()]


def uploads_mb() -> int:
    """``$DETOX_UPLOADS_MB``: the prepared uploaded corpora that open tabs hold, together, per
    process (default 400: about seven at the caps)."""
    return _count_setting(UPLOADS_MB_ENV, DEFAULT_UPLOADS_MB)


def _count_setting(name: str, default: int) -> int:
    raw = _get(name)
    try:
        value = int(raw) if raw else default
    except ValueError:
        value = -1
    if value < 0:
        raise DetoxInputError(f"{name} must be a whole number >= 0, got {raw!r}")
    return value


def max_sessions_per_address() -> int:
    """``$DETOX_MAX_SESSIONS_PER_ADDRESS`` (default 20, a fifth of a process's sessions; 0 = no limit)."""
    return _count_setting(MAX_SESSIONS_ENV, DEFAULT_MAX_SESSIONS_PER_ADDRESS)


def runs_per_address() -> int:
    """``$DETOX_RUNS_PER_ADDRESS``: page runs of one address at a time, per process; the
    others wait their turn (default 2; 0 = no limit)."""
    return _count_setting(RUNS_PER_ADDRESS_ENV, DEFAULT_RUNS_PER_ADDRESS)


def hashing_nice() -> int:
    """``$DETOX_HASHING_NICE``: niceness added to the password hashing threads, 0 to 19
    (default 10; 0 = the pages' own priority)."""
    value = _count_setting(HASHING_NICE_ENV, DEFAULT_HASHING_NICE)
    if value > 19:
        raise DetoxInputError(f"{HASHING_NICE_ENV} must be a whole number from 0 to 19, got {value}")
    return value


def max_sessions() -> int:
    """``$DETOX_MAX_SESSIONS``: sessions of one app process, all addresses (default 100; 0 = no limit)."""
    return _count_setting(MAX_PROCESS_SESSIONS_ENV, DEFAULT_MAX_SESSIONS)


def public_pages() -> list[str] | None:
    """``$DETOX_PUBLIC_PAGES`` as a list of page ids (None when unset; empty = none public)."""
    value = os.environ.get(PUBLIC_PAGES_ENV)
    return None if value is None else [p.strip() for p in value.split(",")]


def model_roots() -> list[str] | None:
    """``$DETOX_MODEL_ROOTS`` as a list of folders, or None when unset."""
    value = _get(MODEL_ROOTS_ENV)
    return value.split(os.pathsep) if value else None


def llm_endpoint() -> tuple[str, str, str]:
    """The LLM judge's (base URL, model name, key) from ``$OPENAI_BASE_URL``,
    ``$DETOX_LLM_MODEL`` and ``$OPENAI_API_KEY``; empty strings where unset."""
    return _get(LLM_BASE_URL_ENV), _get(LLM_MODEL_ENV), _get(LLM_API_KEY_ENV)


def hub_offline() -> bool:
    """``$HF_HUB_OFFLINE`` is on: no model download is tried."""
    return _get("HF_HUB_OFFLINE").lower() in {"1", "true", "yes"}


def hub_host() -> str:
    """The model hub's host name (``$HF_ENDPOINT``, default huggingface.co)."""
    return (_get("HF_ENDPOINT") or "https://huggingface.co").split("://")[-1].split("/")[0]


def bertscore_enabled() -> bool:
    """``$DETOX_BERTSCORE`` is on: BERTScore F1 is computed with every score frame."""
    return _get(BERTSCORE_ENV).lower() in {"1", "true", "yes", "on"}


def bertscore_model() -> str:
    """``$DETOX_BERTSCORE_MODEL``: BERTScore's model id (empty: ``bert-base-multilingual-cased``,
    :data:`detox_core.metrics.bertscore.DEFAULT_MODEL`)."""
    return _get(BERTSCORE_MODEL_ENV)


def bertscore_layer() -> int | None:
    """``$DETOX_BERTSCORE_LAYER`` as a layer number, or None when unset."""
    value = _get(BERTSCORE_LAYER_ENV)
    if not value:
        return None
    if not value.isdigit():
        raise DetoxInputError(f"{BERTSCORE_LAYER_ENV}: expected a layer number, found {value!r}")
    return int(value)


PRECISIONS = ("float32", "float16", "bfloat16")


def precision() -> str:
    """``DETOX_PRECISION``: the floating-point type of models on a GPU (``float32``, the
    default; ``float16`` or ``bfloat16`` as an opt-in, recorded in every score's signature)."""
    raw = _get(PRECISION_ENV).lower() or "float32"
    alias = {"fp32": "float32", "fp16": "float16", "half": "float16", "bf16": "bfloat16"}
    value = alias.get(raw, raw)
    if value not in PRECISIONS:
        raise DetoxInputError(f"{PRECISION_ENV} must be one of {', '.join(PRECISIONS)}, got {raw!r}")
    return value


def score_cache_mb() -> float:
    """``DETOX_SCORE_CACHE_MB``: the size bound of the on-disk cache of model outputs
    (default 512 MB; 0 switches it off)."""
    raw = _get(SCORE_CACHE_ENV)
    if not raw:
        return 512.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0:
        raise DetoxInputError(f"{SCORE_CACHE_ENV} must be a number of megabytes >= 0, got {raw!r}")
    return value


def warmup_enabled() -> bool:
    """``DETOX_WARMUP``: whether the server warms its models in the background from its
    start (default: yes; ``0``, ``off`` or ``false``: each model loads on its first use)."""
    raw = _get(WARMUP_ENV).lower()
    if raw in ("", "1", "on", "true", "yes"):
        return True
    if raw in ("0", "off", "false", "no"):
        return False
    raise DetoxInputError(f"{WARMUP_ENV} must be 1 or 0, got {raw!r}")


REGEX_MEMORY_ENV = "DETOX_REGEX_MEMORY_MB"


def regex_memory_mb(default: int = 256) -> int:
    """``$DETOX_REGEX_MEMORY_MB``: memory a regex worker may allocate beyond its size when
    ready (:mod:`detox_core.analysis.regex_search`; default 256)."""
    raw = _get(REGEX_MEMORY_ENV)
    try:
        value = int(raw) if raw else default
    except ValueError:
        value = 0
    if value < 16:
        raise DetoxInputError(f"{REGEX_MEMORY_ENV} must be a whole number of megabytes >= 16, got {raw!r}")
    return value


def child_environment(python_path: str | None = None) -> dict[str, str]:
    """This process's environment for a worker process it starts, with ``python_path``
    put first on ``PYTHONPATH`` (so the worker imports this checkout's package)."""
    env = dict(os.environ)
    if python_path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (python_path, env.get("PYTHONPATH", "")) if p)
    return env

