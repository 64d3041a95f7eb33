"""A client without ``workspace/configuration`` gives its settings in ``initializationOptions``
and pushes changes in ``workspace/didChangeConfiguration``: a bad value is shown to the user once
(it was only written to the server's log) and its default is used."""

from __future__ import annotations

import time

from tests.lsp.raw import RawServer, frame, notification, request


def shown(server: RawServer, seconds: float = 3.0) -> list[str]:
    """The window/showMessage texts that arrive within ``seconds`` (a ping marks the end)."""
    deadline = time.monotonic() + seconds
    ping = 500
    while time.monotonic() < deadline:
        ping += 1
        server.send(frame(request(ping, "textDocument/hover", {
            "textDocument": {"uri": "file:///none.py"}, "position": {"line": 0, "character": 0}})))
        server.reply(ping)
        time.sleep(0.1)
    return [m["params"]["message"] for m in server.seen if m.get("method") == "window/showMessage"]


def test_bad_initialization_settings_are_shown_once() -> None:
    server = RawServer()
    try:
        server.send(frame(request(1, "initialize", {
            "processId": None, "rootUri": None, "capabilities": {},
            "initializationOptions": {"settings": {"debounceMs": "soon", "weakTokens": {"threshold": 7}}}})))
        assert "result" in server.reply(1)
        server.send(frame(notification("initialized")))
        server.send(frame(notification("workspace/didChangeConfiguration", {
            "settings": {"refscore": {"metrics": ["bleu"]}}})))
        messages = shown(server)
    finally:
        assert server.close() == 0
    for name in ("refscore.debounceMs", "refscore.weakTokens.threshold", "refscore.metrics"):
        assert len([m for m in messages if m.startswith(name + ":")]) == 1, (name, messages)
    assert b"Traceback" not in server.stderr
