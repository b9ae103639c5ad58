"""Tests of the scripts under ``benchmarks/`` (they are scripts, not a package)."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from detox_core.data import PROJECT_ROOT


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as a module, for tests of its functions."""
    spec = importlib.util.spec_from_file_location(name, PROJECT_ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
