"""Messages before ``initialize`` (a client that starts talking early, or a test harness that
hovers at once): LSP says a request gets the error ServerNotInitialized (-32002) and a
notification is dropped. Before, a hover was answered InternalError "RuntimeError: The workspace
is not available - has the server been initialized?", and the user was shown
"RefScore: internal error: ..." as an Error pop-up."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import client_capabilities, make_test_lsp_client

from tests.lsp import samples
from tests.lsp.harness import WAIT, _close, server_command, server_env, session, uri

pytestmark = pytest.mark.asyncio


async def test_a_request_before_initialize_is_server_not_initialized(tmp_path: Path) -> None:
    cand = samples.write_pair(tmp_path, "task")
    client = make_test_lsp_client()
    await client.start_io(*server_command(), env=server_env())
    try:
        client.capabilities = client_capabilities("visual-studio-code")  # pytest-lsp checks messages against them
        client.protocol.notify(types.TEXT_DOCUMENT_DID_OPEN, types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=uri(cand), language_id="python", version=1, text=samples.CANDIDATE)))
        with pytest.raises(JsonRpcException) as raised:
            await asyncio.wait_for(client.protocol.send_request_async(types.TEXT_DOCUMENT_HOVER, types.HoverParams(
                types.TextDocumentIdentifier(uri(cand)), types.Position(0, 1))), WAIT)
        assert raised.value.code == types.ErrorCodes.ServerNotInitialized, raised.value
        assert "internal error" not in str(raised.value).lower() and "RuntimeError" not in str(raised.value)
        await asyncio.wait_for(client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=uri(tmp_path))), WAIT)
        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri(cand)), types.Position(0, 1))), WAIT)
        assert hover is None  # the early didOpen was dropped: the document is not open
        await asyncio.sleep(0.3)
        assert not [m for m in client.messages if "internal error" in m.message], client.messages
    finally:
        await _close(client)


async def test_a_second_initialize_is_invalid_request_and_changes_nothing(tmp_path: Path) -> None:
    """LSP: initialize is sent once; a second one gets InvalidRequest. pygls ran it again: a new
    workspace (at the new root, without the open documents) and the new options."""
    cand = samples.write_pair(tmp_path, "task")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with session(tmp_path) as s:
        doc = s.open(cand)
        summary = await s.wait_summary(doc)
        with pytest.raises(JsonRpcException) as raised:
            await asyncio.wait_for(s.client.protocol.send_request_async(types.INITIALIZE, types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"), root_uri=uri(elsewhere),
                initialization_options={"tokenScores": True})), WAIT)
        assert raised.value.code == types.ErrorCodes.InvalidRequest, raised.value
        assert "initialize" in str(raised.value)
        hover = await s.hover(doc, summary.range.start.line, 0)  # the document is still open, scored
        assert hover is not None and "RefScore" in hover.contents.value
        version = s.replace_all(doc, samples.CANDIDATE + "\n# edited\n")
        await s.wait_summary(doc, version=version)
        assert s.token_scores == [] and not s.client.messages, s.client.messages
