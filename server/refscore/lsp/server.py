"""The pygls server object: shared state, publishing, messages; features register themselves."""

from __future__ import annotations

import asyncio
import logging
import sys
import uuid
from pathlib import Path
from typing import Any, BinaryIO

from cattrs import Converter
from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter

from .. import __version__
from ..bidi import printable
from . import diagnostics
from .tokens import token_scores_json
from .behaviour import EditorBehaviour
from .loop import ScoringLoop
from .protocol import RefScoreProtocol, first_line
from .pull import PulledDiagnostics
from .results import Result
from .scorers import Scorers
from .settings import Settings
from .uris import document_key, fs_path

log = logging.getLogger(__name__)

TOKEN_SCORES = "refscore/tokenScores"
#: Seconds the client may take to answer ``window/workDoneProgress/create`` (then: no progress).
PROGRESS_CREATE_TIMEOUT_S = 5.0


def _strict_str(value: Any, _: type) -> str:
    if isinstance(value, str):
        return value
    raise TypeError(f"expected a string, got {type(value).__name__}")


def strict_converter() -> Converter:
    """pygls's converter, except that a string field takes only a string (its default turns
    ``"uri": 5`` into ``"5"``): such params get an InvalidParams reply instead."""
    converter = default_converter()
    converter.register_structure_hook(str, _strict_str)
    return converter


class RefScoreServer(LanguageServer):
    """Holds the settings, the scorers, the loop and what the client opted into."""

    def __init__(self, allow_daemon: bool = True) -> None:
        super().__init__("refscore", __version__, protocol_cls=RefScoreProtocol,
                         converter_factory=strict_converter)
        self.settings = Settings()
        self.scorers = Scorers(allow_daemon=allow_daemon)
        self.loop = ScoringLoop(self)
        self.behaviour = EditorBehaviour(self)  # functions run beside their reference functions
        self.pulled = PulledDiagnostics(self)  # what a pulling client is answered (lsp/pull.py)
        self.explicit_references: dict[str, tuple[Path, ...]] = {}
        self.token_scores = False  # initializationOptions.tokenScores
        self.initial_settings: dict[str, Any] | None = None  # initializationOptions.settings
        self.settings_ready: asyncio.Event | None = None  # set once the client's settings are read
        self._notices: set[str] = set()
        self._heat: set[str] = set()  # documents whose last tokenScores notification had tokens
        self.sent_status: dict[str, Any] | None = None  # the last refscore/status sent (lsp/status.py)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with the resynchronising reader (``stdio``), not pygls's."""
        from .stdio import serve_stdio

        serve_stdio(self, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer)

    # -- client capabilities -------------------------------------------------------------------

    def _supports(self, *path: str) -> bool:
        value: Any = self.client_capabilities
        for name in path:
            value = getattr(value, name, None)
            if value is None:
                return False
        return bool(value)

    def folders(self) -> list[Path]:
        """Workspace folders as paths (the root when the client sent no folders)."""
        out: list[Path] = []
        try:
            workspace = self.workspace
        except Exception:  # noqa: BLE001 - before initialize
            return out
        for folder in workspace.folders.values():
            path = fs_path(folder.uri)
            if path is not None:
                out.append(path.resolve())
        root = fs_path(workspace.root_uri) if not out and workspace.root_uri else None
        if root is not None:
            out.append(root.resolve())
        return out

    def document(self, uri: str) -> Any:
        """The open document ``uri`` names (pygls files them by the unquoted URI), else None."""
        return self.workspace.text_documents.get(document_key(uri))

    def open_uris(self) -> list[str]:
        """Every open document, by the URI its client gave."""
        return [document.uri for document in list(self.workspace.text_documents.values())]

    # -- output --------------------------------------------------------------------------------

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A failed notification handler: one line (pygls showed ``Error in server: ...``); a failed
        request already got its error reply."""
        from pygls.exceptions import FeatureRequestError

        if source is FeatureRequestError:
            return
        self.notice(f"RefScore: internal error: {first_line(str(error))}", types.MessageType.Error)

    def notice(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Show ``message`` once per session (and log it every time), control characters (of a
        file name) as visible markers."""
        message = printable(message)
        log.warning(message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))
        if message not in self._notices:
            self._notices.add(message)
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def publish(self, uri: str, version: int, result: Result | None) -> None:
        """Send the document's diagnostics, or keep them for a client that pulls them (and token
        scores, lens and hint refreshes)."""
        found = diagnostics.build(result, self.settings, diagnostics.document_behaviour(self.behaviour, result)) \
            if result is not None else []
        if result is not None and result.problem is None:
            found += self.behaviour.diagnostics(result)
        if not self.pulled.offer(uri, result, found):  # a client that pulls asks for them (lsp/pull.py)
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=found))
        if self.token_scores:
            self._send_token_scores(uri, version, result)
        if self._supports("workspace", "code_lens", "refresh_support") \
                and not (result is not None and result.functions_pending):  # its ranking's publish asks
            self.workspace_code_lens_refresh(None)
        if self.settings.inlay_hints and self._supports("workspace", "inlay_hint", "refresh_support"):
            self.workspace_inlay_hint_refresh(None)
        self.behaviour.after_publish(uri, result)

    def _send_token_scores(self, uri: str, version: int, result: Result | None) -> None:
        """The heat map's notification; an empty one once a document that had token scores will
        get none (CodeBERTScore off or unavailable, a problem, no reference), so clients clear it."""
        payload = token_scores_json(result) if result is not None else None  # made with the result
        if payload is not None:
            self.protocol.notify_json(TOKEN_SCORES, payload)
            self._heat.add(uri)
        elif uri in self._heat and (result is None or result.bert_state != "pending"):
            self.protocol.notify(TOKEN_SCORES, {"uri": uri, "version": version, "tokens": []})
            self._heat.discard(uri)

    def forget_heat(self, uri: str) -> None:
        """The document was closed: its client dropped what it drew."""
        self._heat.discard(uri)

    async def wait_for_settings(self, timeout: float = 5.0) -> None:
        """Wait (boundedly) until the first ``workspace/configuration`` answer has been applied."""
        if self.settings_ready is None:
            self.settings_ready = asyncio.Event()
        if self.settings_ready.is_set():
            return  # no wait_for: on Python 3.11 it can swallow a cancellation that races its result
        try:
            await asyncio.wait_for(self.settings_ready.wait(), timeout)
        except asyncio.TimeoutError:
            self.settings_ready.set()  # a client that never answers gets the defaults

    def mark_settings_ready(self) -> None:
        if self.settings_ready is None:
            self.settings_ready = asyncio.Event()
        self.settings_ready.set()

    async def begin_progress(self, title: str, message: str) -> str | None:
        """Start a work-done progress when the client supports it; returns its token."""
        if not self._supports("window", "work_done_progress"):
            return None
        token = f"refscore-{uuid.uuid4().hex[:8]}"
        try:
            # shielded: a superseded scoring task must not cancel the request's own future;
            # bounded: a client that never answers must not hold CodeBERTScore back
            await asyncio.wait_for(asyncio.shield(self.work_done_progress.create_async(token)),
                                   PROGRESS_CREATE_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - progress is decoration (a timeout included)
            return None
        self.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, message=message))
        return token

    def end_progress(self, token: str) -> None:
        self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="ready"))
