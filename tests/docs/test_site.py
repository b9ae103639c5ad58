"""The docs site (docs/mkdocs.yml): it builds with no warning, the command line's reference holds
every command of the parser, every page of the app has its page in the user guide with its
screenshot, and the API page and the design are in it."""

from __future__ import annotations

import argparse
import re
from html import unescape

from detox_core.config import PROJECT_ROOT
from tests.docs.conftest import GUIDE, SOURCES, build_site

#: A user guide's screenshot stays small enough for the repository.
MAX_SHOT_BYTES = 250 * 1024


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def app_pages() -> list[str]:
    """The pages of the app, from its files: app.py (the navigation and the sidebar) and pages/*.py."""
    return ["app", *sorted(p.stem for p in (PROJECT_ROOT / "pages").glob("*.py"))]


def commands() -> dict[str, argparse.ArgumentParser]:
    from detox_core.cli import build_parser

    (action,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def test_the_site_builds_strictly_without_a_warning(site):
    assert site.returncode == 0, site.log[-3000:]
    assert "WARNING" not in site.log and "ERROR" not in site.log, site.log[-3000:]
    assert (site.root / "index.html").is_file()


def test_a_broken_link_fails_the_build(tmp_path):
    """The strict build is what catches a broken link: a copy of the sources with one link
    broken does not build."""
    import shutil

    copy = tmp_path / "docs"
    shutil.copytree(SOURCES.parent, copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "img"))
    page = copy / "site_src" / "getting-started.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[gone](no-such-page.md)\n", encoding="utf-8")
    broken = build_site(tmp_path / "out", copy / "mkdocs.yml")
    assert broken.returncode != 0 and "no-such-page.md" in broken.log


def test_every_command_of_the_parser_is_in_the_command_line_reference(site):
    html = (site.root / "cli.html").read_text(encoding="utf-8")
    text = _text(html)
    found = commands()
    assert len(found) >= 10
    for name, parser in found.items():
        assert f"detox {name}" in text, name
        # its whole help, as the parser prints it: usage and every option
        assert f"usage: detox {name}" in text, name
        for action in parser._actions:
            for flag in action.option_strings:
                assert flag in text, (name, flag)


def test_every_page_of_the_app_has_its_guide_page_with_a_screenshot(site):
    index = (site.root / "guide" / "index.html").read_text(encoding="utf-8")
    for stem in app_pages():
        source = GUIDE / f"{stem}.md"
        assert source.is_file(), f"no user guide page for {stem}: write docs/site_src/guide/{stem}.md"
        markdown = source.read_text(encoding="utf-8")
        assert (f"`pages/{stem}.py`" if stem != "app" else "`app.py`") in markdown, stem
        assert (site.root / "guide" / f"{stem}.html").is_file(), stem
        assert f'href="{stem}.html"' in index, f"the user guide's index does not link {stem}"
        shots = re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", markdown)
        assert shots, f"guide/{stem}.md shows no screenshot of its own"
        for shot in shots:
            path = GUIDE / shot
            assert path.is_file() and path.stat().st_size < MAX_SHOT_BYTES, (stem, shot)
            assert (site.root / "guide" / shot).is_file(), (stem, shot)


def test_the_api_reference_comes_from_the_docstrings(site):
    import detox_core.api

    text = _text((site.root / "api.html").read_text(encoding="utf-8"))
    assert "score(" in text and "Scores" in text
    # the first sentence of score()'s docstring, as the code has it now
    first = " ".join(detox_core.api.score.__doc__.split("\n\n")[0].split())
    assert " ".join(first.split()[:8]) in " ".join(text.split())
    # The docstrings' Sphinx roles (":func:`score`") read as the code they name, not as markup.
    assert not re.search(r":(func|meth|class|mod|data|attr|exc|obj):", text)


def test_the_design_is_in_the_site_as_docs_design_says(site):
    design = (PROJECT_ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    text = " ".join(_text((site.root / "design.html").read_text(encoding="utf-8")).split())
    for heading in re.findall(r"^## (.+)$", design, re.M):
        assert heading in text, heading
