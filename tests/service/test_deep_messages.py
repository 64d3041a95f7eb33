"""A message nested deeper than a JSON decoder goes (issue 45, item 3): the language server and
the daemon answer it with a ParseError and go on serving, with no traceback."""

from __future__ import annotations

import pytest

from refscore.service import wire
from tests.lsp.raw import RawServer, frame, request
from tests.service.test_daemon import Place, place, raw_connect, refscore  # noqa: F401 - the fixture

HOVER = {"textDocument": {"uri": "file:///nowhere/a.py"}, "position": {"line": 0, "character": 0}}


def deep(levels: int) -> bytes:
    """A request whose params nest ``levels`` lists deep."""
    return (b'{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {"x": '
            + b"[" * levels + b"]" * levels + b"}}")


@pytest.mark.parametrize("levels", [1_000, 100_000])
def test_the_language_server_answers_a_deep_message_and_goes_on(levels: int) -> None:
    server = RawServer()
    try:
        server.initialize()
        body = deep(levels)
        server.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        error = server.reply(None)["error"]
        assert error["code"] == -32700 and "too deep" in error["message"]
        server.send(frame(request(2, "textDocument/hover", HOVER)))
        assert "error" not in server.reply(2)
    finally:
        assert server.close() == 0
    assert b"Traceback" not in server.stderr


def test_the_daemon_answers_a_deep_message_and_keeps_the_connection(place: Place) -> None:  # noqa: F811
    started = refscore("daemon", "start", "--no-preload", env=place.env)
    assert started.returncode == 0, started.stderr
    sock = raw_connect(place)
    stream = sock.makefile("rb")
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "status", "params": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    reply = wire.read_message(stream)
    assert reply["error"]["code"] == wire.PARSE_ERROR and "too deep" in reply["error"]["message"]
    sock.sendall(wire.encode(wire.request(2, "initialize", {})))
    assert wire.read_message(stream)["result"]["pid"] == place.info()["pid"]
    sock.close()
    assert "Traceback" not in place.log_text()
