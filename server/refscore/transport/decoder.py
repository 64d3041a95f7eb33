"""LSP base-protocol framing as a state machine: bytes in, JSON messages and faults out.

The one place that parses ``Content-Length`` headers (the LSP server's stdio, the daemon's socket
and the daemon's client all read through it). It does no I/O: a driver (``streams``) feeds it
bytes, tells it when the stream ended or went idle, and takes what ``next`` returns.

Two rules for a framing fault:

* ``resync=True`` (the language server): report one fault and skip to the next
  ``Content-Length: N`` header line, so the messages after a bad one are served. A header
  block that is not ``Name: value`` lines, or has no valid ``Content-Length``, is skipped; a body
  that is not JSON is reported as a parse error and the bytes after its first are searched for
  the next header; a length that runs past its message (too long) yields the complete JSON value
  at the start of the body when the next header follows it or the stream goes idle, and when no
  JSON value ends before that header (a 100 MB claim over 1 KB of junk), the bytes before it are
  a body that is not JSON, never waiting for the claimed bytes.
* ``resync=False`` (the daemon and its client): a bad header block or a length over the limit is
  the last thing read (the connection is out of step and closes); a body that is not JSON is a
  fault and reading goes on after it.

A header line cannot occur inside a JSON body (a raw CR LF is not allowed inside a JSON string),
which is what makes the search for ``Content-Length: N`` CR LF safe.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass
from typing import Any, Literal

MAX_BODY_BYTES = 256 * 1024 * 1024  # the language server's limit (a 20 MiB file, escaped, fits)
MAX_HEADER_BYTES = 8 * 1024  # a header block longer than this is garbage
IDLE_S = 0.5  # an incomplete body idle this long is checked for an overlong length (resync only)

#: a whole header line naming the length; only ever searched for, never trusted before parsing
_LENGTH_LINE = re.compile(rb"content-length:[ \t]*[0-9]{1,20}[ \t]*\r?\n", re.IGNORECASE)
_SEARCH_TAIL = 64  # bytes kept between reads while searching (a header line split across reads)
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_DIGITS = re.compile(rb"[0-9]+")
_DECODER = json.JSONDecoder()

FaultKind = Literal["header", "too_large", "body", "overrun", "end"]


@dataclass(frozen=True)
class Fault:
    """Something wrong in the byte stream, in one line.

    ``kind``: ``header`` (a bad header block), ``too_large`` (a length over the limit), ``body``
    (not JSON: the peer gets a ParseError), ``overrun`` (a length past its message, which was
    used), ``end`` (the stream ended inside a message)."""

    message: str
    kind: FaultKind

    @property
    def parse_error(self) -> bool:
        """Whether a body failed to parse as JSON (JSON-RPC answers ParseError with id null)."""
        return self.kind == "body"


@dataclass(frozen=True)
class Message:
    """One decoded JSON value (any JSON, ``null`` included) and its body's size in bytes."""

    value: Any
    size: int


