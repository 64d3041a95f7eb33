"""Hovers are markdown, and a token is code the user wrote: ``__init__``, ``**kwargs``,
``*args``, ``x_1_y`` must show as written. Before, the token went into ``**...**`` as it was, so
``__init__`` rendered as a bold "init", ``**kwargs)`` lost its stars and ``*args,`` turned the
rest of the line into italics; in plain text (eglot), ``**kwargs`` became ``kwargs``."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.harness import session

markdown_it = pytest.importorskip("markdown_it")
pytestmark = pytest.mark.asyncio

REFERENCE = "class Point:\n    def __init__(self, *args, **kwargs):\n        self.x_1_y = [args, kwargs]\n"
CANDIDATE = "class Point:\n    def __init__(self, *args, **kwargs):\n        self.x_1_y = <b>[args]\n"


def rendered(markdown: str) -> str:
    """The text a CommonMark client shows (tags dropped), and whether it put in emphasis."""
    out = markdown_it.MarkdownIt("commonmark").render(markdown)
    return html.unescape(re.sub(r"<(?!/?strong>)[^>]+>", "", out))


async def test_tokens_show_as_written_in_markdown_and_plain_text(tmp_path: Path) -> None:
    (tmp_path / "p.ref.py").write_text(REFERENCE, encoding="utf-8")
    cand = tmp_path / "p.py"
    cand.write_text(CANDIDATE, encoding="utf-8")
    plain = types.ClientCapabilities(text_document=types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText])))
    line1, line2 = CANDIDATE.splitlines()[1], CANDIDATE.splitlines()[2]
    tokens = {(1, line1.index("__init__")): "__init__(self,", (1, line1.index("*args")): "*args,",
              (1, line1.index("**kwargs")): "**kwargs):", (2, line2.index("x_1_y")): "self.x_1_y",
              (2, line2.index("<b>")): "<b>[args]"}
    async with session(tmp_path) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        for (line, character), token in tokens.items():
            hover = await s.hover(doc, line, character)
            assert hover is not None, token
            first = rendered(hover.contents.value).strip().splitlines()[0]
            assert first.startswith(f"<strong>{token}</strong>"), (token, hover.contents.value, first)
    async with session(tmp_path, capabilities=plain) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        for (line, character), token in tokens.items():
            hover = await s.hover(doc, line, character)
            assert hover is not None and hover.contents.kind == types.MarkupKind.PlainText
            assert hover.contents.value.splitlines()[0] == token, (token, hover.contents.value)
