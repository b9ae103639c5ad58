"""The package's optional parts, as pyproject.toml's extras declare them, and the one line a missing
one says where it is needed (never an ImportError's traceback).

``pip install detox-dashboard`` gives the library, the ``detox`` command and the embedded preset;
``[app]`` adds the dashboard, ``[models]`` the official recipes' models, ``[postgres]`` the PostgreSQL
driver and ``[all]`` every one of them (tests/test_packaging.py holds this table to pyproject.toml).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import json
from urllib.parse import unquote, urlsplit

from detox_core.errors import MissingExtraError

#: Each extra's modules (import names): those without which its part cannot run, then the others
#: it installs (ONNX Runtime, an optional backend; the tokenizers' and weights' readers of a few
#: models, which transformers names itself when one is missing).
EXTRAS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "app": (("streamlit", "starlette", "plotly"), ("crowdkit",)),
    "models": (("torch", "transformers", "sentence_transformers"),
               ("onnxruntime", "onnx", "sentencepiece", "safetensors", "google.protobuf")),
    "postgres": (("psycopg",), ()),
}
#: What to do before installing an extra, where there is something.
BEFORE = {"models": "install torch's CPU or CUDA build first (README)"}


@functools.cache  # what is installed does not change under a running process; pages ask on every run
def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a dotted name whose parent is not there
        return False


def missing(extra: str, modules: tuple[str, ...] | None = None) -> list[str]:
    """The modules ``extra`` needs (or of ``modules``, some of them) that are not installed."""
    return [m for m in (modules or EXTRAS[extra][0]) if not _installed(m)]


def _source() -> str:
    """What pip installs the package from: the checkout it was installed from (a local folder,
    read from pip's record of a direct install, PEP 610), else its name on the package index."""
    try:
        record = json.loads(importlib.metadata.distribution("detox-dashboard").read_text("direct_url.json") or "{}")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        record = {}
    url = record.get("url", "")
    if url.startswith("file://") and "dir_info" in record:
        return unquote(urlsplit(url).path)
    return "detox-dashboard"


def install_line(extra: str) -> str:
    line = f"pip install '{_source()}[{extra}]'"
    return f"{BEFORE[extra]}, then {line}" if extra in BEFORE else line


def why_missing(extra: str, what: str, modules: tuple[str, ...] | None = None) -> str | None:
    """One line saying that ``what`` needs ``extra`` (``modules`` of it, by default the ones it
    cannot run without) and how to install it, or None when they are installed."""
    absent = missing(extra, modules)
    if not absent:
        return None
    named = ", ".join(absent[:3]) + (f" and {len(absent) - 3} more" if len(absent) > 3 else "")
    return f"{what} needs the [{extra}] extra ({named} not installed): {install_line(extra)}"


def require(extra: str, what: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise :class:`MissingExtraError` (one line: which extra, the pip command) when ``extra`` (its
    ``modules``) is not installed; ``what`` names the part that needs it ("the RUSSE-2022 preset")."""
    if why := why_missing(extra, what, modules):
        raise MissingExtraError(why)


def require_module(module: str, what: str) -> None:
    """Like :func:`require` for one module of an extra (crowd-kit's aggregators need crowd-kit, not
    the rest of the dashboard)."""
    require(extra_of(module), what, (module,))


def extra_of(module: str) -> str:
    """The extra that installs ``module`` (an import name of :data:`EXTRAS`).

    Raises:
        KeyError: a module no extra installs.
    """
    return next(extra for extra, (needed, others) in EXTRAS.items() if module in needed + others)
