"""MkDocs hooks of the docs site (docs/mkdocs.yml): what is generated at build time, so that it
cannot go stale.

- ``<!-- cli-reference -->`` in a page becomes the help of ``detox`` and of every subcommand, read
  from the parser itself (``detox_core.cli.build_parser``), in the order the parser lists them.
- ``<!-- exit-codes -->`` becomes the table of ``detox_core.cli.EXIT_CODES``.
- ``<!-- include: PATH -->`` becomes the file PATH of the repository (docs/DESIGN.md stays where it is).
- A Sphinx role left in a docstring (``:func:`score```) shows as its code alone on the API page.
- ``css/pygments.css``, the colours of the code blocks, is Pygments' own stylesheet for the classes
  that ``codehilite`` writes at build time: the site loads no script or font from the internet.

The pictures of the app (docs/site_src/guide/img/) are taken by ``make screenshots``
(docs/take_screenshots.py), each recorded with the digest of the code that draws its page.
"""

from __future__ import annotations

import argparse
import functools
import html
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The width of the generated help: the same on every machine (argparse reads the terminal's).
HELP_WIDTH = 100


def subcommands(parser: argparse.ArgumentParser) -> dict[str, tuple[str, argparse.ArgumentParser]]:
    """Every subcommand of ``parser``: its name -> (its one-line help, its parser)."""
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {name: (helps.get(name, ""), sub) for name, sub in action.choices.items()}


def _help(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = functools.partial(parser.formatter_class, width=HELP_WIDTH)
    return parser.format_help().rstrip()


def cli_reference() -> str:
    from detox_core.cli import build_parser

    parser = build_parser()
    out = ["### `detox`", "", "```text", _help(parser), "```", ""]
    for name, (summary, sub) in subcommands(parser).items():
        line = html.escape(f"{summary[:1].upper()}{summary[1:]}.") if summary else ""  # <edition> is text
        out += [f"### `detox {name}`", "", line, "",
                "```text", _help(sub), "```", ""]
    return "\n".join(out)


def exit_codes() -> str:
    from detox_core.cli import EXIT_CODES

    rows = [f"| {code} | {what} |" for code, what in EXIT_CODES.items()]
    return "\n".join(["| code | meaning |", "|---|---|", *rows])


#: Pygments' style of the code blocks (the theme's light colours, as highlight.js's ``github`` was).
PYGMENTS_STYLE = "default"


def pygments_css() -> str:
    """The stylesheet of the code blocks that ``codehilite`` colours at build time."""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style=PYGMENTS_STYLE).get_style_defs(".codehilite")


def on_files(files, config):
    """Adds the generated ``css/pygments.css`` (named in ``extra_css``) to the site."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, "css/pygments.css", content=pygments_css()))
    return files


def _include(match: re.Match) -> str:
    return (ROOT / match.group(1)).read_text(encoding="utf-8")


def on_page_markdown(markdown: str, page, config, files) -> str:
    if "<!-- cli-reference -->" in markdown:
        markdown = markdown.replace("<!-- cli-reference -->", cli_reference())
    if "<!-- exit-codes -->" in markdown:
        markdown = markdown.replace("<!-- exit-codes -->", exit_codes())
    return re.sub(r"<!-- include: (\S+) -->", _include, markdown)


#: A Sphinx cross-reference role left in a docstring (``:func:`score```), as the API page
#: renders it: the role's name before the code.
_ROLE_RE = re.compile(r":(?:func|meth|class|mod|data|attr|exc|obj):(?=<code>)")


def on_page_content(html: str, page, config, files) -> str:
    """The docstrings name code with Sphinx roles (``:func:`score```); the API page shows the
    code without the role's name."""
    return _ROLE_RE.sub("", html)
