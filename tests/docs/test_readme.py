"""The README a newcomer reads in five minutes: short, its links resolve, and its path into the
docs (README -> the user guide -> one page's doc) holds; the sections other files send readers
to are still there."""

from __future__ import annotations

import re
from pathlib import Path

from detox_core.config import PROJECT_ROOT
from tests.docs.conftest import GUIDE

README = PROJECT_ROOT / "README.md"
MAX_LINES = 250
#: A Markdown link or image: [text](target) or ![alt](target), the target without a title.
LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]+)\)")


def links(path: Path) -> list[tuple[str, str]]:
    """(text, target) of every link of the Markdown file ``path``, outside code blocks and spans."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return LINK.findall(re.sub(r"`[^`\n]*`", "", text))


def slug(heading: str) -> str:
    """A heading's anchor as GitHub and MkDocs' toc make it (for the headings used here)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r"\s", "-", text)


def resolve(source: Path, target: str) -> Path | None:
    """The file a relative link of ``source`` points to (None for a web address); an anchor
    must be a heading of that file."""
    if re.match(r"^[a-z]+:", target):
        return None
    file, _, anchor = target.partition("#")
    path = (source.parent / file).resolve() if file else source
    assert path.is_file(), f"{source.relative_to(PROJECT_ROOT)}: the link {target} points to no file"
    assert PROJECT_ROOT in path.parents, f"{source.relative_to(PROJECT_ROOT)}: {target} leaves the repository"
    if anchor and path.suffix == ".md":
        headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S),
                              re.M)
        assert anchor in {slug(h) for h in headings}, f"{source.relative_to(PROJECT_ROOT)}: no heading #{anchor}"
    return path


def test_the_readme_is_read_in_five_minutes():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < MAX_LINES, f"the README has {len(lines)} lines: move the detail into docs/site_src/"


def test_every_relative_link_of_the_readme_resolves():
    found = links(README)
    assert len(found) >= 10
    for _, target in found:
        resolve(README, target)


def test_the_readme_shows_the_app_and_gives_the_two_commands():
    text = README.read_text(encoding="utf-8")
    (shot,) = [t for label, t in LINK.findall(text) if t.endswith(".png") and "Corpus" in label]
    assert resolve(README, shot).stat().st_size < 250 * 1024
    block = text.split("## Start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in block.splitlines()] == [["make", "run"], ["make", "test"]]


def test_a_new_reader_finds_a_pages_doc_from_the_readme():
    """README -> the user guide's index -> the Corpus page's doc, each step a link followed."""
    (guide,) = {resolve(README, t) for label, t in links(README) if label.lower() == "user guide"}
    assert guide == GUIDE / "index.md"
    pages = {resolve(guide, t) for _, t in links(guide) if not t.startswith(("http", "../", "#", "img/"))}
    assert GUIDE / "corpus.md" in pages and len(pages) >= 9
    corpus = GUIDE / "corpus.md"
    shots = [resolve(corpus, t) for label, t in links(corpus) if t.endswith(".png")]
    assert shots and all(p.is_file() for p in shots)
    assert "search" in corpus.read_text(encoding="utf-8").lower()


def test_every_relative_link_of_the_docs_sources_resolves():
    """The sources read as they are (on a code host, in an editor): their links resolve without
    the build too."""
    for page in sorted((GUIDE.parent).rglob("*.md")):
        for _, target in links(page):
            resolve(page, target)


def test_the_sections_other_files_send_readers_to_are_in_the_readme():
    """The app, the deployment's script and CI point readers at README sections by name."""
    headings = set(re.findall(r"^## (.+)$", README.read_text(encoding="utf-8"), re.M))
    pointers = set()
    for path in [*(PROJECT_ROOT / "detox_core").rglob("*.py"), *(PROJECT_ROOT / "deploy").rglob("*"),
                 PROJECT_ROOT / "Makefile", *(PROJECT_ROOT / ".ci").iterdir()]:
        if path.is_file() and path.suffix not in {".png", ".npz", ".txt"}:
            text = path.read_text(encoding="utf-8", errors="replace")
            pointers |= set(re.findall(r"README: ([A-Z][\w ]+?)\)", text))
            pointers |= set(re.findall(r"README's \"([^\"]+)\" section", text))
    assert {"Deploying for a shared task", "Install as a library and a dashboard"} <= pointers
    assert pointers <= headings, pointers - headings


#: A path of the repository named in the docs, in backticks: `detox_core/api.py`, `deploy/run.sh`.
REPO_PATH = re.compile(r"`((?:detox_core|tests|benchmarks|deploy|docs|pages|\.ci)/[\w./-]*)`")


def test_every_file_the_docs_name_is_in_the_repository():
    """A renamed or moved module makes the page that names it wrong: the docs name what is there
    (paths with a placeholder, such as `<lang>.txt`, are left out)."""
    missing = []
    for page in [README, *sorted(GUIDE.parent.rglob("*.md")), PROJECT_ROOT / "docs" / "DESIGN.md"]:
        for path in REPO_PATH.findall(page.read_text(encoding="utf-8")):
            if not (PROJECT_ROOT / path).exists():
                missing.append(f"{page.relative_to(PROJECT_ROOT)}: {path}")
    assert not missing, missing
