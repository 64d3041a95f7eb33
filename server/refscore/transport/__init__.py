"""``Content-Length`` framed JSON, read and written in one place for every peer: the language
server's stdio (``lsp/stdio.py``), the daemon's sockets and its client (``service``).

* ``decoder.FrameDecoder``: the only parser of headers (limits, resynchronisation after faults);
* ``sources``: the loops that feed it (an async chunk source, a blocking one-message read);
* ``frame`` and ``encode`` (here): the only writer of headers (the language server's replies,
  the daemon's and its client's messages).

No part of RefScore below it; it imports nothing of RefScore.
"""

from __future__ import annotations

import json
from typing import Any

from .decoder import IDLE_S, MAX_BODY_BYTES, MAX_HEADER_BYTES, Fault, FrameDecoder, Message
from .sources import ChunkSource, FramingError, StreamSource, read_frames, read_message

__all__ = ["ChunkSource", "Fault", "FrameDecoder", "FramingError", "IDLE_S", "LSP_CONTENT_TYPE", "MAX_BODY_BYTES",
           "MAX_HEADER_BYTES", "Message", "StreamSource", "encode", "frame", "read_frames", "read_message"]

#: what the language server names its bodies (as pygls did); the daemon sends no Content-Type
LSP_CONTENT_TYPE = "application/vscode-jsonrpc; charset=utf-8"


def frame(body: bytes, content_type: str | None = None) -> bytes:
    """``body`` (UTF-8 JSON) behind its header block."""
    header = b"Content-Length: %d\r\n" % len(body)
    if content_type:
        header += b"Content-Type: %s\r\n" % content_type.encode("ascii")
    return header + b"\r\n" + body


def encode(message: Any) -> bytes:
    """One message as compact UTF-8 JSON, framed."""
    return frame(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
