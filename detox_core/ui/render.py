"""HTML for diffs and highlighted text. Every piece of user text is escaped here."""

from __future__ import annotations

import html

from detox_core.text import Token, WordDiff

STYLE = """
<style>
.dx-text {font-size: 1.02rem; line-height: 1.7; white-space: pre-wrap; word-break: break-word;
          padding: .5rem .75rem; border-radius: .5rem; background: rgba(128,128,128,.08);}
.dx-del {background: rgba(230, 80, 80, .22); text-decoration: line-through; border-radius: 3px;}
.dx-ins {background: rgba(60, 170, 90, .25); border-radius: 3px;}
.dx-tox {font-weight: 700; border-bottom: 2px solid #c0392b;}
.dx-legend span {margin-right: 1rem; padding: 0 .3rem;}
</style>
"""


# (css class, tooltip) of each mark a token can carry.
_OP_MARK = {"delete": ("dx-del", "removed"), "insert": ("dx-ins", "added")}
_TOXIC_MARK = ("dx-tox", "lexicon word")


def token_html(tok: Token) -> str:
    """One token as HTML: its text escaped, wrapped in a span when it is marked."""
    marks = [m for m in (_OP_MARK.get(tok.op), _TOXIC_MARK if tok.toxic else None) if m]
    text = html.escape(tok.text)
    if not marks:
        return text
    classes = " ".join(c for c, _ in marks)
    title = ", ".join(t for _, t in marks)
    return f'<span class="{classes}" title="{title}">{text}</span>'


def tokens_html(tokens: list[Token]) -> str:
    """A block of text with its diff marks; every token's text is HTML-escaped."""
    return '<div class="dx-text">' + "".join(token_html(t) for t in tokens) + "</div>"


def diff_html(diff: WordDiff) -> tuple[str, str]:
    """HTML of the source side and of the target side of a word diff."""
    return tokens_html(diff.source), tokens_html(diff.target)


LEGEND = (
    '<div class="dx-legend"><span class="dx-del">removed</span><span class="dx-ins">added</span>'
    '<span class="dx-tox">lexicon word</span></div>'
)
