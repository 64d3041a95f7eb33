"""``Content-Length`` framed JSON, read and written in one place for every peer: the language
server's stdio (``lsp/stdio.py``), the daemon's sockets and its client (``service``).

* ``decoder.FrameDecoder``: the only parser of headers (limits, resynchronisation after faults);
* ``sources``: the loops that feed it (an async chunk source, a blocking one-message read);
* ``writer``: ``frame`` and ``encode``, the only writer of headers.

No part of RefScore below it; it imports nothing of RefScore.
"""

from __future__ import annotations

from .decoder import IDLE_S, MAX_BODY_BYTES, MAX_HEADER_BYTES, Fault, FrameDecoder, Message
from .sources import ChunkSource, FramingError, StreamSource, read_frames, read_message
from .writer import LSP_CONTENT_TYPE, encode, frame

__all__ = ["ChunkSource", "Fault", "FrameDecoder", "FramingError", "IDLE_S", "LSP_CONTENT_TYPE", "MAX_BODY_BYTES",
           "MAX_HEADER_BYTES", "Message", "StreamSource", "encode", "frame", "read_frames", "read_message"]
