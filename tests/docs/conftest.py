"""Fixtures of the docs' tests: the site built once per session, strictly."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from detox_core.config import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"
SOURCES = DOCS / "site_src"
GUIDE = SOURCES / "guide"


@dataclass(frozen=True)
class Site:
    root: Path  # the built site
    log: str  # what `mkdocs build` said
    returncode: int
    seconds: float


def build_site(out: Path, config: Path = DOCS / "mkdocs.yml") -> Site:
    """``mkdocs build --strict`` of ``config`` into ``out``: a warning (a broken link, an anchor
    that is not there, a page outside the navigation, a reference mkdocstrings cannot find)
    makes it fail."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(out)],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    return Site(out, done.stdout + done.stderr, done.returncode, time.monotonic() - started)


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Site:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -r requirements-test.txt)")
    pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings-python is not installed")
    return build_site(tmp_path_factory.mktemp("docs-site"))
