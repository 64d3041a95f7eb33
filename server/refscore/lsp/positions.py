"""LSP positions of code-point offsets: ``analysis.positions.LinePositions`` with the session's
negotiated position codec (UTF-16 by default), returning lsprotocol types."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from ..analysis.positions import LinePositions


class Positions:
    """Converts between code-point offsets in ``text`` and client positions."""

    def __init__(self, text: str, codec: PositionCodec | None = None) -> None:
        self.codec = codec or PositionCodec()
        self.lines = LinePositions(text, self.codec.client_num_units)
        self.text = text

    @property
    def line_count(self) -> int:
        return self.lines.line_count

    def line_text(self, line: int) -> str:
        """Text of ``line`` without its line break ('' past the end)."""
        return self.lines.line_text(line)

    def position(self, offset: int) -> types.Position:
        """The client position of a code-point offset (clamped to the text)."""
        line, character = self.lines.position(offset)
        return types.Position(line=line, character=character)

    def range(self, start: int, end: int) -> types.Range:
        """The client range of a code-point span."""
        return types.Range(start=self.position(start), end=self.position(end))

    def offset(self, position: types.Position) -> int:
        """The code-point offset of a client position (clamped to the line and the text)."""
        return self.lines.offset(position.line, position.character)

    def line_range(self, line: int) -> types.Range:
        """The whole of ``line`` (without its break) as a client range."""
        starts = self.lines.starts
        start = starts[line] if 0 <= line < len(starts) else len(self.text)
        return self.range(start, start + len(self.line_text(line)))
