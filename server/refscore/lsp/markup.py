"""Hover text in the format the client asks for: markdown, or plain text when the client's
``hover.contentFormat`` prefers it (Emacs eglot without markdown-mode), so that ``**key**``,
link syntax and backslash escapes never show raw."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from ..bidi import printable

#: What ``plain_text`` undoes, left to right in one pass: an escape (its character stays), a link
#: (its label stays), the ``**`` or backtick RefScore wrote (goes). An escaped bracket, backtick or
#: star is the code's own: it is kept, and no link starts at it.
_MARKUP = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>])|\[((?:\\.|[^\]\\])*)\]\([^)\s]*\)|\*\*|`")
_SPECIAL = re.compile(r"([\\`*_\[\]<>])")


def escape(text: str) -> str:
    """``text`` (code the user wrote: ``__init__``, ``**kwargs``) as markdown that shows it as
    written inside a line: control and bidi characters as visible ``<U+001B>`` markers, the
    characters of emphasis, code, links and HTML backslash-escaped (``plain_text`` undoes it)."""
    return _SPECIAL.sub(r"\\\1", printable(text))


def prefers_plain_text(capabilities: Any) -> bool:
    """True when the client's first hover content format is plain text (or markdown is not
    among them); a client that says nothing gets markdown."""
    formats = getattr(getattr(getattr(capabilities, "text_document", None), "hover", None), "content_format", None)
    if not formats:
        return False
    return formats[0] == types.MarkupKind.PlainText or types.MarkupKind.Markdown not in formats


def plain_text(markdown: str) -> str:
    """The markdown RefScore writes, as plain text: links become their label, ``**`` and
    backticks go, escapes are undone."""
    def undo(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)
        return plain_text(match.group(2)) if match.group(2) is not None else ""

    return _MARKUP.sub(undo, markdown)


def hover_content(capabilities: Any, markdown: str) -> types.MarkupContent:
    """``markdown`` as the client wants hover contents; a control character that reached it
    unescaped (in a note) is shown as a marker too."""
    markdown = printable(markdown, keep="\n")
    if prefers_plain_text(capabilities):
        return types.MarkupContent(kind=types.MarkupKind.PlainText, value=plain_text(markdown))
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown)
