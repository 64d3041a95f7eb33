"""Open documents that apply incremental edits by LSP's line rule.

pygls splits a document with ``str.splitlines``, which also breaks lines at a form feed (a page
break in Python and Emacs Lisp files), a vertical tab, U+001C..U+001E, NEL, U+2028 and U+2029. LSP
lines end only at ``\\n``, ``\\r\\n`` or ``\\r``, so after such a character every edit the client
sends landed on the wrong line and the server scored text the editor never showed. Here an edit's
range goes through ``analysis.positions.LinePositions`` (the converter every range RefScore sends
comes from): columns past a line's end stop at its end, never inside a ``\\r\\n`` or after it.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from lsprotocol import types
from pygls.workspace import Workspace
from pygls.workspace.text_document import TextDocument

from ..analysis.positions import LinePositions

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


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
