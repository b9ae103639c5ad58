"""The docs' screenshots: every picture of the app the docs show is one that ``make screenshots``
(docs/take_screenshots.py) takes, at 1400 and at 800 px, and each was taken from the pages as the
code draws them now: its record in docs/site_src/guide/img/screenshots.json holds the digest of the
files its page is drawn from (docs/screenshots.py), which must be the current files' digest. No
browser runs here."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from detox_core.config import PROJECT_ROOT
from docs import screenshots
from tests.docs.conftest import SOURCES
from tests.docs.test_site import MAX_SHOT_BYTES, app_pages

#: A picture or a link to one in Markdown: ``![alt](path.png)`` or ``[text](path.png)``.
_PNG_RE = re.compile(r"\]\(([^)\s]+\.png)\)")


def shown_pictures() -> dict[Path, list[str]]:
    """Every PNG the docs site's pages and the README show or link: the file -> the pages."""
    found: dict[Path, list[str]] = {}
    pages = [*sorted(SOURCES.rglob("*.md")), PROJECT_ROOT / "README.md"]
    for page in pages:
        for target in _PNG_RE.findall(page.read_text(encoding="utf-8")):
            file = (page.parent / target).resolve()
            found.setdefault(file, []).append(str(page.relative_to(PROJECT_ROOT)))
    return found


def test_every_picture_the_docs_show_is_taken_by_the_screenshot_command():
    taken = {(screenshots.IMG / shot.file).resolve() for shot in screenshots.SHOTS}
    shown = shown_pictures()
    others = {str(file.relative_to(PROJECT_ROOT)): where for file, where in shown.items() if file not in taken}
    assert not others, f"pictures not taken by `make screenshots` (add them to docs/screenshots.py): {others}"
    unshown = sorted(str(file.relative_to(PROJECT_ROOT)) for file in taken - set(shown))
    assert not unshown, f"pictures `make screenshots` takes that no page shows: {unshown}"
    # Nothing else lies among them: an old picture left behind would be shown by nobody and go stale.
    left = sorted(p.name for p in screenshots.IMG.glob("*.png") if p.resolve() not in taken)
    assert not left, f"pictures no scene of docs/take_screenshots.py takes: {left}"


def test_every_page_has_its_picture_at_1400_and_at_800_px():
    by_page: dict[str, set[int]] = {}
    for shot in screenshots.SHOTS:
        by_page.setdefault(shot.page, set()).add(shot.width)
    for page in app_pages():
        assert page in by_page, f"no screenshot of {page}"
        if page != "app":  # the sidebar is the same at every width
            assert {1400, 800} <= by_page[page], (page, by_page[page])


def test_each_picture_is_there_small_and_as_wide_as_its_window():
    for shot in screenshots.SHOTS:
        path = screenshots.IMG / shot.file
        assert path.is_file(), f"{shot.file} is missing: run `make screenshots`"
        assert path.stat().st_size < MAX_SHOT_BYTES, (shot.file, path.stat().st_size)
        if shot.page != "app":  # the sidebar's picture is the sidebar alone
            with Image.open(path) as image:
                assert image.width == shot.width, (shot.file, image.size)


def test_each_picture_was_taken_from_the_pages_as_they_are_now():
    stale = screenshots.stale()
    pages = sorted({shot.page for shot in screenshots.SHOTS if shot.file in stale})
    assert not stale, (f"the code that draws {', '.join(pages)} changed since these pictures were taken: "
                       f"{', '.join(stale)}; run `make screenshots` and commit docs/site_src/guide/img/")


@pytest.fixture
def checkout(tmp_path, monkeypatch) -> Path:
    """A copy of the files pages are drawn from, which the digests of docs/screenshots.py read."""
    for name in ("app.py", ".streamlit/config.toml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT_ROOT / name, tmp_path / name)
    shutil.copytree(PROJECT_ROOT / "pages", tmp_path / "pages", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(PROJECT_ROOT / "detox_core" / "ui", tmp_path / "detox_core" / "ui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(screenshots, "ROOT", tmp_path)
    return tmp_path


def test_an_edit_of_a_page_s_drawing_code_makes_that_page_s_pictures_stale(checkout):
    before = {page: screenshots.digest(page) for page in app_pages()}
    assert before == {page: screenshots.digest(page) for page in app_pages()}  # deterministic
    # A section only Compare draws: Compare's pictures are stale, the Corpus's are not.
    section = checkout / "detox_core" / "ui" / "compare" / "systems.py"
    assert section in screenshots.sources("compare") and section not in screenshots.sources("corpus")
    section.write_text(section.read_text(encoding="utf-8") + "\n# another caption\n", encoding="utf-8")
    assert screenshots.digest("compare") != before["compare"]
    assert screenshots.digest("corpus") == before["corpus"]
    # The sidebar (app.py) is in every picture: its edit makes every page's stale.
    app = checkout / "app.py"
    app.write_text(app.read_text(encoding="utf-8") + "\n# another line\n", encoding="utf-8")
    assert all(screenshots.digest(page) != before[page] for page in app_pages())


def test_the_upload_limit_the_pages_state_is_among_their_sources(checkout):
    """Submissions states the upload limit of .streamlit/config.toml: a new limit is a new picture."""
    before = screenshots.digest("submissions")
    config = checkout / ".streamlit" / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("maxUploadSize = 25", "maxUploadSize = 50"),
                      encoding="utf-8")
    assert screenshots.digest("submissions") != before


def test_an_edit_of_a_component_s_script_makes_the_pages_that_draw_it_stale(checkout):
    """The annotation page draws with detox_core/ui/components/annotate_page.js: a new script is a new picture."""
    script = checkout / "detox_core" / "ui" / "components" / "annotate_page.js"
    assert script in screenshots.sources("annotate") and script not in screenshots.sources("corpus")
    before = {page: screenshots.digest(page) for page in ("annotate", "corpus")}
    script.write_text(script.read_text(encoding="utf-8") + "\n// another line\n", encoding="utf-8")
    assert screenshots.digest("annotate") != before["annotate"]
    assert screenshots.digest("corpus") == before["corpus"]
