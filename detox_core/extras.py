"""The package's optional parts, as pyproject.toml's extras declare them, and the one line a missing
one says where it is needed (never an ImportError's traceback).

``pip install detox-dashboard`` gives the library, the ``detox`` command and the embedded preset;
``[app]`` adds the dashboard, ``[models]`` the official recipes' models, ``[postgres]`` the PostgreSQL
driver and ``[all]`` every one of them (tests/test_packaging.py holds this table to pyproject.toml).
"""

from __future__ import annotations

import importlib.util

from detox_core.errors import MissingExtraError

#: Each extra's modules (import names), and what it gives, in the words of a message.
EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    "app": (("streamlit", "starlette", "plotly", "crowdkit"), "the dashboard"),
    "models": (("torch", "transformers", "sentence_transformers", "onnxruntime", "onnx", "sentencepiece",
                "safetensors", "google.protobuf"), "the official recipes' models"),
    "postgres": (("psycopg",), "PostgreSQL"),
}


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a dotted name whose parent is not there
        return False


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that are not installed (none when it is)."""
    return [m for m in EXTRAS[extra][0] if not _installed(m)]


def install_line(extra: str) -> str:
    return f"pip install 'detox-dashboard[{extra}]'"


def why_missing(extra: str, what: str) -> str | None:
    """One line saying that ``what`` needs ``extra`` and how to install it, or None when it is
    installed."""
    absent = missing(extra)
    if not absent:
        return None
    named = ", ".join(absent[:3]) + (f" and {len(absent) - 3} more" if len(absent) > 3 else "")
    return f"{what} needs the [{extra}] extra ({named} not installed): {install_line(extra)}"


def require(extra: str, what: str) -> None:
    """Raise :class:`MissingExtraError` (one line: which extra, the pip command) when ``extra`` is
    not installed; ``what`` names the part that needs it ("the RUSSE-2022 preset")."""
    if why := why_missing(extra, what):
        raise MissingExtraError(why)


def require_module(module: str, what: str) -> None:
    """Like :func:`require` for one module of an extra (crowd-kit's aggregators need crowd-kit, not
    the rest of the dashboard)."""
    extra = extra_of(module)
    if extra and not _installed(module):
        raise MissingExtraError(f"{what} needs the [{extra}] extra ({module} not installed): {install_line(extra)}")


def extra_of(module: str) -> str | None:
    """The extra that installs ``module`` (a top-level import name), or None."""
    top = module.split(".")[0]
    return next((extra for extra, (modules, _) in EXTRAS.items() if any(m.split(".")[0] == top for m in modules)), None)
