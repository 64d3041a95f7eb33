"""Serve a pygls server over stdin/stdout with RefScore's transport (``refscore.transport``:
resynchronising framing, one frame writer) and a reply to every request whose params do not fit
its method.

pygls's own stdio loop structures each message inside ``json.loads``; a request whose params
fail (``textDocument/hover`` without ``position``) only logs a traceback and the client waits for
ever. Here such a request gets an ``InvalidParams`` error naming what is wrong, a malformed
message (or a second ``initialize``) an ``InvalidRequest`` error, a body that is not JSON a
``ParseError`` (id null), and a framing fault one log line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import stat
import threading
from typing import Any, BinaryIO

from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.io_ import StdoutWriter
from pygls.server import JsonRPCServer

from ..transport import LSP_CONTENT_TYPE, ChunkSource, Fault, FrameDecoder, StreamSource, frame, read_frames
from ..transport.sources import CHUNK_BYTES, Source

log = logging.getLogger(__name__)


def serve_stdio(server: JsonRPCServer, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Run ``server`` until the client sends ``exit`` or closes stdin."""
    _quiet_pygls_deserialisation()
    stop = threading.Event()
    server._stop_event = stop  # pygls's shutdown() sets it; the loop below checks it
    writer = ClientWriter(stdout, stop)
    server.protocol.set_writer(writer, include_headers=False)  # the writer frames every body
    try:
        asyncio.run(_serve(server, stdin, writer, stop))
    except BrokenPipeError:
        log.error("the client closed the connection; stopping")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


class ClientWriter(StdoutWriter):
    """pygls's stdout writer, framing each body it is given (``transport.frame``), except that a
    client gone (its end of stdout closed: EPIPE, as an
    editor quitting without waiting for the ``shutdown`` reply) is one log line and ends serving;
    what would be written afterwards is dropped. pygls logs every failed write (twice, once as
    an exception in a future's callback) and goes on writing."""

    def __init__(self, stdout: BinaryIO, stop: threading.Event) -> None:
        super().__init__(stdout)
        self._stop = stop
        self.gone = False

    def write(self, data: bytes) -> None:
        if self.gone:
            return
        try:
            super().write(frame(data, LSP_CONTENT_TYPE))
        except (BrokenPipeError, ConnectionResetError, ValueError):  # ValueError: stdout closed
            self.gone = True
            self._stop.set()
            log.error("the client closed the connection; stopping")


async def _serve(server: JsonRPCServer, stdin: BinaryIO, writer: StdoutWriter, stop: threading.Event) -> None:
    async for item in read_frames(await _source(stdin), FrameDecoder()):
        if isinstance(item, Fault):
            log.warning("LSP framing: %s", item.message)
            if item.parse_error:
                send_error(writer, None, JsonRpcParseError(f"Parse error: {item.message}"))
            continue
        data = item.value
        try:
            dispatch(server, writer, data)
        except RecursionError:  # a message nested deeper than its structuring goes
            log.warning("LSP: a message nests too deep to structure; answered ParseError")
            request_id = data.get("id") if isinstance(data, dict) else None
            send_error(writer, _valid_id(request_id), JsonRpcParseError("Parse error: the message nests too deep"))
        if stop.is_set():
            return


async def _source(stdin: BinaryIO) -> Source:
    """Where the messages are read from: a pipe or socket (an editor's) on the event loop itself,
    so that a message wakes it at once rather than a reader thread first (a keystroke's
    ``didChange`` reached the server 0.1-0.2 ms sooner); anything else (a terminal, a file) on a
    thread of its own (``ChunkSource``), which never makes a terminal non-blocking."""
    loop = asyncio.get_running_loop()
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's stream)
        mode = 0
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        reader = asyncio.StreamReader(limit=CHUNK_BYTES, loop=loop)
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), stdin)
            return StreamSource(reader)
        except (OSError, ValueError):
            pass
    return ChunkSource(stdin, loop)


