"""The language server over raw stdio bytes: after any framing fault (a short, long, non-numeric,
negative or huge Content-Length, a missing header, binary garbage) it logs one line, skips to the
next header and answers the requests that follow; a body that is not JSON gets a ParseError."""

from __future__ import annotations

import json

import pytest

from tests.lsp.raw import RawServer, frame, request

HOVER = {"textDocument": {"uri": "file:///nowhere/a.py"}, "position": {"line": 0, "character": 0}}
BAD = request(50, "textDocument/hover", HOVER)
BAD_BODY = json.dumps(BAD).encode("utf-8")

FAULTS = {
    "short length": frame(BAD, len(BAD_BODY) - 20),
    "long length": frame(BAD, len(BAD_BODY) + 25),
    "non-numeric length": b"Content-Length: abc\r\n\r\n" + BAD_BODY,
    "negative length": b"Content-Length: -5\r\n\r\n" + BAD_BODY,
    "huge length": b"Content-Length: 9223372036854775808\r\n\r\n" + BAD_BODY,
    "missing header": b"\r\n" + BAD_BODY,
    "binary garbage": bytes(range(256)) * 40,
    "garbage without newlines": b"\x00\xff" * 10_000,
    "zero length": b"Content-Length: 0\r\n\r\n",
    "no blank line": b"Content-Length: 10\r\nContent-Type: x\r\n" + BAD_BODY,
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_server_answers_after_a_framing_fault(fault: str) -> None:
    server = RawServer()
    try:
        server.initialize()
        server.send(FAULTS[fault])
        for request_id in (2, 3):  # both requests after the fault are answered, in order
            server.send(frame(request(request_id, "textDocument/hover", HOVER)))
            reply = server.reply(request_id)
            assert reply.get("result") is None and "error" not in reply
        if fault == "long length":  # the message under the overlong length is still served
            assert "error" not in server.reply(50)
    finally:
        code = server.close()
    assert code == 0
    assert server.log_lines("LSP framing:"), server.stderr[-2000:]
    assert b"Traceback" not in server.stderr


def test_a_body_that_is_not_json_gets_a_parse_error() -> None:
    server = RawServer()
    try:
        server.initialize()
        server.send(b"Content-Length: 9\r\n\r\n{not json")
        error = server.reply(None)["error"]
        assert error["code"] == -32700 and "not JSON" in error["message"]
        server.send(frame(request(2, "textDocument/hover", HOVER)))
        assert "error" not in server.reply(2)
    finally:
        assert server.close() == 0


def test_faults_split_across_writes_and_messages_in_one_write() -> None:
    """Bytes arrive in any split: a header cut mid-line, several messages in one write."""
    server = RawServer()
    try:
        server.initialize()
        data = FAULTS["non-numeric length"] + frame(request(2, "textDocument/hover", HOVER))
        for start in range(0, len(data), 7):
            server.send(data[start:start + 7])
        assert "error" not in server.reply(2)
        server.send(frame(request(3, "textDocument/hover", HOVER)) + frame(request(4, "textDocument/hover", HOVER)))
        assert "error" not in server.reply(3) and "error" not in server.reply(4)
    finally:
        assert server.close() == 0


def test_requests_after_shutdown_get_invalid_request() -> None:
    server = RawServer()
    try:
        server.initialize()
        server.send(frame(request(2, "shutdown")))
        server.reply(2)
        server.send(frame(request(3, "textDocument/hover", HOVER)))
        assert server.reply(3)["error"]["code"] == -32600
    finally:
        server.close()


def test_an_overlong_length_with_nothing_after_it_is_still_served() -> None:
    """The client sends one message with too long a length and waits: the message is answered
    once nothing more arrives (no next header will come to show where it ended)."""
    server = RawServer()
    try:
        server.initialize()
        server.send(FAULTS["long length"])
        assert "error" not in server.reply(50)
        server.send(frame(request(2, "textDocument/hover", HOVER)))
        assert "error" not in server.reply(2)
    finally:
        assert server.close() == 0
    assert server.log_lines("runs past its")


def test_large_correct_messages_followed_by_more_are_no_fault() -> None:
    """A 300 kB didOpen and a request right behind it (as editors send them): the next header
    arrives with the body's last bytes. Both are served and nothing is reported (the reader took
    that header for a sign of an overlong length and logged a fault for a correct message)."""
    server = RawServer()
    try:
        server.initialize()
        text = "".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(10_000))
        opened = {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": "file:///nowhere/big.py", "languageId": "python", "version": 1, "text": text}}}
        for request_id in (2, 3):
            server.send(frame(opened) + frame(request(request_id, "textDocument/hover", HOVER)))
            assert "error" not in server.reply(request_id)
    finally:
        assert server.close() == 0
    assert not server.log_lines("LSP framing:"), server.log_lines("LSP framing:")
