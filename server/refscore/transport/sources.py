"""Byte sources for ``FrameDecoder`` and the loops that drive it: asynchronous (the language
server's stdin, the daemon's sockets) and blocking (the daemon's client)."""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import AsyncIterator, BinaryIO, Callable, Protocol

from .decoder import IDLE_S, MAX_BODY_BYTES, MAX_HEADER_BYTES, Fault, FrameDecoder, Message

CHUNK_BYTES = 64 * 1024


class FramingError(ValueError):
    """The byte stream is not ``Content-Length`` framed JSON; the connection must close."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.message)
        self.fault = fault


class Source(Protocol):
    async def read(self, timeout: float | None = None) -> bytes | None:
        """The next chunk (``b""`` at the end of the stream), or None when ``timeout`` passed first."""


class ChunkSource:
    """Reads a blocking binary stream on a daemon thread, one chunk per request: it never reads
    ahead of the server and never keeps the process alive at exit (pygls reads in its thread
    pool, whose shutdown waits for a read that only ends when the client closes stdin)."""

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


class StreamSource:
    """An asyncio stream's chunks; ``deadline`` gives the seconds left to the peer (None: no
    limit), past which reading raises ``asyncio.TimeoutError``."""

    def __init__(self, reader: asyncio.StreamReader, deadline: Callable[[], float | None] = lambda: None) -> None:
        self._reader = reader
        self._deadline = deadline

    async def read(self, timeout: float | None = None) -> bytes | None:
        left = self._deadline()
        if left is not None and (timeout is None or left <= timeout):
            return await asyncio.wait_for(self._reader.read(CHUNK_BYTES), max(0.0, left))
        try:  # a cancelled StreamReader.read loses no bytes
            return await asyncio.wait_for(self._reader.read(CHUNK_BYTES), timeout)
        except asyncio.TimeoutError:
            return None


async def read_frames(source: Source, decoder: FrameDecoder) -> AsyncIterator[Message | Fault]:
    """Each message and fault in order, until the stream ends (or a fault ends it)."""
    idle = False
    while True:
        item = decoder.next(idle)
        idle = False
        if item is not None:
            yield item
            continue
        if decoder.done:
            return
        chunk = await source.read(IDLE_S if decoder.waiting_in_body else None)
        if chunk is None:
            idle = True
        elif chunk:
            decoder.feed(chunk)
        else:
            decoder.end()


def read_message(stream: BinaryIO, max_body: int = MAX_BODY_BYTES) -> Message | None:
    """One message from a blocking stream, reading no byte past it; None at a clean end of the
    stream. Any fault raises ``FramingError``."""
    decoder = FrameDecoder(max_body, resync=False)
    while True:
        item = decoder.next()
        if isinstance(item, Fault):
            raise FramingError(item)
        if item is not None:
            return item
        if decoder.done:
            return None
        missing = decoder.body_missing()
        data = stream.read(missing) if missing else stream.readline(MAX_HEADER_BYTES + 1)
        if data:
            decoder.feed(data)
        else:
            decoder.end()
