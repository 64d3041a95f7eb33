"""The one writer of ``Content-Length`` frames (the language server's replies, the daemon's and
its client's messages)."""

from __future__ import annotations

import json
from typing import Any

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
