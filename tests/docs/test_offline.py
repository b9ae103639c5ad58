"""The docs site works offline: no page loads a script, a stylesheet, a font, an icon or a picture
from the internet (the mkdocs theme would take highlight.js from a CDN), every asset a page or a
stylesheet names is in the built site, and code blocks are still coloured."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

#: The attributes that make a browser fetch something when the page loads (``<a href>`` does not).
_LOADING = {("script", "src"), ("link", "href"), ("img", "src"), ("img", "srcset"), ("source", "src"),
            ("source", "srcset"), ("iframe", "src"), ("video", "src"), ("video", "poster"), ("audio", "src"),
            ("embed", "src"), ("object", "data"), ("input", "src"), ("track", "src")}
#: ``url(...)`` and ``@import "..."`` in a stylesheet or a style attribute.
_CSS_URL_RE = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


class _Assets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self._style = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value and (tag, name) in _LOADING:
                self.urls += [part.split()[0] for part in value.split(",") if part.strip()] if name == "srcset" \
                    else [value]
            if value and name == "style":
                self.urls += _css_urls(value)
        self._style = tag == "style"

    def handle_endtag(self, tag):
        self._style = False

    def handle_data(self, data):
        if self._style:
            self.urls += _css_urls(data)


def _css_urls(css: str) -> list[str]:
    return [a or b for a, b in _CSS_URL_RE.findall(css)]


def _remote(url: str) -> bool:
    return url.startswith("//") or urlsplit(url).scheme not in ("", "data")


def _assets(site_root: Path) -> dict[Path, list[str]]:
    """What each built page and stylesheet makes the browser load: the file -> its URLs."""
    found: dict[Path, list[str]] = {}
    for page in site_root.rglob("*.html"):
        parser = _Assets()
        parser.feed(page.read_text(encoding="utf-8"))
        found[page] = parser.urls
    for sheet in site_root.rglob("*.css"):
        found[sheet] = _css_urls(sheet.read_text(encoding="utf-8"))
    return found


def test_no_page_loads_anything_from_the_internet(site):
    assert site.returncode == 0, site.log[-3000:]
    remote = {str(file.relative_to(site.root)): [u for u in urls if _remote(u)]
              for file, urls in _assets(site.root).items()}
    remote = {file: urls for file, urls in remote.items() if urls}
    assert not remote, remote


def test_every_asset_a_page_or_a_stylesheet_loads_is_in_the_site(site):
    """The icon font, the scripts and the stylesheets are shipped with the site, not just named."""
    missing = {}
    fonts = set()
    for file, urls in _assets(site.root).items():
        for url in urls:
            if _remote(url) or url.startswith("data:"):
                continue
            path = urlsplit(url).path
            # 404.html names its assets from the site's root: it is served for any address.
            target = (site.root / path.lstrip("/") if path.startswith("/") else file.parent / path).resolve()
            if not target.is_file():
                missing.setdefault(str(file.relative_to(site.root)), []).append(url)
            if target.suffix in (".woff2", ".woff", ".ttf"):
                fonts.add(target.name)
    assert not missing, missing
    assert any(name.startswith("fa-solid") for name in fonts), fonts  # the theme's icon font


def test_code_blocks_are_coloured_without_a_script(site):
    html = (site.root / "getting-started.html").read_text(encoding="utf-8")
    # The shell example is coloured at build time (a comment's span), and its stylesheet is shipped.
    assert '<div class="codehilite">' in html and '<span class="c1">' in html
    assert 'href="css/pygments.css"' in html
    css = (site.root / "css" / "pygments.css").read_text(encoding="utf-8")
    assert ".codehilite .c1" in css
    assert "hljs" not in html
