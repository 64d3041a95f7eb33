"""Pull diagnostics (LSP 3.17 ``textDocument/diagnostic``) for a client that announces them and
``workspace/diagnostic/refresh`` (VS Code's language client): the server keeps, per document,
what it would have pushed, answers a pull with it (a ``resultId``, so a pull of an unchanged
result is answered ``unchanged``), asks the client to pull again when a newer set is ready, and
pushes nothing (two copies would show). Any other client (eglot 1.9, a client without refresh)
gets ``textDocument/publishDiagnostics`` as before, and the server does not offer the provider.

What a pull answers is the last set published (``RefScoreServer.publish``: one stable update
per edit, lsp/current.py), so a save or a pull between two results never withdraws what is shown.
A pull that comes while the document's text is newer than the scored one (a client pulls at
each change) gets that set seen from the current text (``current.View``): the diagnostics before
the edit keep their place, those after it move with it, those the edit touched wait for the new
result, and the summary stays at the end of the first code line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import attrs
from lsprotocol import types

from .current import View
from .diagnostics import SUMMARY, summary_range
from .results import Result

if TYPE_CHECKING:
    from .server import RefScoreServer

log = logging.getLogger(__name__)

#: What the server offers in ``initialize`` (``diagnosticProvider``): a document's diagnostics
#: depend on other files (its references), and there is no workspace-wide pull.
OPTIONS = types.DiagnosticOptions(identifier="refscore", inter_file_dependencies=True, workspace_diagnostics=False)


def pull_mode(capabilities: Any) -> bool:
    """Whether a client with ``capabilities`` pulls: it announces ``textDocument.diagnostic`` and
    ``workspace.diagnostics.refreshSupport`` (without a refresh, a result that arrives after the
    client's pull, CodeBERTScore's, would never be shown)."""
    document = getattr(getattr(capabilities, "text_document", None), "diagnostic", None)
    workspace = getattr(getattr(capabilities, "workspace", None), "diagnostics", None)
    return document is not None and bool(getattr(workspace, "refresh_support", False))


@dataclass(frozen=True)
class Kept:
    """A document's last published set: its result (None: no reference), its items, its id."""

    result: Result | None
    items: list[types.Diagnostic]
    result_id: str


class PulledDiagnostics:
    """The diagnostics a pulling client asks for, one set per open document."""

    def __init__(self, server: "RefScoreServer") -> None:
        self.server = server
        self.kept: dict[str, Kept] = {}
        self._count = 0

    @property
    def active(self) -> bool:
        """Whether this session's client pulls (``pull_mode``); False before ``initialize``."""
        try:
            return pull_mode(self.server.client_capabilities)
        except Exception:  # noqa: BLE001 - no client capabilities yet
            return False

    def offer(self, uri: str, result: Result | None, found: list[types.Diagnostic]) -> bool:
        """Keep ``found``, the document's new set, for its client's next pull, and ask for that
        pull when it differs from the last; False when the client does not pull (push it)."""
        if not self.active:
            return False
        previous = self.kept.get(uri)
        same_text = previous is not None and _text(previous.result) == _text(result)
        if previous is not None and same_text and previous.items == found:
            self.kept[uri] = Kept(result, found, previous.result_id)  # nothing new to show
            return True
        self._count += 1
        self.kept[uri] = Kept(result, found, str(self._count))
        try:
            self.server.workspace_diagnostic_refresh(None)
        except Exception as error:  # noqa: BLE001 - the client pulls at its next change anyway
            log.warning("workspace/diagnostic/refresh failed: %s", error)
        return True

    def forget(self, uri: str) -> None:
        """The document was closed: its client drops what it pulled."""
        self.kept.pop(uri, None)

    def report(self, uri: str, previous_result_id: str | None) -> types.DocumentDiagnosticReport:
        """The answer to a pull of ``uri``: ``unchanged`` when ``previous_result_id`` names what
        would be sent, else the full set, seen from the document's current text."""
        kept = self.kept.get(uri)
        if kept is None:  # not scored yet: nothing; a refresh follows the first result
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        items, result_id = kept.items, kept.result_id
        document = self.server.document(uri)
        if kept.result is not None and document is not None and document.source != kept.result.text:
            items = moved(kept.result, items, document.source)
            result_id = f"{result_id}@{document.version}"
        if previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)


def _text(result: Result | None) -> str | None:
    return result.text if result is not None else None


def moved(result: Result, items: list[types.Diagnostic], text: str) -> list[types.Diagnostic]:
    """``items`` (diagnostics of ``result``'s text) seen from ``text``: those the edit between the
    two touched are left out, the summary stays at the end of the first code line."""
    view = View(result, text)
    out = []
    for item in items:
        if item.code == SUMMARY:
            out.append(attrs.evolve(item, range=summary_range(result, view.positions)))
            continue
        start, end = (result.positions.offset(p) for p in (item.range.start, item.range.end))
        found = view.range(start, end)
        if found is not None:
            out.append(attrs.evolve(item, range=found))
    return out


def register(server: "RefScoreServer") -> None:
    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, OPTIONS)
    def diagnostic(ls: "RefScoreServer", params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        return ls.pulled.report(params.text_document.uri, params.previous_result_id)
