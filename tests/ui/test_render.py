"""HTML of word diffs: marks, and escaping of every piece of user text."""

from __future__ import annotations

import html
import re

from detox_core.text import word_diff
from detox_core.ui.app.render import diff_html

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


def test_md_shows_user_text_literally():
    """File names, annotator names and URL parameters reach Markdown as text."""
    import markdown_it

    from detox_core.ui.app.render import md

    parser = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    hostile = [
        "![x](http://127.0.0.1:9/t.png)[link](http://e.x)**b**.txt",
        "<img src=x onerror=alert(1)> <b>bold</b>",
        "# heading", "- item", "1. item", "> quote", "`code`", "$x^2$", ":red[red] :smile:",
        "a_b_c *em* ~~del~~ | table |", "www.example.org and me@example.org", "&amp; &lt;",
    ]
    for text in hostile:
        html_out = parser.render(md(text))
        for tag in ("<img", "<a ", "<strong", "<em", "<h1", "<li", "<blockquote", "<code", "<del", "<table", "<b>"):
            assert tag not in html_out, (text, html_out)
    assert md("a\nb\r\n\tc") == "a b c"
    assert md("x" * 1000).endswith("…") and len(md("x" * 1000)) == 300
    assert md("train-999") == "train-999"


def test_chart_labels_keep_quotes_and_escape_markup():
    """Plotly reads labels as a little HTML without &quot;: a system named with quotes shows them,
    one named with a tag shows the tag as text."""
    import pandas as pd

    from detox_core.ui.leaderboard.board import p_value_heatmap

    names = ['team "alpha"', "<b>bold</b> & co"]
    fig = p_value_heatmap(pd.DataFrame([[1.0, 0.01], [0.01, 1.0]], index=names, columns=names))
    assert list(fig.data[0].x) == ['team "alpha"', "&lt;b&gt;bold&lt;/b&gt; &amp; co"]
