"""Requests whose params do not fit get an error reply (never silence, never a traceback):
``textDocument/hover`` with a number for the URI or no position -> InvalidParams naming the field;
``refscore.setReference`` with bad arguments -> InvalidParams with one clear message."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp import samples
from tests.lsp.harness import session, uri
from tests.lsp.raw import RawServer, frame, request

INVALID_PARAMS = -32602


@pytest.mark.parametrize("params, field", [
    ({"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}}, "textDocument.uri"),
    ({"textDocument": {"uri": "file:///a.py"}}, "position"),
    ({"textDocument": {"uri": "file:///a.py"}, "position": {"line": "x", "character": 0}}, "position.line"),
])
def test_hover_with_invalid_params_gets_invalid_params(params: dict, field: str) -> None:
    """Raw bytes: a typed LSP client cannot send these params at all."""
    server = RawServer()
    try:
        server.initialize()
        server.send(frame(request(2, "textDocument/hover", params)))
        error = server.reply(2)["error"]
        assert error["code"] == INVALID_PARAMS
        assert "textDocument/hover" in error["message"] and field in error["message"]
        good = {"textDocument": {"uri": "file:///a.py"}, "position": {"line": 0, "character": 0}}
        server.send(frame(request(3, "textDocument/hover", good)))
        assert "error" not in server.reply(3)  # and the server goes on
    finally:
        assert server.close() == 0
    assert b"Traceback" not in server.stderr


@pytest.mark.parametrize("arguments, expected", [
    (["not a uri", 5], "the first argument must be a document URI"),
    ([5], "the first argument must be a document URI"),
    ([], "no arguments given"),
    (["file:///a.py", 5], "the second argument must be a path, a list of paths or null, not 5"),
    (["file:///a.py", ["ok.py", 3]], "the second argument must be a path"),
    (["file:///a.py", "\u0000"], "a path holds a NUL character"),  # was -32603 "embedded null byte"
])
@pytest.mark.asyncio
async def test_set_reference_with_bad_arguments_gets_one_clear_message(tmp_path: Path, arguments: list,
                                                                        expected: str) -> None:
    async with session(tmp_path) as s:
        with pytest.raises(JsonRpcException) as caught:
            await s.command("refscore.setReference", *arguments)
        error = caught.value
        assert error.code == INVALID_PARAMS
        assert expected in error.message and "refscore.setReference takes" in error.message
        assert "Traceback" not in error.message and "\n" not in error.message
        assert not error.data  # no traceback in the data either


@pytest.mark.asyncio
async def test_set_reference_still_accepts_good_arguments(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "g")
    other = tmp_path / "other.py"
    other.write_text(samples.REFERENCE, encoding="utf-8")
    async with session(tmp_path) as s:
        doc = s.open(cand)
        result = await s.command("refscore.setReference", doc, "other.py")
        assert result["references"] == [uri(other)]
        assert (await s.command("refscore.setReference", doc, None))["references"] == []


@pytest.mark.parametrize("command, arguments, expected", [
    ("refscore.missingFromReference", [], "refscore.missingFromReference takes [documentUri]"),
    ("refscore.missingFromReference", [5], "the first argument must be a document URI"),
    ("refscore.noSuchCommand", ["file:///a.py"], "refscore.noSuchCommand"),
])
@pytest.mark.asyncio
async def test_other_commands_with_bad_arguments_get_one_line_and_no_traceback(
        tmp_path: Path, command: str, arguments: list, expected: str) -> None:
    async with session(tmp_path) as s:
        with pytest.raises(JsonRpcException) as caught:
            await s.command(command, *arguments)
        error = caught.value
        assert expected in error.message
        assert "Traceback" not in error.message and "\n" not in error.message.strip()
        assert not error.data, error.data  # pygls put the server's traceback here
        assert all("Traceback" not in m.message and "\n" not in m.message.strip() for m in s.client.messages)


@pytest.mark.asyncio
async def test_changes_to_a_document_that_is_not_open_are_ignored_quietly(tmp_path: Path) -> None:
    """A client's didChange/didSave/didClose for a document it never opened: ignored (one log
    line), no message to the user (pygls raised KeyError, shown as an error), and the document
    is scored normally once it is opened."""
    cand = samples.write_pair(tmp_path, "n")
    async with session(tmp_path) as s:
        doc = uri(cand)
        s.versions[doc] = 1
        s.insert(doc, 0, 0, "x")
        s.client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=doc)))
        s.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=doc)))
        assert await s.hover(doc, 0, 0) is None
        opened = s.open(cand)
        await s.wait_summary(opened, version=1)
        assert s.client.messages == []


def test_failed_requests_leave_one_log_line_and_no_traceback() -> None:
    """The server's log (what the editor shows as its output) gets one line per failed request:
    pygls logged a full traceback even for a bad argument answered with InvalidParams."""
    server = RawServer()
    try:
        server.initialize()
        for request_id, command, args in ((2, "refscore.setReference", []), (3, "refscore.missingFromReference", [5]),
                                          (4, "refscore.noSuchCommand", [])):
            server.send(frame(request(request_id, "workspace/executeCommand", {"command": command, "arguments": args})))
            assert server.reply(request_id)["error"]["code"] == INVALID_PARAMS
    finally:
        assert server.close() == 0
    assert b"Traceback" not in server.stderr and b'File "' not in server.stderr, server.stderr[-1500:]
    assert server.log_lines("refscore.missingFromReference takes [documentUri]")


def test_score_text_with_a_lone_surrogate_gets_invalid_params() -> None:
    """``"\\udc00"`` in the JSON text decodes to a lone surrogate (issue 25, item 14)."""
    server = RawServer()
    try:
        server.initialize()
        body = b'{"jsonrpc": "2.0", "id": 2, "method": "refscore/scoreText", ' \
               b'"params": {"uri": "file:///a.py", "text": "x = \\"\\udc00\\"\\n"}}'
        server.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        error = server.reply(2)["error"]
        assert error["code"] == INVALID_PARAMS and "lone surrogate (U+DC00)" in error["message"], error
    finally:
        assert server.close() == 0
    assert b"UnicodeEncodeError" not in server.stderr


@pytest.mark.parametrize("raw_id", [b'{"x":1}', b"true", b"NaN", b"1.5"])
def test_a_request_whose_id_is_not_a_string_or_an_integer_is_an_invalid_request(raw_id: bytes) -> None:
    """One answer each, with id null, naming the id as the client wrote it (issue 25, item 19)."""
    server = RawServer()
    try:
        server.initialize()
        body = b'{"jsonrpc": "2.0", "id": %s, "method": "refscore/scoreText", ' \
               b'"params": {"uri": "file:///a.py", "text": "x"}}' % raw_id
        server.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        error = server.reply(None)["error"]
        assert error["code"] == -32600, error
        assert f"the id {raw_id.decode().replace(':', ': ')} of refscore/scoreText" in error["message"], error
        server.send(frame(request(3, "refscore/scoreText", {"uri": "file:///a.py", "text": "x"})))
        assert "result" in server.reply(3)
    finally:
        assert server.close() == 0
    assert b"Traceback" not in server.stderr
