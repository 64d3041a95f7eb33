"""A client without ``workspace/configuration`` gives its settings in ``initializationOptions``
and pushes changes in ``workspace/didChangeConfiguration``: a bad value is shown to the user once
(it was only written to the server's log) and its default is used."""

from __future__ import annotations

import time

from tests.lsp.raw import RawServer, frame, notification, request
from tests.support.timing import hang_guard


def shown(server: RawServer, expected: int, seconds: float = 3.0) -> list[str]:
    """The window/showMessage texts that arrive within ``seconds``, and until ``expected`` of them
    came (a busy machine sends them late; a hang guard ends the wait; a ping marks the end)."""
    start, ping = time.monotonic(), 500
    while time.monotonic() < start + seconds or (
            len(_messages(server)) < expected and time.monotonic() < start + hang_guard()):
        ping += 1
        server.send(frame(request(ping, "textDocument/hover", {
            "textDocument": {"uri": "file:///none.py"}, "position": {"line": 0, "character": 0}})))
        server.reply(ping)
        time.sleep(0.1)
    return _messages(server)


def _messages(server: RawServer) -> list[str]:
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
        messages = shown(server, expected=3)
    finally:
        assert server.close() == 0
    for name in ("refscore.debounceMs", "refscore.weakTokens.threshold", "refscore.metrics"):
        assert len([m for m in messages if m.startswith(name + ":")]) == 1, (name, messages)
    assert b"Traceback" not in server.stderr


def test_a_client_with_no_refscore_section_keeps_the_initialization_settings(tmp_path) -> None:
    """A client that supports ``workspace/configuration`` but has no ``refscore`` section (Emacs
    eglot configured through ``:initializationOptions``) answers ``[null]``: the settings given at
    initialization stay (they were replaced by the defaults, silently)."""
    from tests.lsp import samples

    cand = samples.write_pair(tmp_path, "task")
    server = RawServer()
    try:
        server.send(frame(request(1, "initialize", {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {"workspace": {"configuration": True}},
            "initializationOptions": {"settings": {"metrics": ["codebleu"], "codebleu": {"weights": [0, 0, 1, 0]}}}})))
        assert "result" in server.reply(1)
        server.send(frame(notification("initialized")))
        server.send(frame(notification("textDocument/didOpen", {"textDocument": {
            "uri": cand.as_uri(), "languageId": "python", "version": 1, "text": cand.read_text(encoding="utf-8")}})))
        answered, signature, deadline = False, None, time.monotonic() + hang_guard()
        while signature is None and time.monotonic() < deadline:
            message = server.messages.get(timeout=hang_guard())
            assert message is not None
            if message.get("method") == "workspace/configuration" and not answered:
                server.send(frame({"jsonrpc": "2.0", "id": message["id"], "result": [None]}))
                answered = True
            if message.get("method") == "textDocument/publishDiagnostics" and answered:
                summary = [d for d in message["params"]["diagnostics"] if d.get("code") == "refscore.summary"]
                signature = summary[0]["data"]["codebleu"]["signature"] if summary else None
    finally:
        assert server.close() == 0
    assert answered and signature is not None and "w:0,0,1,0" in signature, signature


async def _initialization_settings_messages(tmp_path, settings) -> list[str]:
    import asyncio

    from lsprotocol import types

    from tests.lsp.harness import session

    async with session(tmp_path, capabilities=types.ClientCapabilities(),
                       init_options={"settings": settings}) as s:
        await asyncio.sleep(0.5)
        return [m.message for m in s.client.messages]


def test_initialization_settings_that_are_not_an_object_are_shown_once(tmp_path) -> None:
    """``initializationOptions.settings`` of the wrong kind (a number, a list: a Lua table
    written ``{ "codebleu" }``) is a bad value like any other, as docs/editor.md says: one
    message, and the defaults are used. It was ignored without a word."""
    import asyncio

    for settings in (5, ["codebleu"]):
        messages = asyncio.run(_initialization_settings_messages(tmp_path, settings))
        assert messages == ["refscore settings must be an object; using defaults"], (settings, messages)


def test_a_token_scores_option_that_is_not_a_boolean_is_shown_once_and_stays_off() -> None:
    """``"tokenScores": "false"`` (a string from a hand-written config) turned the notification
    on, silently: only ``true`` opts in, and another value is one message naming the option."""
    server = RawServer()
    try:
        server.send(frame(request(1, "initialize", {
            "processId": None, "rootUri": None, "capabilities": {},
            "initializationOptions": {"tokenScores": "false"}})))
        assert "result" in server.reply(1)
        server.send(frame(notification("initialized")))
        messages = shown(server, expected=1)
    finally:
        assert server.close() == 0
    found = [m for m in messages if m.startswith("initializationOptions.tokenScores:")]
    assert len(found) == 1 and "'false'" in found[0] and "off" in found[0], messages
