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


JS_REFERENCE = "// greetings\nconst greet = (name) => `hello ${name}`;\nconst cmd = `ls`;\n"
JS_CANDIDATE = "// greetings\nconst greet = (who) => `hello ${who}!`;\nconst cmd = `ls`;\n"


@pytest.mark.asyncio
async def test_backticks_of_the_code_show_as_written_in_plain_text(tmp_path: Path) -> None:
    """A token with backticks (a JavaScript template literal, a Ruby or shell command) shows its
    backticks in a plain-text hover: the escapes that keep them literal in markdown must go with
    them (before, "`hello" showed as "\\hello" and "`ls`;" as "\\ls\\;")."""
    (tmp_path / "g.ref.js").write_text(JS_REFERENCE, encoding="utf-8")
    cand = tmp_path / "g.js"
    cand.write_text(JS_CANDIDATE, encoding="utf-8")
    first, second = JS_CANDIDATE.splitlines()[1:]  # line 0 holds the summary
    async with session(tmp_path, capabilities=_plain_client()) as s:
        doc = s.open(cand, language_id="javascript")
        await s.wait_summary(doc)
        for line, column, token in ((1, first.index("`hello"), "`hello"), (1, first.index("${who}"), "${who}!`;"),
                                    (2, second.index("`ls"), "`ls`;")):
            hover = await s.hover(doc, line, column)
            assert hover is not None and hover.contents.kind == types.MarkupKind.PlainText, token
            assert hover.contents.value.splitlines()[0] == token, (token, hover.contents.value)
            assert "\\" not in hover.contents.value, hover.contents.value


def test_plain_text_keeps_the_codes_own_backticks_stars_and_backslashes() -> None:
    from refscore.lsp.markup import escape

    for code in ("`hi ${x}`", "``", "x_`y`_", "\\`", "a**b", "\\**", "[x](y)", "a\\b"):
        assert plain_text(f"**{escape(code)}** in [r.py](file:///r.py#L1)") == f"{code} in r.py", code
