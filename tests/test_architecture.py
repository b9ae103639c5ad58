"""The shape of the library: the rules of docs/DESIGN.md's architecture, checked on the source."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from detox_core import editions, languages, metrics
from detox_core.config import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "detox_core"
MAX_LINES = 450
#: The one table of language codes.
LANGUAGE_TABLE = PACKAGE / "languages" / "__init__.py"


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
    register them, and the table of languages, which says the editions each language is in), no code names an
    edition: pages and the library read the registry."""
    names = [e.name for e in editions.editions()]
    definitions = set((PACKAGE / "editions").glob("*.py")) - {PACKAGE / "editions" / f for f in
                                                               ("__init__.py", "base.py", "registry.py")}
    allowed = definitions | {PACKAGE / "metrics" / f"{n}.py" for n in metrics.PRESETS} | {LANGUAGE_TABLE}
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


def _language_code_tables(root: Path = PROJECT_ROOT) -> list[str]:
    """Every tuple, list, set or dict literal (its keys for a dict, with the literals nested in it)
    outside ``detox_core/languages/`` that holds 3 or more of the table's language codes as
    strings: ``file:line: codes``."""
    codes = set(languages.LANGUAGES)

    def strings(node: ast.AST) -> list[str]:
        items = node.keys if isinstance(node, ast.Dict) else node.elts
        out = []
        for item in items:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                out.append(item.value)
            elif isinstance(item, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                out += strings(item)
        return out

    found = []
    for path in sorted((root / "detox_core").rglob("*.py")):
        if "languages" in path.relative_to(root / "detox_core").parts[:1] or not path.is_file():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                held = [s for s in strings(node) if s in codes]
                if len(set(held)) >= 3:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {', '.join(held)}")
    return sorted(set(found))


def test_language_codes_are_listed_only_in_the_table_of_languages():
    """One home for languages: a module that needs the editions' languages, their scripts, word
    lists or prompts reads :mod:`detox_core.languages` instead of writing its own table of codes."""
    assert not _language_code_tables(), "\n".join(_language_code_tables())


def test_the_check_of_language_tables_finds_a_second_table(tmp_path):
    (tmp_path / "detox_core" / "metrics").mkdir(parents=True)
    (tmp_path / "detox_core" / "languages").mkdir()
    (tmp_path / "detox_core" / "metrics" / "x.py").write_text(
        'LANGS = ("de", "en", "uk")\nPROMPTS = {"de": 1, "fr": 2}\nPAIRS = (("ru", 1), ("en", 2), ("fr", 3))\n')
    (tmp_path / "detox_core" / "languages" / "__init__.py").write_text('TABLE = ("de", "en", "uk", "fr")\n')
    assert _language_code_tables(tmp_path) == ["detox_core/metrics/x.py:1: de, en, uk",
                                               "detox_core/metrics/x.py:3: ru, en, fr"]


#: Packages that read a preset only through the registry and the Preset class, never the
#: offline preset's own modules (its heads, their training, its scoring).
PRESET_USERS = ("detox_core.analysis", "detox_core.submissions", "detox_core.live")
OFFLINE_PRESET = ("detox_core.metrics.embedded",)


def _reaches_into_the_offline_preset(root: Path = PROJECT_ROOT) -> list[str]:
    """``module -> offline module`` for every import (at any depth of the code) from a package of
    :data:`PRESET_USERS` into the offline preset's package or its recipe module."""
    modules = _modules(root)
    return sorted(f"{name} -> {dep}" for name, path in modules.items() if _package(name) in PRESET_USERS
                  for dep in _imports(name, path, modules)
                  if any(dep == m or dep.startswith(m + ".") for m in OFFLINE_PRESET))


def test_analysis_and_submissions_do_not_reach_into_the_offline_preset():
    assert not _reaches_into_the_offline_preset()


def test_the_reach_check_sees_a_function_level_import(tmp_path):
    for rel, text in {"detox_core/__init__.py": "", "detox_core/metrics/embedded/__init__.py": "",
                      "detox_core/metrics/embedded/heads.py": "", "detox_core/analysis/__init__.py": "",
                      "detox_core/analysis/x.py": "def f():\n    from detox_core.metrics.embedded.heads import g\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert "detox_core.analysis.x -> detox_core.metrics.embedded.heads" in _reaches_into_the_offline_preset(tmp_path)


#: Not packages of a layer: the root (``import detox_core``: the notebook call, loaded lazily)
#: and ``python -m detox_core`` (the CLI's entry point).
ENTRY_POINTS = ("detox_core", "detox_core.__main__")


def design_layers(text: str) -> list[list[str]]:
    """The packages docs/DESIGN.md's "## Layers" list names, layer by layer from the top: the
    names that begin each line of its code block, up to two spaces (a line that begins with
    spaces goes on describing the layer above)."""
    block = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0].split("```", 2)[1]
    return [re.split(r"\s{2,}", line.strip(), maxsplit=1)[0].split()
            for line in block.splitlines()[1:] if line.strip() and not line[0].isspace()]


def test_designs_layer_list_is_the_import_graph():
    """Every package (or loose module) of detox_core is named once in DESIGN's layer list, every
    name there exists, and no package imports one that DESIGN puts in a higher layer (packages
    of one line may import each other, one way)."""
    layers = design_layers((PROJECT_ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8"))
    named = [f"detox_core.{name}" for names in layers for name in names]
    level = {name: i for i, names in enumerate(layers) for name in (f"detox_core.{n}" for n in names)}
    graph = {p: deps for p, deps in package_graph().items() if p not in ENTRY_POINTS}
    short = {p: p.removeprefix("detox_core.") for p in graph}

    def where(p: str) -> str:
        users = sorted(short[q] for q in graph if p in graph[q])
        return f"{short[p]} (imports {', '.join(sorted(short[d] for d in graph[p])) or 'nothing'}; " \
               f"imported by {', '.join(users) or 'nothing'})"

    missing = [where(p) for p in sorted(set(graph) - set(level))]
    assert not missing, "docs/DESIGN.md's Layers list does not name: " + "; ".join(missing)
    gone = sorted(short.get(n, n.removeprefix("detox_core.")) for n in set(level) - set(graph))
    assert not gone, f"docs/DESIGN.md's Layers list names what detox_core does not hold (renamed?): {gone}"
    twice = sorted({n for n in named if named.count(n) > 1})
    assert not twice, f"docs/DESIGN.md's Layers list names these in more than one layer: {twice}"
    upward = [f"{short[p]} imports {short[d]}, a layer above it" for p in sorted(graph) for d in sorted(graph[p])
              if d in level and level[d] < level[p]]
    assert not upward, "against docs/DESIGN.md's Layers list: " + "; ".join(upward)
