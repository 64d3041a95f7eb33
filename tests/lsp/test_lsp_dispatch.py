"""The protocol hands each structured message to pygls's request or notification handling by its
fields (a method and an id: a request; a method only: a notification), as pygls's own dispatch
does by its runtime-checkable protocols, and leaves responses, other versions and messages after
``shutdown`` to pygls (lsp/protocol.py ``handle_message``)."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol.json_rpc import JsonRPCResponseMessage

from refscore.lsp.app import build_server


@pytest.fixture
def calls(monkeypatch) -> list[tuple[Any, ...]]:
    seen: list[tuple[Any, ...]] = []
    protocol_class = type(build_server(allow_daemon=False).protocol)
    monkeypatch.setattr(protocol_class, "_handle_request", lambda self, *args: seen.append(("request", *args)))
    monkeypatch.setattr(protocol_class, "_handle_notification", lambda self, *args: seen.append(("notification", *args)))
    monkeypatch.setattr(protocol_class, "_handle_response", lambda self, *args: seen.append(("response", *args)))
    return seen


def _protocol() -> Any:
    return build_server(allow_daemon=False).protocol


def test_requests_and_notifications_reach_their_handlers(calls: list) -> None:
    protocol = _protocol()
    hover = types.HoverParams(types.TextDocumentIdentifier("file:///a.py"), types.Position(0, 0))
    protocol.handle_message(types.HoverRequest(id=0, params=hover))  # id 0 is an id
    change = types.DidSaveTextDocumentParams(types.TextDocumentIdentifier("file:///a.py"))
    protocol.handle_message(types.DidSaveTextDocumentNotification(params=change))
    assert calls == [("request", 0, "textDocument/hover", hover), ("notification", "textDocument/didSave", change)]


def test_responses_and_messages_after_shutdown_go_through_pygls(calls: list) -> None:
    protocol = _protocol()
    protocol.handle_message(JsonRPCResponseMessage(id=7, jsonrpc="2.0", result=None))  # an answer to the server
    assert calls and calls[0][0] == "response"
    protocol._shutdown = True
    protocol.handle_message(types.DidSaveTextDocumentNotification(
        params=types.DidSaveTextDocumentParams(types.TextDocumentIdentifier("file:///a.py"))))
    assert len(calls) == 1  # pygls drops it: the server is shutting down
    protocol.handle_message(types.ExitNotification())
    assert calls[-1][:2] == ("notification", "exit")
