"""LSP base-protocol framing that survives a bad frame (``Content-Length`` headers, JSON bodies).

pygls's stdio reader trusts the first header it sees: after one short, long, non-numeric or
negative ``Content-Length``, a missing header or binary garbage, every later message is read out
of step and dropped, and a length such as 2**63 ends the process. This reader checks each header
line, caps the length, and after any fault reports one line and skips to the next
``Content-Length: N`` header line (resynchronises), so the messages after a bad one are served:

* a header block that is not ``Name: value`` lines, or has no valid ``Content-Length`` (digits,
  at most ``MAX_BODY_BYTES``): skipped up to the next header;
* a body that is not JSON (the length was short, or the bytes are garbage): reported as a parse
  error, and the bytes after its first are searched for the next header;
* a length that runs past its message (too long): the complete JSON value at the start of the
  body is the message when the next header follows it, or when nothing more arrives for
  ``IDLE_S`` seconds; the next header is read from where it starts. When no JSON value ends
  before that header (a 100 MB claim over 1 KB of junk), the bytes before it are a body that
  is not JSON: reported, and reading resumes at the header, never waiting for the claimed bytes.

A header line cannot occur inside a JSON body (a raw CR LF is not allowed inside a JSON string),
which is what makes the search for ``Content-Length: N`` CR LF safe.
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import threading
from typing import Any, AsyncIterator, BinaryIO, Callable

MAX_BODY_BYTES = 256 * 1024 * 1024  # a longer declared body is refused (a 20 MiB file, escaped, fits)
MAX_HEADER_LINE = 8 * 1024  # a header line without its end within this many bytes is garbage
CHUNK_BYTES = 64 * 1024
IDLE_S = 0.5  # an incomplete body idle this long is checked for an overlong length

#: a whole header line naming the length; only ever searched for, never trusted before parsing
_LENGTH_LINE = re.compile(rb"content-length:[ \t]*[0-9]{1,20}[ \t]*\r?\n", re.IGNORECASE)
_SEARCH_TAIL = 64  # bytes kept between reads while searching (a header line split across reads)
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_DIGITS = re.compile(rb"[0-9]+")
_DECODER = json.JSONDecoder()

OnFault = Callable[[str, bool], None]  # (one-line description, a body failed to parse as JSON)


class ChunkSource:
    """Reads a binary stream on a daemon thread, one chunk per request: it never reads ahead of
    the server and never keeps the process alive at exit (pygls reads in its thread pool, whose
    shutdown waits for a read that only ends when the client closes stdin)."""

    def __init__(self, stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> None:
        self._stream = stream
        self._loop = loop
        self._wanted: queue.SimpleQueue[asyncio.Future[bytes]] = queue.SimpleQueue()
        self._pending: asyncio.Future[bytes] | None = None
        threading.Thread(target=self._run, name="refscore-stdin", daemon=True).start()

    def _run(self) -> None:
        read = getattr(self._stream, "read1", None) or self._stream.read
        while True:
            future = self._wanted.get()
            try:
                data = read(CHUNK_BYTES)
            except (OSError, ValueError):  # closed or broken: the same as the end of the stream
                data = b""
            try:
                self._loop.call_soon_threadsafe(_settle, future, data or b"")
            except RuntimeError:  # the loop is closed: the server is gone
                return
            if not data:
                return

    async def read(self, timeout: float | None = None) -> bytes | None:
        """The next chunk (``b""`` at the end of the stream), or None when ``timeout`` passed
        first (the read stays pending and the next call gets its data)."""
        if self._pending is None:
            self._pending = self._loop.create_future()
            self._wanted.put(self._pending)
        try:
            data = await asyncio.wait_for(asyncio.shield(self._pending), timeout)
        except asyncio.TimeoutError:
            return None
        self._pending = None
        return data


def _settle(future: asyncio.Future[bytes], data: bytes) -> None:
    if not future.done():
        future.set_result(data)


class FrameReader:
    """Decoded JSON messages from a byte stream, resynchronising after every framing fault."""

    def __init__(self, source: ChunkSource, on_fault: OnFault) -> None:
        self._source = source
        self._on_fault = on_fault
        self._buf = bytearray()
        self._eof = False
        self._resync = False

    async def messages(self) -> AsyncIterator[Any]:
        """Each message's JSON value, in order, until the stream ends."""
        while True:
            length = await self._headers()
            if length is None:
                return
            body = await self._body(length)
            if body is None:
                return
            try:
                value = json.loads(body)
            except RecursionError:  # nested deeper than the decoder goes: one ParseError, then on
                self._fault(f"a {length}-byte body nests too deep to read; skipped", parse_error=True)
                continue
            except ValueError as error:  # JSONDecodeError and UnicodeDecodeError
                used = _leading_message(body)
                if used is not None:  # an overlong length whose next header arrived with it
                    self._fault(f"Content-Length {length} runs past its {used}-byte message; used the message")
                    self._buf[0:0] = body[used:]
                    yield json.loads(body[:used])
                    continue
                self._fault(f"a {length}-byte body is not JSON ({_reason(error)}); skipped to the next header",
                            parse_error=True)
                self._buf[0:0] = body[1:]  # a short length leaves the next header inside the body
                self._resync = True
                continue
            yield value

    # -- reading ---------------------------------------------------------------------------------

    async def _more(self, timeout: float | None = None) -> bool | None:
        """Append the next chunk: True, False at the end of the stream, None when ``timeout`` passed."""
        if self._eof:
            return False
        chunk = await self._source.read(timeout)
        if chunk is None:
            return None
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _fault(self, message: str, parse_error: bool = False) -> None:
        self._on_fault(message, parse_error)

    # -- headers ---------------------------------------------------------------------------------

    async def _headers(self) -> int | None:
        """The body length of the next well-formed header block (None at the end of the stream)."""
        while True:
            if self._resync and not await self._skip_to_header():
                return None
            self._resync = False
            length = await self._header_block()
            if length is not None:
                return length
            if self._eof and not self._resync:
                return None

    async def _header_block(self) -> int | None:
        """Parse one header block; on a fault report it, set ``_resync`` and return None."""
        length: int | None = None
        seen_header = False
        while True:
            line = await self._line()
            if line is None:
                if self._buf.strip() or seen_header:
                    self._fault("the stream ended inside a header")
                return None
            text, size = line
            if not size:
                self._fault(f"a header line over {MAX_HEADER_LINE} bytes; skipped to the next header")
                del self._buf[:1]
                self._resync = True
                return None
            if not text:
                del self._buf[:size]
                if not seen_header:
                    continue  # blank lines between messages are harmless
                if length is None:
                    self._fault("a header block without a valid Content-Length; skipped to the next header")
                    self._resync = True
                    return None
                return length
            problem, value = _parse_header(text)
            if problem:
                self._fault(f"{problem}; skipped to the next header")
                del self._buf[:1]  # the line itself may hold the next header after some garbage
                self._resync = True
                return None
            del self._buf[:size]
            seen_header = True
            if value is not None:
                length = value

    async def _line(self) -> tuple[bytes, int] | None:
        """The next line without its end, and its size with the end (0 for a line longer than
        ``MAX_HEADER_LINE``, which is garbage); None at the end of the stream."""
        start = 0
        while True:
            end = self._buf.find(b"\n", start)
            if end >= 0:
                text = bytes(self._buf[:end])
                return (text[:-1] if text.endswith(b"\r") else text), end + 1
            if len(self._buf) > MAX_HEADER_LINE:
                return b"", 0
            start = len(self._buf)
            if not await self._more():
                return None

    async def _skip_to_header(self) -> bool:
        """Drop bytes up to the next ``Content-Length: N`` line; False at the end of the stream."""
        while True:
            found = _LENGTH_LINE.search(self._buf)
            if found is not None:
                del self._buf[:found.start()]
                return True
            if len(self._buf) > _SEARCH_TAIL:
                del self._buf[:len(self._buf) - _SEARCH_TAIL]
            if not await self._more():
                self._buf.clear()
                return False

    # -- body ------------------------------------------------------------------------------------

    async def _body(self, length: int) -> bytes | None:
        """``length`` bytes, or fewer when the declared length runs past the message."""
        idle_checked = 0  # buffer size at the last idle check (each size is checked once)
        searched = 0  # the buffer before this was searched for a header (what came with the header too)
        while len(self._buf) < length:
            more = await self._more(IDLE_S if self._buf else None)
            if more is False:
                self._fault(f"the stream ended inside a {length}-byte body")
                return None
            if len(self._buf) >= length:
                break  # complete: a header arriving with its last bytes is the next message's
            idle = more is None and idle_checked != len(self._buf)
            if idle:
                idle_checked = len(self._buf)
            header = _LENGTH_LINE.search(self._buf, max(0, searched - _SEARCH_TAIL))
            searched = len(self._buf)
            if idle or header:
                early = self._overrun(length)
                if early is not None:
                    return early
            if header is not None:  # no JSON value ends before it: the body is junk, resync there
                junk = bytes(self._buf[:header.start()])
                del self._buf[:header.start()]
                return junk
        body = bytes(self._buf[:length])
        del self._buf[:length]
        return body

    def _overrun(self, length: int) -> bytes | None:
        """The message at the start of the buffer when ``length`` runs past it (consumed)."""
        used = _leading_message(bytes(self._buf))
        if used is None:
            return None
        self._fault(f"Content-Length {length} runs past its {used}-byte message; used the message")
        body = bytes(self._buf[:used])
        del self._buf[:used]
        return body


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
    except ValueError:
        return None
    rest = text[end:].lstrip()
    if rest and not _LENGTH_LINE.match(rest.encode("utf-8")[:_SEARCH_TAIL]):
        return None
    return len(text[:end].encode("utf-8"))


def _parse_header(line: bytes) -> tuple[str, int | None]:
    """(problem or "", the Content-Length when this line gives it)."""
    name, colon, value = line.partition(b":")
    if not colon or not _TOKEN.fullmatch(name):
        return f"not a header line ({_show(line)})", None
    if name.lower() != b"content-length":
        return "", None  # Content-Type and others: nothing to check
    value = value.strip(b" \t")
    if not _DIGITS.fullmatch(value) or len(value) > 12 or int(value) > MAX_BODY_BYTES:
        return (f"Content-Length {_show(value)} is not a byte count from 0 to {MAX_BODY_BYTES}"), None
    return "", int(value)


def _show(data: bytes, width: int = 40) -> str:
    shown = repr(data[:width])[2:-1]
    return shown + ("…" if len(data) > width else "")


def _reason(error: ValueError) -> str:
    return error.msg if isinstance(error, json.JSONDecodeError) else "not UTF-8"
