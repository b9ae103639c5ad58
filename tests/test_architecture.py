"""The shape of the library: the rules of docs/DESIGN.md's architecture, checked on the source."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from detox_core import editions, metrics
from detox_core.config import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "detox_core"
MAX_LINES = 450


#: In-function imports of the library's own modules allowed in all (each says why in a comment).
MAX_INNER_IMPORTS = 5


def _modules(root: Path = PROJECT_ROOT) -> dict[str, Path]:
    out = {}
    for path in sorted((root / "detox_core").rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
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


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
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
    return cycles


def _package(module: str) -> str:
    """The package a module belongs to: ``detox_core.x`` for ``detox_core.x.y`` (a loose
    module of the root is its own)."""
    return ".".join(module.split(".")[:2])


def package_graph(root: Path = PROJECT_ROOT) -> dict[str, set[str]]:
    """Package -> the packages its modules import (at any depth of their code)."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        mine = _package(name)
        graph.setdefault(mine, set()).update(
            p for p in (_package(dep) for dep in _imports(name, path, modules)) if p != mine and p != "detox_core")
    return graph


def test_no_import_cycles():
    modules = _modules()
    assert not _cycles({name: _imports(name, path, modules) for name, path in modules.items()})


def test_no_package_imports_one_that_imports_it_back():
    """Layers, not a web: files -> data -> editions -> models -> metrics -> submissions ->
    analysis / annotation -> ui -> cli; what two packages both need lives below both."""
    graph = package_graph()
    both_ways = sorted({tuple(sorted((a, b))) for a in graph for b in graph[a] if a in graph.get(b, ())})
    assert not both_ways, both_ways
    assert not _cycles(graph)


def test_the_package_check_sees_a_package_importing_back(tmp_path):
    """The check above on a tree where a package's module imports another package whose
    module imports the first back, through a function-level import (no module cycle)."""
    for rel, text in {"detox_core/__init__.py": "", "detox_core/low/__init__.py": "",
                      "detox_core/low/a.py": "def f():\n    from detox_core.high.b import g\n",
                      "detox_core/high/__init__.py": "", "detox_core/high/b.py": "from detox_core.low import a\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    graph = package_graph(tmp_path)
    assert graph["detox_core.low"] == {"detox_core.high"} and graph["detox_core.high"] == {"detox_core.low"}
    assert _cycles(graph)


def _inner_imports(root: Path = PROJECT_ROOT) -> list[tuple[str, int, str, bool]]:
    """Every import inside a function: (file, line, top-level module, says why in a comment
    on its line or above its block of imports)."""
    found = []
    for path in sorted((root / "detox_core").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if not isinstance(node, (ast.Import, ast.ImportFrom)) or getattr(node, "level", 0):
                    continue
                module = node.names[0].name if isinstance(node, ast.Import) else node.module
                above = node.lineno - 2
                while above >= 0 and lines[above].lstrip().startswith(("import ", "from ")):
                    above -= 1
                why = "#" in lines[node.lineno - 1] or (above >= 0 and lines[above].lstrip().startswith("#"))
                found.append((str(path.relative_to(root)), node.lineno, module.split(".")[0], why))
    return sorted(set(found))


def test_imports_sit_at_the_top_of_modules():
    """A function imports only what is heavy or optional (torch, scikit-learn, Streamlit's
    server...), each with a comment saying why; the library's own modules at most
    :data:`MAX_INNER_IMPORTS` times."""
    inner = _inner_imports()
    own = [i for i in inner if i[2] == "detox_core"]
    assert len(own) <= MAX_INNER_IMPORTS, own
    assert not [i for i in inner if not i[3]], [i for i in inner if not i[3]]
    assert not [i for i in inner if i[2] in sys.stdlib_module_names and i[2] != "resource"]


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
