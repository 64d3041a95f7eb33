"""Code-point offsets (RefScore's unit) to and from (line, column) positions, the one converter.

Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (LSP's rule, unlike ``str.splitlines``). Columns count
UTF-16 code units by default (LSP's default unit); pass another ``units`` counter for UTF-8 or
UTF-32 (the language server passes its negotiated position codec's).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def utf16_units(text: str) -> int:
    """How many UTF-16 code units ``text`` takes."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


#: Lines longer than this many characters get checkpoints: a position on them costs O(_STEP),
#: not O(line length) (minified code is one line).
_STEP = 256


class LinePositions:
    """Converts between code-point offsets in ``text`` and (line, column) positions."""

    def __init__(self, text: str, units: Callable[[str], int] = utf16_units) -> None:
        self.text = text
        self.units = units
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
        self._ascii = text.isascii()
        self._marks: dict[int, list[int]] = {}  # long line -> units before every _STEP-th character

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_text(self, line: int) -> str:
        """Text of ``line`` without its line break ('' past the end)."""
        if not 0 <= line < len(self.starts):
            return ""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line]:end].rstrip("\r\n")

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of a code-point offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        if self._ascii:
            return line, offset - start
        if offset - start <= _STEP:
            return line, self.units(self.text[start:offset])
        marks = self._line_marks(line)  # a long line: count from the nearest checkpoint
        k = min((offset - start) // _STEP, len(marks) - 1)
        return line, marks[k] + self.units(self.text[start + k * _STEP:offset])

    def _line_marks(self, line: int) -> list[int]:
        """Units before every ``_STEP``-th character of ``line`` (computed once per line)."""
        marks = self._marks.get(line)
        if marks is None:
            start = self.starts[line]
            end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
            marks, total = [], 0
            for at in range(start, end, _STEP):
                marks.append(total)
                total += self.units(self.text[at:min(at + _STEP, end)])
            self._marks[line] = marks
        return marks

    def range(self, start: int, end: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """((line, column), (line, column)) of a code-point span."""
        return self.position(start), self.position(end)

    def offset(self, line: int, column: int) -> int:
        """The code-point offset of a position (clamped to the line and the text)."""
        if line >= len(self.starts):
            return len(self.text)
        text = self.line_text(line)
        base = self.starts[max(line, 0)]
        if self._ascii:
            return base + min(max(column, 0), len(text))
        first, units = 0, 0
        if len(text) > _STEP:  # a long line: start at the last checkpoint not past the column
            marks = self._line_marks(line)
            k = max(0, min(bisect_right(marks, column) - 1, len(text) // _STEP))
            first, units = k * _STEP, marks[k]
        for index in range(first, len(text)):
            if units >= column:
                return base + index
            units += self.units(text[index])
        return base + len(text)
