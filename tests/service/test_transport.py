"""refscore.transport, the one reader and writer of ``Content-Length`` frames: the decoder's two
rules (resynchronise for the language server, stop for the daemon) on bytes in every split, the
blocking one-message read, the writer, and that no other module parses or writes the header."""

from __future__ import annotations

import ast
import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refscore.transport import (MAX_HEADER_BYTES, Fault, FrameDecoder, FramingError, Message, encode, frame,
                                read_message)

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "refscore"
OK = encode({"jsonrpc": "2.0", "id": 7, "method": "ping"})


def decode(data: bytes, split: int, resync: bool = True, idle: bool = False, limit: int = 1 << 20) -> list:
    """What the decoder makes of ``data`` fed ``split`` bytes at a time (then idle, then the end)."""
    decoder, out = FrameDecoder(limit, resync=resync), []

    def drain(idle: bool = False) -> None:
        while (item := decoder.next(idle)) is not None:
            out.append(item)

    for start in range(0, len(data), split):
        decoder.feed(data[start:start + split])
        drain()
    if idle:
        drain(idle=True)
    decoder.end()
    drain()
    assert decoder.done
    return out


def kinds(items: list) -> list[str]:
    return [item.kind if isinstance(item, Fault) else "message" for item in items]


SPLITS = (1, 3, 7, 64, 1 << 20)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("fault, expected", [
    (b"Content-Length: abc\r\n\r\n{}", ["header", "message"]),
    (b"Content-Length: -5\r\n\r\n{}", ["header", "message"]),
    (b"Content-Length: 9223372036854775808\r\n\r\n{}", ["too_large", "message"]),
    (b"\x00\xff" * 10_000, ["header", "message"]),
    (b"Hello: world\r\n\r\n", ["header", "message"]),
    (b"Content-Length: 5\r\n\r\n{\"a\": 1}", ["body", "message"]),
    (b"Content-Length: 9\r\n\r\n{not json", ["body", "message"]),
    (b"Content-Length: 100000\r\n\r\n" + b"j\x00nk " * 200, ["body", "message"]),
    (b"\r\n\r\n\r\n", ["message"]),
])
def test_resync_reports_one_fault_and_serves_the_next_message(fault: bytes, expected: list[str], split: int) -> None:
    items = decode(fault + OK, split)
    assert kinds(items) == expected
    assert items[-1] == Message(json.loads(OK.split(b"\r\n\r\n", 1)[1]), len(OK.split(b"\r\n\r\n", 1)[1]))


@pytest.mark.parametrize("split", SPLITS)
def test_an_overlong_length_uses_its_message_when_the_next_header_follows(split: int) -> None:
    items = decode(b"Content-Length: 50\r\n\r\n{\"a\": 1}" + OK, split)
    assert kinds(items) == ["overrun", "message", "message"] and items[1].value == {"a": 1}


def test_an_overlong_length_with_nothing_after_it_is_used_once_idle() -> None:
    data = b"Content-Length: 50\r\n\r\n{\"a\": 1}"
    assert kinds(decode(data, len(data), idle=True)) == ["overrun", "message"]
    assert kinds(decode(data, len(data))) == ["end"]  # not idle: the stream ended inside the body


@pytest.mark.parametrize("split", SPLITS)
def test_without_resync_a_bad_header_is_the_last_thing_read(split: int) -> None:
    for fault, kind in ((b"Hello: world\r\n\r\n", "header"), (b"X" * (MAX_HEADER_BYTES + 1), "header"),
                        (b"Content-Length: 2000000\r\n\r\n{}", "too_large")):
        assert kinds(decode(OK + fault + OK, split, resync=False)) == ["message", kind]


@pytest.mark.parametrize("split", SPLITS)
def test_without_resync_a_body_that_is_not_json_is_skipped_exactly(split: int) -> None:
    items = decode(b"Content-Length: 9\r\n\r\n{not json" + OK, split, resync=False)
    assert kinds(items) == ["body", "message"] and items[0].parse_error
    # no guessing at an overlong length: its bytes are taken as they are, as the peer declared them
    assert kinds(decode(b"Content-Length: 50\r\n\r\n{\"a\": 1}" + OK, split, resync=False))[0] == "body"
    assert kinds(decode(b"Content-Length: 500\r\n\r\n{\"a\": 1}" + OK, split, resync=False)) == ["end"]


def test_a_body_nested_too_deep_is_a_parse_error() -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    for resync in (True, False):
        items = decode(frame(body) + OK, 1 << 20, resync=resync)
        assert kinds(items) == ["body", "message"] and "too deep" in items[0].message


def test_null_is_a_message_not_a_missing_one() -> None:
    assert decode(frame(b"null"), 3) == [Message(None, 4)]


@given(st.lists(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=20), max_size=4), max_size=5),
       st.integers(1, 40))
@settings(max_examples=60, deadline=None)
def test_what_the_writer_frames_the_reader_reads_in_any_split(messages: list[dict], split: int) -> None:
    data = b"".join(encode(m) for m in messages)
    for resync in (True, False):
        assert [item.value for item in decode(data, split, resync=resync)] == messages


def test_frame_names_the_content_type_when_asked() -> None:
    assert frame(b"{}", "application/x; charset=utf-8") == (
        b"Content-Length: 2\r\nContent-Type: application/x; charset=utf-8\r\n\r\n{}")
    assert kinds(decode(frame(b"{}", "application/x; charset=utf-8"), 5)) == ["message"]


def test_read_message_reads_no_byte_past_its_message() -> None:
    stream = io.BufferedReader(io.BytesIO(OK + b"\r\n" + OK + b"trailing"))
    assert read_message(stream).value["id"] == 7
    assert read_message(stream).value["id"] == 7
    assert stream.read() == b"trailing"
    assert read_message(io.BytesIO(b"")) is None


@pytest.mark.parametrize("data, kind", [(b"Content-Length: 9\r\n\r\n{not json", "body"),
                                        (b"Content-Length: 99\r\n\r\n{}", "end"),
                                        (b"Content-Length: 5000\r\n\r\n", "too_large"),
                                        (b"X" * (MAX_HEADER_BYTES * 2), "header"),
                                        (b"Content-Length: 2\r\n", "end")])
def test_read_message_raises_one_framing_error(data: bytes, kind: str) -> None:
    with pytest.raises(FramingError) as raised:
        read_message(io.BytesIO(data), 1000)
    assert raised.value.fault.kind == kind and "\n" not in str(raised.value)


# -- one module parses and writes the header -------------------------------------------------------


def header_literals(source: str) -> list[int]:
    """Lines of string or bytes literals naming the length header, docstrings left out (every
    line naming it, in a file that does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [number for number, line in enumerate(source.splitlines(), 1) if "content-length" in line.lower()]
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and id(node) not in docstrings
            and "content-length" in (node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value).lower()]


def test_only_the_transport_module_parses_or_writes_content_length() -> None:
    found = [f"{path.relative_to(PACKAGE)}:{line}" for path in sorted(PACKAGE.rglob("*.py"))
             if "transport" not in path.relative_to(PACKAGE).parts
             for line in header_literals(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_header_check_finds_a_second_reader() -> None:
    source = '"""Content-Length in a docstring is fine."""\nimport re\nHEADER = re.compile(rb"Content-Length: (\\d+)")\n'
    assert header_literals(source) == [3]
