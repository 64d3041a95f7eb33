"""The daemon's wire format: JSON-RPC 2.0 messages in LSP's base-protocol framing.

Each message is ``Content-Length: N\\r\\n\\r\\n`` followed by N bytes of UTF-8 JSON, the framing
pygls and every LSP tool read, so a transcript can be replayed with LSP tooling. The framing is
``refscore.transport``'s (the language server's too), without resynchronisation: a bad header
closes the connection. Limits keep a malformed client from costing the daemon memory: headers up
to ``MAX_HEADER_BYTES``, bodies up to the daemon's ``max_message_bytes``.

Methods (client to daemon):

* ``initialize`` ``{"version", "protocol", "token"?}`` -> ``{"version", "protocol", "pid",
  "transport", "package", "python", "bert_missing"}``; the version handshake (and, over TCP, the
  access token). A client newer than the daemon replaces it (``shutdown``, then starts its own),
  and so does a client with CodeBERTScore's runtime when ``bert_missing`` names modules.
* ``score`` ``{"request": ScoreRequest as a dict, "document"?: str, "client"?: str}`` -> a
  ScoreReport dict. A newer ``score`` from the same client for the same ``document`` cancels an
  older one that has not run yet (error ``REQUEST_CANCELLED``).
* ``status`` -> counters (see ``refscore daemon status``); ``shutdown`` -> ``{"pid"}``, then the
  daemon exits.
* ``ping`` -> ``{}`` at once: a client waiting on long work checks the daemon is alive.
* ``$/cancelRequest`` ``{"id"}`` (notification): cancel a request (a large one that runs is stopped).

Daemon to client: ``$/exit`` ``{"reason"}`` (notification) just before an orderly exit; requests
still unanswered then may be resent to a fresh daemon.
"""

from __future__ import annotations

from typing import Any, BinaryIO

from .. import transport
from ..transport import FramingError
from ..transport import MAX_HEADER_BYTES, encode  # noqa: F401 - the daemon's names for them

#: Bumped when a message's shape changes incompatibly.
PROTOCOL_VERSION = 1
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: LSP's code for a cancelled request; used for superseded and cancelled requests.
REQUEST_CANCELLED = -32800
UNAUTHORIZED = -32001
MESSAGE_TOO_LARGE = -32002
#: The daemon is exiting; the client may resend to a fresh daemon.
SHUTTING_DOWN = -32003
#: Exit status of a daemon that found another one already holding the lock (EX_TEMPFAIL).
EXIT_ALREADY_RUNNING = 75


def read_message(stream: BinaryIO, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> dict[str, Any] | None:
    """Read one message (a JSON object) from a blocking binary stream; None at a clean end of
    stream; ``FramingError`` for anything else."""
    message = transport.read_message(stream, max_message_bytes)
    if message is None:
        return None
    if not isinstance(message.value, dict):
        raise FramingError(transport.Fault("a message must be a JSON object", "body"))
    return message.value


def request(msg_id: int, method: str, params: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        out["params"] = params
    return out


def notification(method: str, params: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        out["params"] = params
    return out


def result(msg_id: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": value}


def error(msg_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": msg_id, "error": err}


def version_tuple(version: str) -> tuple[int, ...]:
    """``"1.2.3rc1"`` -> ``(1, 2, 3)``: the numeric release parts, for ordering versions."""
    parts = []
    for piece in version.split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)

