"""The shape of the library: the rules of DESIGN.md's architecture, checked on the source."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from detox_core import editions, metrics
from detox_core.config import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "detox_core"
MAX_LINES = 450


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PROJECT_ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every detox_core module ``name`` imports, at any depth of its code (a function-level
    import is a dependency too), with the package initializers the import runs."""
    deps = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name and target.startswith("detox_core"):
                deps.add(target)
                # Importing a.b.c runs the initializers of a and a.b first: an edge to each
                # package the importer is not itself inside.
                parts = target.split(".")
                for k in range(2, len(parts)):
                    package = ".".join(parts[:k])
                    if package in modules and package != name and not name.startswith(package + "."):
                        deps.add(package)
    return deps


def test_no_import_cycles():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for dep in sorted(graph[node]):
            if state.get(dep) == "open":
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = "done"

    for name in graph:
        if name not in state:
            visit(name, [name])
    assert not cycles, cycles


def test_no_module_is_longer_than_the_limit():
    long = {str(p.relative_to(PROJECT_ROOT)): n for p in [*PACKAGE.rglob("*.py"), *(PROJECT_ROOT / "pages").glob("*.py")]
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_an_edition_is_named_only_where_it_and_its_presets_are_defined():
    """Outside its definition (editions/<name>.py, metrics/<preset>.py and the imports that
    register them), no code names an edition: pages and the library read the registry."""
    names = [e.name for e in editions.editions()]
    definitions = set((PACKAGE / "editions").glob("*.py")) - {PACKAGE / "editions" / f for f in
                                                               ("__init__.py", "base.py", "registry.py")}
    allowed = definitions | {PACKAGE / "metrics" / f"{n}.py" for n in metrics.PRESETS}
    found = []
    for path in [*PACKAGE.rglob("*.py"), *(PROJECT_ROOT / "pages").glob("*.py"), PROJECT_ROOT / "app.py"]:
        if path in allowed:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith(("from ", "import ")):
                continue
            found += [f"{path.relative_to(PROJECT_ROOT)}:{number}: {line.strip()}"
                      for n in names if re.search(rf"(?<![.\w]){n}\b", line)]  # a module path (metrics.x) is not a name
    assert not found, found


def test_streamlit_lives_in_the_ui_package_and_the_environment_in_config():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] != "ui":
            assert not re.search(r"^\s*(import streamlit|from streamlit)", text, re.M), rel
        if rel != Path("config.py"):
            assert not re.search(r"os\.environ|os\.getenv", text), rel


def test_registries_are_filled_on_import():
    assert [e.name for e in editions.editions()][:1] == [editions.default_edition().name]
    assert metrics.preset_names()[0] == metrics.DEFAULT_PRESET
    assert {"embedded", "russe2022", "textdetox2024"} <= set(metrics.preset_names())
