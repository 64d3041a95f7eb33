"""pygls's protocol, except that no traceback ever reaches the client.

pygls answers a request whose handler raised with an InternalError carrying the server's
traceback in ``data``, and shows ``Error in server: ...`` for a notification that failed. Here
the reply keeps the error's code and its first line; the traceback goes to the log only.

Its documents apply incremental edits by LSP's line rule (``LspTextDocument``). pygls splits a
document with ``str.splitlines``, which also breaks lines at a form feed (a page break in Python
and Emacs Lisp files), a vertical tab, U+001C..U+001E, NEL, U+2028 and U+2029. LSP lines end only
at ``\\n``, ``\\r\\n`` or ``\\r``, so after such a character every edit the client sent landed on
the wrong line and the server scored text the editor never showed. Here an edit's range goes
through ``analysis.positions.LinePositions`` (the converter every range RefScore sends comes
from): columns past a line's end stop at its end, never inside a ``\\r\\n`` or after it.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
import re
from typing import Any, Sequence

from lsprotocol import types
from lsprotocol.types import ResponseError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.workspace import Workspace
from pygls.workspace.text_document import TextDocument

from ..analysis.positions import LinePositions

log = logging.getLogger(__name__)

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def first_line(text: str) -> str:
    """The first non-blank line of ``text`` (what a client is shown of an error)."""
    return next((line.strip() for line in str(text).splitlines() if line.strip()), "internal error")


class RefScoreProtocol(LanguageServerProtocol):
    """Replies with one-line errors and no traceback data; the initialize result says what the
    server can score (``capabilities.experimental.refscore``, lsp/status.py); documents apply
    edits by LSP's line rule (``LspTextDocument``)."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        from .pull import pull_mode
        from .status import server_status

        result = yield from super().lsp_initialize(params)
        use_lsp_documents(self)
        if not pull_mode(params.capabilities):  # pushed to it instead (lsp/pull.py)
            result.capabilities.diagnostic_provider = None
        experimental = result.capabilities.experimental
        result.capabilities.experimental = {**(experimental if isinstance(experimental, dict) else {}),
                                            "refscore": server_status(self._server)}
        return result

    def _send_response(self, msg_id: Any, result: Any | None = None, error: ResponseError | None = None) -> None:
        if error is not None:
            data = error.data
            if isinstance(data, dict) and "traceback" in data:
                log.debug("request %s failed:\n%s", msg_id, "".join(map(str, data["traceback"])))
                data = None
            error = ResponseError(code=error.code, message=first_line(error.message), data=data)
        super()._send_response(msg_id, result=result, error=error)

    def handle_message(self, message: Any) -> None:
        """pygls's dispatch of a request or a notification, without its tests against the
        runtime-checkable ``RPCRequest``/``RPCNotification`` protocols (each looks the protocol's
        members up again: a sixth of a millisecond per message, on every keystroke's path). A
        message with a method and an id is a request, one with a method only a notification; a
        response, another version or what comes after ``shutdown`` goes through pygls as before."""
        method = getattr(message, "method", None)
        if method is None or getattr(message, "jsonrpc", None) != self.VERSION \
                or (self._shutdown and method != types.EXIT):
            super().handle_message(message)
            return
        context = contextvars.copy_context()  # each handler in its own context, as pygls runs it
        request_id = getattr(message, "id", None)
        if request_id is not None:
            context.run(self._handle_request, request_id, method, message.params)
        else:
            context.run(self._handle_notification, method, message.params)

    def notify_json(self, method: str, params: str) -> None:
        """A notification whose params are JSON text already (made off the event loop): written
        as pygls writes any message (the writer in lsp/stdio.py frames it), without pygls
        converting the params again (cattrs and ``json.dumps`` of 50,000 token scores took the
        event loop for a second)."""
        if self.writer is None:
            log.error("cannot send %s: no transport", method)
            return
        body = f'{{"jsonrpc": "{self.VERSION}", "method": {json.dumps(method)}, "params": {params}}}'.encode(self.CHARSET)
        written = self.writer.write(body)
        if inspect.isawaitable(written):
            asyncio.ensure_future(written)


class LspTextDocument(TextDocument):
    """pygls's document with LSP lines and edits placed by them."""

    @property
    def lines(self) -> Sequence[str]:
        """The lines with their breaks, split at ``\\n``, ``\\r\\n`` and ``\\r`` only."""
        return tuple(_LINE.findall(self.source))

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        source = self.source
        positions = LinePositions(source, self.position_codec.client_num_units)
        start = positions.offset(change.range.start.line, change.range.start.character)
        end = max(start, positions.offset(change.range.end.line, change.range.end.character))
        self._source = source[:start] + change.text + source[end:]


class LspWorkspace(Workspace):
    """pygls's workspace, holding ``LspTextDocument``s."""

    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return LspTextDocument(doc_uri, source=source, version=version, language_id=language_id,
                               sync_kind=self._sync_kind, position_codec=self._position_codec)


def use_lsp_documents(protocol: Any) -> None:
    """Make the workspace pygls just created for ``initialize`` hold ``LspTextDocument``s."""
    workspace = getattr(protocol, "_workspace", None)
    if workspace is not None and type(workspace) is Workspace:
        workspace.__class__ = LspWorkspace


class OneLineErrors(logging.Filter):
    """Log records with an exception become one line (``... : JsonRpcInvalidParams: message``):
    pygls logs a full traceback for every request that fails, even a bad argument answered with
    InvalidParams, and the log is what editors show. ``REFSCORE_DEBUG=1`` keeps the tracebacks."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()}: {type(error).__name__}: {first_line(str(error))}"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


def one_line_errors() -> None:
    """Install ``OneLineErrors`` on the root logger's handlers (unless ``REFSCORE_DEBUG=1``)."""
    import os

    if os.environ.get("REFSCORE_DEBUG") == "1":
        return
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, OneLineErrors) for f in handler.filters):
            handler.addFilter(OneLineErrors())
