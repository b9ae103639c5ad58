"""The app's components keep their JavaScript and CSS in real files (detox_core/ui/components),
checked as JavaScript by Node, and no Python module hides a long script or style sheet in a string."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

from detox_core.ui.components import source

ROOT = Path(__file__).resolve().parents[2]
COMPONENTS = ROOT / "detox_core" / "ui" / "components"
#: the most lines of JavaScript or CSS a Python string may hold (a one-line <script> is fine)
MAX_INLINE_LINES = 40
_CODE_MARKS = ("=>", "function", "querySelector", "addEventListener", "px;", "display:", "{ display")


def _node_check(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed here (the machine's `node` checks the components' JavaScript)")
    module = tmp_path / "component.mjs"  # the components are ES modules (export default function ...)
    module.write_text(text, encoding="utf-8")
    return subprocess.run([node, "--check", str(module)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", sorted(p.name for p in COMPONENTS.glob("*.js")))
def test_every_component_script_is_valid_javascript(name, tmp_path):
    run = _node_check(tmp_path, source(name))
    assert run.returncode == 0, run.stderr
    assert "export default function" in source(name)


def test_the_check_catches_a_broken_script(tmp_path):
    broken = source("heartbeat.js").replace("=>", "=>>", 1)
    run = _node_check(tmp_path, broken)
    assert run.returncode != 0 and "SyntaxError" in run.stderr


def test_the_annotation_page_draws_with_its_files():
    from detox_core.ui.annotate import page as annotate_page

    assert annotate_page._CSS == source("annotate_page.css") and ".ap-item" in annotate_page._CSS
    assert annotate_page._JS == source("annotate_page.js") and "setTriggerValue" in annotate_page._JS
    assert len(list(COMPONENTS.glob("*.js"))) >= 4 and len(list(COMPONENTS.glob("*.css"))) >= 1


def test_no_python_module_holds_a_long_script_or_style_sheet():
    found = []
    for path in sorted((ROOT / "detox_core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                lines = node.value.count("\n")
                if lines > MAX_INLINE_LINES and sum(mark in node.value for mark in _CODE_MARKS) >= 2:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} ({lines} lines)")
    assert not found, "JavaScript or CSS inside a Python string: " + ", ".join(found)
