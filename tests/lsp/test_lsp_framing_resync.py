"""An overlong ``Content-Length`` whose body is not JSON (issue 25, item 13): the server
resynchronises on the next header instead of waiting for bytes that never come."""

from __future__ import annotations

import json

from tests.lsp.raw import RawServer, frame, request
from tests.support.timing import hang_guard

HOVER = {"textDocument": {"uri": "file:///nowhere/a.py"}, "position": {"line": 0, "character": 0}}


def test_a_huge_claim_over_junk_does_not_deafen_the_server() -> None:
    server = RawServer()
    try:
        server.initialize()
        server.send(b"Content-Length: 100000000\r\n\r\n" + b"j\x00nk " * 200)
        for request_id in (2, 3):
            server.send(frame(request(request_id, "textDocument/hover", HOVER)))
            assert "error" not in server.reply(request_id, timeout=hang_guard())
    finally:
        assert server.close() == 0
    assert server.log_lines("not JSON")


def test_a_claim_too_long_by_1000_bytes_swallows_no_later_request() -> None:
    server = RawServer()
    try:
        server.initialize()
        first = request(50, "textDocument/hover", HOVER)
        server.send(frame(first, len(json.dumps(first).encode()) + 1000))
        for request_id in (2, 3, 4, 5):  # each sent after the one before is answered
            server.send(frame(request(request_id, "textDocument/hover", HOVER)))
            assert "error" not in server.reply(request_id, timeout=hang_guard())
    finally:
        assert server.close() == 0
