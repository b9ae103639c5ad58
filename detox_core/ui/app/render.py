"""HTML for diffs and highlighted text, and user text made safe for Markdown.

Every piece of user text is escaped here: :func:`md` for Streamlit's Markdown (messages,
headings, captions, labels), ``html.escape`` for the HTML blocks.
"""

from __future__ import annotations

import html
import re

from detox_core.text import Token, WordDiff

STYLE = """
<style>
.dx-text {font-size: 1.02rem; line-height: 1.7; white-space: pre-wrap; word-break: break-word;
          padding: .5rem .75rem; border-radius: .5rem; background: rgba(128,128,128,.08);
          unicode-bidi: plaintext; text-align: start;}
.dx-del {background: rgba(230, 80, 80, .22); text-decoration: line-through; border-radius: 3px;}
.dx-ins {background: rgba(60, 170, 90, .25); border-radius: 3px;}
.dx-tox {font-weight: 700; border-bottom: 2px solid #c0392b;}
.dx-legend span {margin-right: 1rem; padding: 0 .3rem;}
</style>
"""


# Characters that start Markdown markup inline: emphasis, code, links and images,
# HTML, math ($), Streamlit's :color[...] directives and :emoji: codes, tables,
# strike-through, entities. Backslash-escaping them (CommonMark allows it for any ASCII
# punctuation) shows them as typed; a line start that would open a block (a list, a
# heading, a quote) is escaped too.
_MD_INLINE = re.compile(r"([\\`*_{}\[\]()<>#+!|~$:&@])")
# Bare addresses become links in GitHub-flavoured Markdown, after escapes are resolved:
# a zero-width space after the scheme or "www" and before "@" breaks them invisibly.
_MD_AUTOLINK = re.compile(r"(?i)(https?|ftp|mailto|www)(?=[:.])|(?=@)")
_MD_BLOCK_START = re.compile(r"^(\d+)([.)])|^([-=>])")
_MD_MAX_CHARS = 300


def md(text: object, max_chars: int | None = _MD_MAX_CHARS) -> str:
    """``text`` as literal Markdown: shown exactly as typed, never as markup.

    Runs of white space and line breaks become one space (a user string is shown
    inline), NUL bytes are dropped, an invisible zero-width space keeps a bare address
    (``http://…``, ``www.…``, ``a@b``) from becoming a link, and a text longer than
    ``max_chars`` is shortened with an ellipsis, so a file name or an annotator name
    cannot flood a message.
    """
    s = " ".join(str(text).replace("\x00", "").split())
    if max_chars is not None and len(s) > max_chars:
        s = s[: max_chars - 1] + "…"
    s = _MD_AUTOLINK.sub(lambda m: (m[1] or "") + "\u200b", s)
    s = _MD_INLINE.sub(r"\\\1", s)
    return _MD_BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", s)


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


def text_html(text: str) -> str:
    """A text shown as a block in its own direction (Arabic and Hebrew right to left), escaped."""
    return f'<div class="dx-text">{html.escape(text)}</div>'


def diff_html(diff: WordDiff) -> tuple[str, str]:
    """HTML of the source side and of the target side of a word diff."""
    return tokens_html(diff.source), tokens_html(diff.target)


LEGEND = (
    '<div class="dx-legend"><span class="dx-del">removed</span><span class="dx-ins">added</span>'
    '<span class="dx-tox">lexicon word</span></div>'
)


def plot_text(text: object) -> str:
    """A name (a system, a curve) as a Plotly label shows it as typed: Plotly reads labels as a
    little HTML, so ``<``, ``>`` and ``&`` are escaped; quotes are not (Plotly has no ``&quot;``
    and would show it as such)."""
    return html.escape(str(text), quote=False)

