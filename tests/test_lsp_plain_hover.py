"""Hovers in the client's ``hover.contentFormat`` (issue 25, item 17): a client that asks for
plain text (Emacs eglot without markdown-mode) gets plain text, never raw markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from refscore.lsp.markup import plain_text, prefers_plain_text
from tests.lsp import samples
from tests.lsp.harness import session

RAW_MARKDOWN = ("**", "](file:", "\\[", "`")


def _plain_client() -> types.ClientCapabilities:
    caps = client_capabilities("emacs")
    caps.text_document.hover = types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText])
    return caps


def test_plain_text_undoes_the_markdown_refscore_writes() -> None:
    markdown = "**RefScore** vs [h.ref.py](file:///x/h.ref.py#L1) (pattern \\[a-z'\\]+, `refscore.x`)"
    assert plain_text(markdown) == "RefScore vs h.ref.py (pattern [a-z']+, refscore.x)"
    assert prefers_plain_text(_plain_client()) and not prefers_plain_text(client_capabilities("emacs"))
    assert not prefers_plain_text(types.ClientCapabilities())


@pytest.mark.asyncio
async def test_a_client_that_asks_for_plain_text_gets_plain_hovers(tmp_path: Path) -> None:
    (tmp_path / "h.ref.py").write_text(samples.REFERENCE, encoding="utf-8")
    cand = tmp_path / "h.py"
    cand.write_text(samples.CANDIDATE, encoding="utf-8")
    async with session(tmp_path, capabilities=_plain_client()) as s:
        doc = s.open(cand)
        await s.wait_summary(doc)
        summary = await s.hover(doc, 0, 3)
        line = samples.CANDIDATE.splitlines()[3]
        token = await s.hover(doc, 3, line.index("elif") + 1)
    for hover in (summary, token):
        assert hover.contents.kind == types.MarkupKind.PlainText
        assert not any(mark in hover.contents.value for mark in RAW_MARKDOWN), hover.contents.value
    assert summary.contents.value.startswith("RefScore vs h.ref.py") and "CodeBLEU" in summary.contents.value
    assert token.contents.value.startswith("elif\n")