def dispatch(server: JsonRPCServer, writer: StdoutWriter, data: Any) -> None:
    """Structure one decoded message and hand it to pygls; a request that cannot be structured
    gets its error reply here."""
    protocol = server.protocol
    method = data.get("method") if isinstance(data, dict) else None
    request_id = data.get("id") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        problem = "a message is a JSON object with \"jsonrpc\": \"2.0\""
        log.warning("LSP: ignored a malformed message (%s)", problem)
        if not isinstance(data, dict) or "method" in data:
            send_error(writer, _valid_id(request_id), JsonRpcInvalidRequest(f"Invalid Request: {problem}"))
        return
    if method is not None and "id" in data and request_id is not None and _valid_id(request_id) is None:
        shown = json.dumps(request_id, allow_nan=True)[:40]  # as the client wrote it, never a Python repr
        log.warning("LSP: ignored %s with the id %s (ids are strings or integers)", method, shown)
        send_error(writer, None, JsonRpcInvalidRequest(f"Invalid Request: the id {shown} of {method} "
                                                       "is not a string or an integer"))
        return
    log.debug("LSP: received %s (id %r)", method or "a response", request_id)
    if method == "initialize" and getattr(protocol, "_refscore_initialize_seen", False):
        # LSP: initialize is sent once; pygls ran it again (a new, empty workspace, new options)
        log.warning("LSP: ignored a second initialize")
        if "id" in data:
            send_error(writer, _valid_id(request_id),
                       JsonRpcInvalidRequest("Invalid Request: the server is already initialized"))
        return
    if method == "initialize":
        protocol._refscore_initialize_seen = True  # type: ignore[attr-defined]
    elif method not in (None, "exit") and not getattr(protocol, "_refscore_initialize_seen", False):
        # LSP: before initialize a request gets ServerNotInitialized, a notification is dropped
        # (pygls answered InternalError "The workspace is not available" and showed an error)
        log.warning("LSP: ignored %s, sent before initialize", method)
        if "id" in data:
            send_error(writer, _valid_id(request_id),
                       JsonRpcServerNotInitialized(f"Server not initialized: {method} came before initialize"))
        return
    if getattr(protocol, "_shutdown", False) and method not in (None, "exit"):
        # pygls drops these silently; LSP says a request after shutdown gets InvalidRequest
        if "id" in data:
            send_error(writer, _valid_id(request_id),
                       JsonRpcInvalidRequest(f"Invalid Request: the server is shutting down ({method})"))
        return
    try:
        message = protocol.structure_message(data)
    except JsonRpcException as error:
        text = f"{error.message} for {method}: {_details(error)}" if method else f"{error.message}: {_details(error)}"
        log.warning("LSP: %s", text)
        if method is not None and "id" in data:
            send_error(writer, _valid_id(request_id), type(error)(text, error.code))
        return
    if method == "textDocument/didChange" and _not_open(server, message):
        # pygls would raise KeyError (an error shown to the user) for the client's mistake
        log.warning("LSP: ignored textDocument/didChange for %s, which is not open", message.params.text_document.uri)
        return
    try:
        protocol.handle_message(message)
    except Exception as error:  # noqa: BLE001 - as pygls: one bad message must not stop the server
        log.exception("LSP: could not handle %s", method or "a message")
        try:
            server.report_server_error(error, JsonRpcException)
        except Exception:  # noqa: BLE001 - reporting is best effort
            log.warning("LSP: could not report the error to the client")


def _not_open(server: JsonRPCServer, message: Any) -> bool:
    """Whether a didChange names a document the client never opened (or closed)."""
    document = getattr(server, "document", None)
    try:
        return document is not None and document(message.params.text_document.uri) is None
    except (AttributeError, RuntimeError):  # before initialize: pygls answers that itself
        return False


def send_error(writer: StdoutWriter, request_id: int | str | None, error: JsonRpcException) -> None:
    """Write one JSON-RPC error response (the writer frames it)."""
    writer.write(json.dumps({"jsonrpc": "2.0", "id": request_id,
                             "error": {"code": error.code, "message": error.message}}).encode("utf-8"))


def _valid_id(value: Any) -> int | str | None:
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def _details(error: JsonRpcException) -> str:
    """What did not fit, e.g. ``required field missing @ $.params.position``."""
    cause = error.__cause__
    if cause is None:
        return "malformed message"
    try:
        from cattrs import transform_error

        found = transform_error(cause)
    except Exception:  # noqa: BLE001 - not a cattrs error
        found = [str(cause)]
    found = [_camel_path(line) for line in found]
    return "; ".join(found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")


def _camel_path(line: str) -> str:
    """``... @ $.params.text_document.uri`` -> ``... @ $.params.textDocument.uri`` (LSP's names)."""
    what, at, path = line.rpartition(" @ ")
    if not at:
        return line
    return f"{what} @ " + re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path)


class _DropDeserialisationTraceback(logging.Filter):
    """pygls logs a full traceback for a message it cannot structure; ``dispatch`` logs one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Unable to deserialize message")


def _quiet_pygls_deserialisation() -> None:
    logger = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, _DropDeserialisationTraceback) for f in logger.filters):
        logger.addFilter(_DropDeserialisationTraceback())