class FrameDecoder:
    """Messages and faults from ``Content-Length`` framed bytes fed in any split."""

    def __init__(self, max_body: int = MAX_BODY_BYTES, resync: bool = True) -> None:
        self.max_body = max_body
        self.resync = resync
        self._buf = bytearray()
        self._ready: deque[Message | Fault] = deque()
        self._eof = False
        self._done = False
        self._skipping = False  # dropping bytes up to the next Content-Length line
        self._block = 0  # bytes of the current header block already consumed
        self._seen_header = False
        self._block_length: int | None = None
        self._length: int | None = None  # the body's length once its header block is complete
        self._searched = 0  # the body bytes before this were searched for a header
        self._idle_size = -1  # buffer size at the last idle check (each size is checked once)

    # -- what the driver calls -----------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Bytes as they arrived."""
        self._buf += data

    def end(self) -> None:
        """The stream ended: what is left is read, then ``done``."""
        self._eof = True

    @property
    def done(self) -> bool:
        """Nothing more will come out (the stream ended, or a fault ended it without ``resync``)."""
        return self._done and not self._ready

    @property
    def waiting_in_body(self) -> bool:
        """Part of a body is here and the rest is awaited: the driver reports idleness (``IDLE_S``)."""
        return self.resync and self._length is not None and bool(self._buf)

    def body_missing(self) -> int:
        """Bytes still needed to complete the body being read (0 while reading headers)."""
        return 0 if self._length is None else max(0, self._length - len(self._buf))

    def next(self, idle: bool = False) -> Message | Fault | None:
        """The next message or fault, or None until more bytes arrive (or for good, when
        ``done``). ``idle``: nothing arrived for ``IDLE_S`` seconds."""
        while not self._ready and not self._done:
            if not self._step(idle):
                break
            idle = False
        return self._ready.popleft() if self._ready else None

    # -- steps ---------------------------------------------------------------------------------

    def _step(self, idle: bool) -> bool:
        """Advance once; False when more bytes are needed."""
        if self._length is None:
            length = self._header_line()
            if length is None:
                return bool(self._ready) or self._done
            self._length, self._searched, self._idle_size = length, 0, -1
        length = self._length
        body = self._body(length, idle)
        if body is None:
            return bool(self._ready) or self._done
        self._length = None
        self._decode(body, length)
        return True

    def _fault(self, message: str, kind: FaultKind) -> None:
        if kind in ("header", "too_large"):
            if self.resync:
                message += "; skipped to the next header"
                self._skipping = True
            else:
                self._done = True
        elif kind == "end":
            self._done = True
        self._ready.append(Fault(message, kind))

    def _header_line(self) -> int | None:
        """Read header lines; the body length when they end a valid block, else None (a fault,
        or more bytes needed)."""
        while True:
            if self._skipping:
                if not self._skip_to_header():
                    return None
                self._skipping = False
            end = self._buf.find(b"\n")
            if (self._block + (len(self._buf) if end < 0 else end + 1)) > MAX_HEADER_BYTES:
                self._new_block()
                del self._buf[:1]  # the block may hold the next header after some garbage
                self._fault(f"a header over {MAX_HEADER_BYTES} bytes", "header")
                return None
            if end < 0:
                if self._eof:
                    if self._buf.strip() or self._seen_header:
                        self._fault("the stream ended inside a header", "end")
                    self._done = True
                return None
            line = bytes(self._buf[:end]).removesuffix(b"\r")
            if not line:
                del self._buf[:end + 1]
                if not self._seen_header:
                    continue  # blank lines between messages are harmless
                length = self._block_length
                self._new_block()
                if length is None:
                    self._fault("a header block without a valid Content-Length", "header")
                return length
            problem, kind, value = parse_header_line(line, self.max_body)
            if problem:
                self._new_block()
                del self._buf[:1]  # the line itself may hold the next header after some garbage
                self._fault(problem, kind)
                return None
            del self._buf[:end + 1]
            self._block += end + 1
            self._seen_header = True
            if value is not None:
                self._block_length = value

    def _new_block(self) -> None:
        self._block, self._seen_header, self._block_length = 0, False, None

    def _skip_to_header(self) -> bool:
        """Drop bytes up to the next ``Content-Length: N`` line; False when it is not here yet."""
        found = _LENGTH_LINE.search(self._buf)
        if found is not None:
            del self._buf[:found.start()]
            return True
        if len(self._buf) > _SEARCH_TAIL:
            del self._buf[:len(self._buf) - _SEARCH_TAIL]
        if self._eof:
            self._buf.clear()
            self._done = True
        return False

    def _body(self, length: int, idle: bool) -> bytes | None:
        """``length`` bytes, fewer when the declared length runs past the message (resync), or
        None until more arrive."""
        if len(self._buf) >= length:
            body = bytes(self._buf[:length])
            del self._buf[:length]
            return body
        if self._eof:
            self._fault(f"the stream ended inside a {length}-byte body", "end")
            return None
        if not self.resync:
            return None
        idle = idle and self._idle_size != len(self._buf)
        if idle:
            self._idle_size = len(self._buf)
        header = _LENGTH_LINE.search(self._buf, max(0, self._searched - _SEARCH_TAIL))
        self._searched = len(self._buf)
        if idle or header:
            used = _leading_message(bytes(self._buf))
            if used is not None:
                self._fault(f"Content-Length {length} runs past its {used}-byte message; used the message", "overrun")
                body = bytes(self._buf[:used])
                del self._buf[:used]
                return body
        if header is not None:  # no JSON value ends before it: the body is junk, resync there
            junk = bytes(self._buf[:header.start()])
            del self._buf[:header.start()]
            return junk
        return None

    def _decode(self, body: bytes, length: int) -> None:
        try:
            self._ready.append(Message(json.loads(body.decode("utf-8")), len(body)))
            return
        except RecursionError:  # nested deeper than the decoder goes: one ParseError, then on
            self._ready.append(Fault(f"a {length}-byte body nests too deep to read", "body"))
            return
        except ValueError as error:  # JSONDecodeError and UnicodeDecodeError
            reason = error.msg if isinstance(error, json.JSONDecodeError) else "not UTF-8"
        if not self.resync:
            self._ready.append(Fault(f"a {length}-byte body is not JSON ({reason})", "body"))
            return
        used = _leading_message(body)
        if used is not None:  # an overlong length whose next header arrived with it
            self._fault(f"Content-Length {length} runs past its {used}-byte message; used the message", "overrun")
            self._buf[0:0] = body[used:]
            self._ready.append(Message(json.loads(body[:used].decode("utf-8")), used))
            return
        self._ready.append(Fault(f"a {length}-byte body is not JSON ({reason}); skipped to the next header", "body"))
        self._buf[0:0] = body[1:]  # a short length leaves the next header inside the body
        self._skipping = True


def parse_header_line(line: bytes, max_body: int) -> tuple[str, FaultKind, int | None]:
    """(problem or "", its kind, the Content-Length when this line gives it) for one header line
    without its end."""
    name, colon, value = line.partition(b":")
    if not colon or not _TOKEN.fullmatch(name):
        return f"not a header line ({_show(line)})", "header", None
    if name.lower() != b"content-length":
        return "", "header", None  # Content-Type and others: nothing to check
    value = value.strip(b" \t")
    if not _DIGITS.fullmatch(value):
        return f"Content-Length {_show(value)} is not a byte count", "header", None
    if len(value) > 20 or int(value) > max_body:
        return f"Content-Length {_show(value)} is over the {max_body}-byte limit", "too_large", None
    return "", "header", int(value)


def _leading_message(data: bytes) -> int | None:
    """The size in bytes of a complete JSON value at the start of ``data`` when nothing but
    whitespace or the next ``Content-Length`` header line follows it, else None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data[:error.start].decode("utf-8")
    start = len(text) - len(text.lstrip())
    try:
        _, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    rest = text[end:].lstrip()
    if rest and not _LENGTH_LINE.match(rest.encode("utf-8")[:_SEARCH_TAIL]):
        return None
    return len(text[:end].encode("utf-8"))


def _show(data: bytes, width: int = 40) -> str:
    shown = repr(data[:width])[2:-1]
    return shown + ("…" if len(data) > width else "")
