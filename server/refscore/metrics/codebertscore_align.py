"""Token alignments as a reader sees them: subword pieces merged into words, LSP ranges.

Units: ``TokenAlignment.start/end`` are Python string indices (code points) into the original
text. ``LineIndex.position`` turns them into LSP positions: 0-based line and 0-based character
counted in UTF-16 code units (what LSP uses by default); lines end at ``\\n``, ``\\r\\n`` or ``\\r``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Sequence

from .codebertscore_scorer import TokenAlignment


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


@dataclass(frozen=True)
class WordAlignment:
    """A reader-level token: adjacent word pieces merged (``foo_bar`` from ``foo``, ``_``, ``bar``).

    ``similarity`` is the weight-averaged similarity of its pieces (plain mean when all weights
    are 0); the match is that of its best-matching piece.
    """

    text: str
    start: int
    end: int
    similarity: float
    match_text: str | None
    match_start: int | None
    match_end: int | None
    pieces: int


def merge_pieces(tokens: Sequence[TokenAlignment], text: str) -> list[WordAlignment]:
    """Merge touching pieces whose junction lies inside a word (letters, digits, underscore)."""
    groups: list[list[TokenAlignment]] = []
    for tok in sorted(tokens, key=lambda t: (t.start, t.end)):
        if groups:
            prev = groups[-1][-1]
            if (prev.end == tok.start and 0 < tok.start < len(text)
                    and _is_word_char(text[tok.start - 1]) and _is_word_char(text[tok.start])):
                groups[-1].append(tok)
                continue
        groups.append([tok])
    out = []
    for group in groups:
        total = sum(t.weight for t in group)
        if total > 0:
            sim = sum(t.similarity * t.weight for t in group) / total
        else:
            sim = sum(t.similarity for t in group) / len(group)
        best = max(group, key=lambda t: t.similarity)
        start, end = group[0].start, group[-1].end
        out.append(WordAlignment(text[start:end], start, end, sim, best.match_text,
                                 best.match_start, best.match_end, len(group)))
    return out


class LineIndex:
    """Maps string offsets of one text to LSP (line, UTF-16 character) positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch == "\r" and i + 1 < n and text[i + 1] == "\n":
                i += 2
                starts.append(i)
                continue
            i += 1
            if ch in "\r\n":
                starts.append(i)
        self._starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        """(line, character) of string offset ``offset``; the character counts UTF-16 units."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._starts, offset) - 1
        segment = self.text[self._starts[line]:offset]
        return line, len(segment.encode("utf-16-le", "surrogatepass")) // 2

    def range(self, start: int, end: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """LSP range ((line, character), (line, character)) of a span."""
        return self.position(start), self.position(end)
