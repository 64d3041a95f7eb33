"""Code-point offsets (RefScore's unit) to and from LSP positions (the client's unit, UTF-16 by default).

LSP lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only (unlike ``str.splitlines``); the column is
counted with the document's pygls position codec.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Positions:
    """Converts between code-point offsets in ``text`` and client positions."""

    def __init__(self, text: str, codec: PositionCodec | None = None) -> None:
        self.text = text
        self.codec = codec or PositionCodec()
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
        self._ascii = text.isascii()

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_text(self, line: int) -> str:
        """Text of ``line`` without its line break ('' past the end)."""
        if not 0 <= line < len(self.starts):
            return ""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line]:end].rstrip("\r\n")

    def position(self, offset: int) -> types.Position:
        """The client position of a code-point offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        column_text = self.text[self.starts[line]:offset]
        units = len(column_text) if self._ascii else self.codec.client_num_units(column_text)
        return types.Position(line=line, character=units)

    def range(self, start: int, end: int) -> types.Range:
        """The client range of a code-point span."""
        return types.Range(start=self.position(start), end=self.position(end))

    def offset(self, position: types.Position) -> int:
        """The code-point offset of a client position (clamped to the line and the text)."""
        if position.line >= len(self.starts):
            return len(self.text)
        line = self.line_text(position.line)
        base = self.starts[max(position.line, 0)]
        if self._ascii:
            return base + min(position.character, len(line))
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return base + index
            units += self.codec.client_num_units(char)
        return base + len(line)

    def line_range(self, line: int) -> types.Range:
        """The whole of ``line`` (without its break) as a client range."""
        start = self.starts[line] if 0 <= line < len(self.starts) else len(self.text)
        return self.range(start, start + len(self.line_text(line)))
