"""CodeBERTScore token views for terminals and JSON: a heat view of the candidate, the weak and
missing words, and token records with LSP-style ranges.

Ranges use 0-based lines and 0-based characters counted in UTF-16 code units (LSP's default unit),
computed from the code-point offsets every RefScore result carries.
"""

from __future__ import annotations

from typing import Any

from ..analysis.positions import LinePositions
from ..bidi import printable
from ..metrics.codebertscore_result import BertScore, WordAlignment, merge_pieces
from ..vocabulary import WEAK_TOKEN_THRESHOLD as DEFAULT_WEAK_THRESHOLD
from ..vocabulary import heat_bucket

_RED, _YELLOW, _RESET = "\x1b[41;97m", "\x1b[43;30m", "\x1b[0m"


def _range(index: LinePositions, start: int, end: int) -> dict[str, Any]:
    (l0, c0), (l1, c1) = index.range(start, end)
    return {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}


def candidate_words(bert: BertScore, candidate: str) -> list[WordAlignment]:
    """The candidate's tokens as a reader sees them, with similarity and best reference match."""
    return merge_pieces(bert.candidate_tokens, candidate)


def missing_words(bert: BertScore, reference: str, threshold: float = DEFAULT_WEAK_THRESHOLD) -> list[WordAlignment]:
    """Reference words whose best match in the candidate is weak: what the candidate lacks."""
    words = merge_pieces(bert.reference_tokens, reference)
    return [w for w in words if w.similarity < threshold and w.text.strip()]


def token_records(bert: BertScore, candidate: str, references: tuple[str, ...]) -> list[dict[str, Any]]:
    """``[{"text", "range", "similarity", "match": {"text", "range"} | None}]`` for JSON output."""
    cand_index = LinePositions(candidate)
    reference = references[bert.reference_index] if 0 <= bert.reference_index < len(references) else ""
    ref_index = LinePositions(reference)
    records = []
    for word in candidate_words(bert, candidate):
        match = None
        if word.match_start is not None and word.match_end is not None:
            match = {"text": word.match_text, "range": _range(ref_index, word.match_start, word.match_end)}
        records.append({"text": word.text, "range": _range(cand_index, word.start, word.end),
                        "similarity": round(word.similarity, 6), "match": match})
    return records


def render_heat(candidate: str, words: list[WordAlignment], *, color: bool,
                threshold: float = DEFAULT_WEAK_THRESHOLD, max_lines: int = 60) -> str:
    """The candidate with weak words highlighted: red below ``threshold``, yellow just above it.

    Without colour, weak words are marked «like this» and borderline ones ‹like this›.
    """
    def safe(text: str) -> str:  # the code's own control characters never reach the terminal raw
        return printable(text.replace("\r\n", "\n"), keep="\n\t")

    pieces, position = [], 0
    for word in words:
        bucket = heat_bucket(word.similarity, threshold)
        if bucket is None:
            continue
        weak = bucket != "fair"  # below the threshold (weak or low): red; fair: yellow
        pieces.append(safe(candidate[position:word.start]))
        if color:
            pieces.append(f"{_RED if weak else _YELLOW}{safe(word.text)}{_RESET}")
        else:
            pieces.append(f"«{safe(word.text)}»" if weak else f"‹{safe(word.text)}›")
        position = word.end
    pieces.append(safe(candidate[position:]))
    lines = "".join(pieces).split("\n")
    shown = lines[:max_lines]
    if len(lines) > max_lines:
        shown.append(f"… {len(lines) - max_lines} more lines")
    return "\n".join("    " + line for line in shown)
