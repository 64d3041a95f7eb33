"""Token alignments as a reader sees them: subword pieces merged into words.

Units: ``TokenAlignment.start/end`` are Python string indices (code points) into the original
text (``refscore.analysis.positions`` turns them into line/column positions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .codebertscore_result import TokenAlignment


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
