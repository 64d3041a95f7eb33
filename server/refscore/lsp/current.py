"""A result seen from the document's current text.

Hovers, lenses and inlay hints are answered from the last result while a newer version is being
scored, but a result's offsets belong to the text it scored. Between the two texts the common
prefix and suffix are unchanged and everything between them is the edit: a span before the edit
keeps its offsets, one after it moves by the edit's length, one that overlaps it is left out. So
no range is ever sent against text it was not computed on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .positions import Positions
from .results import Result

if TYPE_CHECKING:
    from .server import RefScoreServer


def _common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (binary search over C-speed slice comparisons)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the longest common suffix, at most ``limit``."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:] == b[len(b) - middle:]:
            low = middle
        else:
            high = middle - 1
    return low


class View:
    """Maps a result's offsets to the current text and back; ``positions`` are the current text's."""

    def __init__(self, result: Result, text: str) -> None:
        self.result = result
        self.same = text == result.text
        self.positions = result.positions if self.same else Positions(text, result.codec)
        old = result.text
        self.prefix = len(old) if self.same else _common_prefix(old, text)
        limit = min(len(old), len(text)) - self.prefix
        self.suffix = 0 if self.same else _common_suffix(old, text, limit)
        self.delta = len(text) - len(old)
        self._old_tail = len(old) - self.suffix  # where the unchanged suffix starts in the old text

    def to_result(self, offset: int) -> int | None:
        """The result's offset of a current offset; None inside the edit."""
        if self.same or offset < self.prefix:
            return offset
        old = offset - self.delta
        return old if old >= self._old_tail else None

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """The current offsets of a result's span; None when the edit touched it."""
        if self.same or end <= self.prefix:
            return start, end
        if start >= self._old_tail:
            return start + self.delta, end + self.delta
        return None

    def range(self, start: int, end: int) -> types.Range | None:
        """The current range of a result's span; None when the edit touched it."""
        moved = self.span(start, end)
        return None if moved is None else self.positions.range(*moved)

    def offset(self, position: types.Position) -> int | None:
        """The result's offset of a current position; None inside the edit."""
        return self.to_result(self.positions.offset(position))


def view(server: "RefScoreServer", uri: str) -> View | None:
    """The document's last result seen from its current text; None without a result or document."""
    result = server.loop.results.get(uri)
    document = server.document(uri)
    if result is None or document is None:
        return None
    return View(result, document.source)
