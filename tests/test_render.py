"""HTML of word diffs: marks, and escaping of every piece of user text."""

from __future__ import annotations

import html
import re

from detox_core.text import word_diff
from detox_core.ui.render import diff_html

LEX = frozenset({"тупой"})


def visible(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_marks_and_escaping():
    src, tgt = diff_html(word_diff('<img src=x onerror="alert(1)"> тупой', "<b>умный</b>", LEX))
    assert "<img" not in src and "<b>" not in tgt and "&quot;" in src
    # What a reader sees is exactly the user's text.
    assert visible(src) == '<img src=x onerror="alert(1)"> тупой' and visible(tgt) == "<b>умный</b>"
    assert '<span class="dx-del dx-tox" title="removed, lexicon word">тупой</span>' in src
    assert '<span class="dx-ins" title="added">умный</span>' in tgt


def test_unchanged_tokens_are_plain_text():
    src, tgt = diff_html(word_diff("а & б", "а & б"))
    assert src == tgt == '<div class="dx-text">а &amp; б</div>'
