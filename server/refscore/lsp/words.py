"""CodeBERTScore's token similarities on whole code tokens, the unit a person reads.

The model's tokenizer cuts code into word pieces (``append`` is ``app`` + ``end``, ``==`` is
``=`` + ``=``). The editor marks, colours and explains whole code tokens instead: each piece
joins the code token around it (a name, a number, an operator), whose similarity is the mean of its
pieces' and whose reference match is its weakest piece's. Tokens inside comments and docstrings
are left out: a word of an explanation is no token of the solution.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from .. import languages
from ..languages import LanguageSpec
from ..parsing.prose import inside, prose_spans

#: One code token: a name or number, a common multi-character operator, else one character.
_CODE_TOKEN = re.compile(r"\w+|\*\*=?|//=?|<<=?|>>=?|->|=>|::|&&|\|\||[-+*/%&|^!<>=]=|\S")


def text_layout(text: str, spec: LanguageSpec | None) -> tuple[list[tuple[int, int]], list[int], list[tuple[int, int]]]:
    """The spans of ``text``'s code tokens, their starts, and its comments' and docstrings' spans:
    what ``code_tokens`` reads besides the model's pieces. Kept for the last texts, so that the
    editor makes them while the daemon encodes (``phases.warm_finish``) and the finish stage only reads them."""
    return _layout(text, spec.name if spec is not None else None)


@lru_cache(maxsize=4)
def _layout(text: str, language: str | None) -> tuple[list[tuple[int, int]], list[int], list[tuple[int, int]]]:
    spans = [m.span() for m in _CODE_TOKEN.finditer(text)]
    return spans, [start for start, _ in spans], prose_spans(text, languages.get(language)) if language else []


@dataclass(frozen=True)
class CodeToken:
    """A whole code token of the candidate with its similarity to the reference."""

    start: int
    end: int
    text: str
    similarity: float
    match_start: int | None = None
    match_end: int | None = None
    match_text: str | None = None


def code_tokens(text: str, spec: LanguageSpec | None, pieces: Sequence[Any]) -> list[CodeToken]:
    """The whole code tokens of ``text`` the model's ``pieces`` (``start``, ``end``,
    ``similarity``, ``match_*``) fall in, in order, those in comments and docstrings left out."""
    spans, starts, prose = text_layout(text, spec)
    groups: dict[tuple[int, int], list[Any]] = {}
    for piece in pieces:
        if not text[piece.start:piece.end].strip():
            continue
        at = bisect.bisect_right(starts, piece.start) - 1
        span = spans[at] if at >= 0 and piece.start < spans[at][1] else (piece.start, piece.end)
        groups.setdefault((span[0], max(span[1], piece.end)), []).append(piece)
    out = []
    for (start, end), members in sorted(groups.items()):
        if prose and inside(prose, start, end):  # a token of a comment or docstring: never marked
            continue
        weakest = min(members, key=lambda p: p.similarity)
        out.append(CodeToken(start, end, text[start:end], sum(p.similarity for p in members) / len(members),
                             weakest.match_start, weakest.match_end, weakest.match_text))
    return out
