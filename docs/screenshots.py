"""Which screenshots the docs show, and what each was drawn from.

Every picture of the app in the docs site is taken by one command, ``make screenshots``
(``docs/take_screenshots.py``), into ``docs/site_src/guide/img/``, and recorded in
``docs/site_src/guide/img/screenshots.json`` beside it: for each picture, the page it shows, the
window's width and the digest of the files that page is drawn from (:func:`sources`). A change to
one of those files changes the digest, and ``tests/docs/test_screenshots.py`` then names the
pictures to re-take, without running a browser.

The files a page is drawn from: ``app.py`` (the navigation and the sidebar, in every picture),
``.streamlit/config.toml`` (the theme, the upload limit that pages state), ``pages/<page>.py`` and
every module of ``detox_core/ui/`` that these import, directly or through another one of them.
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMG = ROOT / "docs" / "site_src" / "guide" / "img"
MANIFEST = IMG / "screenshots.json"
#: The package whose modules draw the pages (the only Streamlit code of the library).
UI_PACKAGE = "detox_core.ui"
#: What every page is drawn with: the navigation and sidebar, the theme and the upload limit.
SHARED = ("app.py", ".streamlit/config.toml")


@dataclass(frozen=True)
class Shot:
    """One screenshot the docs show.

    Attributes:
        name: the file's name without ``.png`` in ``docs/site_src/guide/img/``.
        page: the page it shows: a file of ``pages/`` without ``.py``, or ``app`` (the sidebar).
        width: the browser window's width in CSS pixels.
    """

    name: str
    page: str
    width: int

    @property
    def file(self) -> str:
        return f"{self.name}.png"


#: The app's pages in the order of the user guide; ``app`` is the sidebar that ``app.py`` draws.
PAGES = ("corpus", "live_scoring", "submissions", "leaderboard", "compare", "human_eval", "annotate",
         "annotation_projects")

#: Every screenshot the docs show: each page at 1400 and at 800 px, the sidebar, and the pages in
#: a second state (a multilingual edition, a project's results, the LLM's rewrites).
SHOTS: tuple[Shot, ...] = (
    Shot("app", "app", 1400),
    *(Shot(page, page, 1400) for page in PAGES),
    *(Shot(f"{page}-800", page, 800) for page in PAGES),
    Shot("corpus_arabic", "corpus", 1400),
    Shot("live_scoring_arabic", "live_scoring", 1400),
    Shot("live_scoring_llm", "live_scoring", 1400),
    Shot("live_scoring_llm-800", "live_scoring", 800),
    Shot("live_scoring_llm_down-800", "live_scoring", 800),
    Shot("leaderboard_textdetox2024", "leaderboard", 1400),
    Shot("human_eval_judges", "human_eval", 1400),
    Shot("annotation_results", "annotation_projects", 1400),
)


def _component_file(node: ast.AST) -> str | None:
    """The file a ``source("name.js")`` call reads (:func:`detox_core.ui.components.source`), or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "source" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def _module_file(module: str) -> Path | None:
    """The source file of a module of ``detox_core.ui`` (a package's ``__init__.py``), or None."""
    path = ROOT.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _ui_imports(path: Path) -> set[Path]:
    """The files of ``detox_core.ui`` that the Python file ``path`` imports (anywhere in it:
    pages import some modules inside functions), each package on the way included, and the
    component files (JavaScript, CSS) it reads."""
    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if (component := _component_file(node)) is not None:  # source("annotate_page.js"): it draws too
            found.add(ROOT / "detox_core" / "ui" / "components" / component)
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from detox_core.ui.app import auth``: auth may be a module or a name of the package.
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        for name in names:
            if name != UI_PACKAGE and not name.startswith(UI_PACKAGE + "."):
                continue
            parts = name.split(".")
            for end in range(len(UI_PACKAGE.split(".")), len(parts) + 1):
                file = _module_file(".".join(parts[:end]))
                if file is not None:
                    found.add(file)
    return found


def sources(page: str) -> list[Path]:
    """The files that the page ``page`` (``app`` or a file of ``pages/`` without ``.py``) is drawn
    from, sorted: :data:`SHARED`, the page's file and the ``detox_core.ui`` modules they import,
    transitively."""
    start = [ROOT / name for name in SHARED]
    if page != "app":
        start.append(ROOT / "pages" / f"{page}.py")
    seen = set(start)
    todo = [p for p in start if p.suffix == ".py"]
    while todo:
        for file in _ui_imports(todo.pop()):
            if file not in seen:
                seen.add(file)
                if file.suffix == ".py":
                    todo.append(file)
    return sorted(seen)


def digest(page: str) -> str:
    """The SHA-256 of the files :func:`sources` names for ``page``: each file's path from the
    project's root and its text with Unix line ends, so that it is the same on every machine."""
    h = hashlib.sha256()
    for file in sources(page):
        text = file.read_text(encoding="utf-8").replace("\r\n", "\n")
        h.update(file.relative_to(ROOT).as_posix().encode() + b"\0" + text.encode() + b"\0")
    return h.hexdigest()


def record(shot: Shot) -> dict:
    """What the manifest says of ``shot`` once it has been taken from the current sources."""
    return {"page": shot.page, "width": shot.width, "sources": digest(shot.page)}


def read_manifest() -> dict[str, dict]:
    """The manifest: a screenshot's file name -> :func:`record` of when it was taken."""
    if not MANIFEST.is_file():
        return {}
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def write_manifest(entries: dict[str, dict]) -> None:
    """Writes the manifest sorted by file name, one entry a line block, so that a diff is short."""
    MANIFEST.write_text(json.dumps(dict(sorted(entries.items())), indent=2, ensure_ascii=False) + "\n",
                        encoding="utf-8")


def stale() -> list[str]:
    """The screenshots the docs show whose picture is missing, is not in the manifest, or was taken
    from other sources than the current ones (file names)."""
    manifest = read_manifest()
    return [shot.file for shot in SHOTS
            if not (IMG / shot.file).is_file() or manifest.get(shot.file) != record(shot)]
