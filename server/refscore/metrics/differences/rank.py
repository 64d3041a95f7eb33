"""Rank candidate spans by how much they depart from the reference.

Each unaligned run of tokens (``align.Chunk``) is a candidate span; its weight (0..1) combines:

* ``alignment``: what changed (an operator, constant, name or keyword counts more than
  punctuation) and how firmly aligned code surrounds it;
* ``codebleu``: the CodeBLEU explanations placed on the span (dataflow edges, small subtrees,
  n-gram runs the candidate lacks);
* ``codebertscore``: how far below the candidate's typical token similarity the span's weakest
  token is, on either side (the candidate's precision tokens, the reference's recall tokens).

All three are scaled by how compact the change is: a slip is a small change inside code that
otherwise matches, a rewrite in another style a long one (whose evidence piles up). CodeBLEU
explanations placed where no token differs become weaker differences of their own.
Differences starting on the same candidate line are merged (the strongest one's reason).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from dataclasses import dataclass, replace
from statistics import median
from typing import Sequence

from ...analysis.leaves import CodeToken
from . import reasons
from .align import Alignment, Chunk
from .model import DifferenceKind, PlacedExplanation
from .spans import SpanIndex, overlaps, pick, union

_KIND_WEIGHT = {"operator": 1.0, "number": 1.0, "name": 0.9, "literal": 0.9, "keyword": 0.8, "string": 0.6,
                "punct": 0.25}
_COMPONENT_WEIGHT = {"dataflow_match": 1.0, "syntax_match": 0.6, "ngram_match": 0.4}
#: shares of the three signals in a difference's weight
SHARES = {"alignment": 0.6, "codebleu": 0.2, "codebertscore": 0.2}
COMPACT_SIZE, COMPACT_SLOPE = 3, 0.25
NAME_UNKNOWN = 0.6
Similarity = tuple[int, int, float]  # start, end, cosine
_NEWLINE = re.compile("\n")


@dataclass(frozen=True)
class Evidence:
    """What the ranking reads besides the alignment (all optional)."""

    placed: Sequence[PlacedExplanation] = ()
    candidate_similarity: Sequence[Similarity] = ()
    reference_similarity: Sequence[Similarity] = ()


def _content(tokens: Sequence[CodeToken]) -> float:
    return sum(_KIND_WEIGHT.get(t.kind, 0.5) for t in tokens)


def alignment_weight(chunk: Chunk, alignment: Alignment) -> float:
    """How much a chunk looks like a slip in otherwise matching code (0..1)."""
    ref = alignment.reference[chunk.ref_lo:chunk.ref_hi]
    cand = alignment.candidate[chunk.cand_lo:chunk.cand_hi]
    if chunk.kind == "moved":  # the code is there, in another place: an order the reference does not have
        return 0.5 / (1 + 0.05 * len(ref))
    content = 1 - math.exp(-1.5 * max(_content(ref), _content(cand)))
    context = 0.2 + 0.4 * (1 - math.exp(-chunk.before / 3)) + 0.4 * (1 - math.exp(-chunk.after / 3))
    whole_lines = chunk.kind == "insert" and _whole_lines(alignment.candidate, chunk.cand_lo, chunk.cand_hi)
    return content * context * (0.6 if whole_lines else 1.0) * _name_factor(ref, cand, alignment)


def _name_factor(ref: Sequence[CodeToken], cand: Sequence[CodeToken], alignment: Alignment) -> float:
    """A name in place of another counts fully when both are names the renaming knows (one
    variable used for another); a name it does not know is more likely a renaming it missed."""
    if len(ref) != 1 or len(cand) != 1 or ref[0].kind != "name" or cand[0].kind != "name":
        return 1.0
    renames = dict(alignment.renames)
    known = ref[0].text in renames and cand[0].text in set(renames.values())
    return 1.0 if known else NAME_UNKNOWN


def compactness(chunk: Chunk) -> float:
    """1 for a change of up to ``COMPACT_SIZE`` tokens, less for longer ones (a rewrite, not a slip)."""
    size = max(chunk.ref_hi - chunk.ref_lo, chunk.cand_hi - chunk.cand_lo)
    return 1 / (1 + COMPACT_SLOPE * max(0, size - COMPACT_SIZE))


def _whole_lines(tokens: Sequence[CodeToken], lo: int, hi: int) -> bool:
    """Whether ``tokens[lo:hi]`` are whole lines (extra statements, not a change inside one)."""
    first_alone = lo == 0 or tokens[lo - 1].line != tokens[lo].line
    last_alone = hi == len(tokens) or tokens[hi].line != tokens[hi - 1].line
    return first_alone and last_alone


def codebleu_weight(placed: Sequence[PlacedExplanation], start: int, end: int,
                    ref_start: int, ref_end: int) -> float:
    """Explanations on the span (candidate side) or on the code it lacks (reference side), the
    smaller ones counting more."""
    total = 0.0
    for item in placed:
        on_candidate = item.start is not None and item.end is not None and overlaps(item.start, item.end, start, end)
        on_reference = ref_end > ref_start and overlaps(item.explanation.start, item.explanation.end, ref_start, ref_end)
        if on_candidate or on_reference:
            size = item.explanation.end - item.explanation.start
            total += _COMPONENT_WEIGHT.get(item.explanation.component, 0.3) / (1 + size / 40)
    return 1 - math.exp(-total)


def similarity_weight(similarities: Sequence[Similarity], start: int, end: int, typical: float) -> float:
    """How far below ``typical`` the weakest token in ``start:end`` is (0..1)."""
    inside = [s for a, b, s in similarities if overlaps(a, b, start, end)]
    if not inside or typical <= 0:
        return 0.0
    return max(0.0, min(1.0, 1 - min(inside) / typical))


def _typical(similarities: Sequence[Similarity]) -> float:
    return median(s for _, _, s in similarities) if similarities else 0.0


def _span(tokens: Sequence[CodeToken], text: str | None = None) -> tuple[int, int]:
    """From the first token to the last; with ``text`` (the candidate), only as far as the code
    runs on the first token's line with nothing but spaces between tokens (a range never takes in
    a comment or another line)."""
    if text is None:
        return tokens[0].start, tokens[-1].end
    end = tokens[0].end
    for previous, token in zip(tokens, tokens[1:]):
        if token.line != previous.line or text[previous.end:token.start].strip():
            break
        end = token.end
    return tokens[0].start, end


def _chunk_spans(chunk: Chunk, alignment: Alignment, reference: str,
                 candidate: str) -> tuple[tuple[int, int], tuple[int, int], DifferenceKind] | None:
    """(candidate span, reference span, kind) of a chunk; a missing run is shown on the
    candidate line it would follow (or precede)."""
    ref_tokens, cand_tokens = alignment.reference, alignment.candidate
    ref_span = _span(ref_tokens[chunk.ref_lo:chunk.ref_hi]) if chunk.ref_hi > chunk.ref_lo else None
    if chunk.kind == "delete":
        if not cand_tokens:
            return None
        anchor = max(0, min(chunk.cand_lo - 1, len(cand_tokens) - 1))
        assert ref_span is not None
        return (_span(reasons.line_tokens(cand_tokens, candidate, anchor), candidate), ref_span, "missing")
    cand_span = _span(cand_tokens[chunk.cand_lo:chunk.cand_hi], candidate)
    if ref_span is None:  # extra code: the reference side is where it would be
        at = min(chunk.ref_lo, len(ref_tokens) - 1)
        if at < 0:
            return None
        ref_span = (ref_tokens[at].start, ref_tokens[at].end)
        return cand_span, ref_span, "extra"
    kinds = {t.kind for t in (*ref_tokens[chunk.ref_lo:chunk.ref_hi], *cand_tokens[chunk.cand_lo:chunk.cand_hi])}
    if chunk.kind == "moved":
        return cand_span, ref_span, "moved"
    return cand_span, ref_span, "name" if kinds == {"name"} else "changed"


def _shown(chunk: Chunk, alignment: Alignment, end: int) -> Chunk:
    """The chunk as far as its candidate range goes (a range stops at the end of the line or at a
    comment), so the reason names the code the range covers."""
    if chunk.kind == "delete":
        return chunk
    tokens = alignment.candidate
    hi = chunk.cand_lo
    while hi < chunk.cand_hi and tokens[hi].end <= end:
        hi += 1
    return chunk if hi == chunk.cand_hi else replace(chunk, cand_hi=max(hi, chunk.cand_lo + 1))


def _reason(chunk: Chunk, alignment: Alignment, reference: str, candidate: str) -> str:
    if chunk.kind == "delete":
        return reasons.missing(alignment, chunk, reference)
    if chunk.kind == "insert":
        return reasons.extra(alignment, chunk, candidate)
    if chunk.kind == "moved":
        return reasons.moved(alignment, chunk, reference)
    return reasons.replaced(alignment, chunk, reference, candidate)


@dataclass(frozen=True)
class RawDifference:
    """A difference before its ranges are computed (offsets only)."""

    kind: DifferenceKind
    start: int
    end: int
    reference_start: int
    reference_end: int
    reason: str
    weight: float
    evidence: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class _ChunkBasis:
    """What a chunk's difference is before the token similarities: its place, kind and words, its
    alignment and CodeBLEU shares and their scale (``rank`` adds the CodeBERTScore share)."""

    #: the difference's kind, candidate start and end, reference start and end, and reason
    where: tuple[DifferenceKind, int, int, int, int, str]
    alignment: float
    codebleu: float
    scale: float


@dataclass(frozen=True)
class _ExplainedBasis:
    """An explanation no chunk covers, its CodeBLEU share and words (``_explained``)."""

    item: PlacedExplanation
    codebleu: float
    reason: str


@dataclass(frozen=True)
class Bases:
    """The ranking's first stage, which reads the alignment and the placed CodeBLEU explanations
    but no token similarity: the editor's finish stage ranks the same alignment and explanations
    again with CodeBERTScore's similarities, from these (``differences.rank_differences``)."""

    chunks: tuple[_ChunkBasis, ...]
    explained: tuple[_ExplainedBasis, ...]


def bases(alignment: Alignment, reference: str, candidate: str, placed: Sequence[PlacedExplanation]) -> Bases:
    """The first stage of ``rank``: each chunk's and each uncovered explanation's basis."""
    near = _NearPlaced(placed)  # each difference reads the explanations near it only
    chunks: list[_ChunkBasis] = []
    for chunk in alignment.chunks:
        spans = _chunk_spans(chunk, alignment, reference, candidate)
        if spans is None:
            continue
        (start, end), (ref_start, ref_end), kind = spans
        chunks.append(_ChunkBasis(
            (kind, start, end, ref_start, ref_end, _reason(_shown(chunk, alignment, end), alignment, reference, candidate)),
            alignment_weight(chunk, alignment),
            codebleu_weight(near(start, end, ref_start, ref_end), start, end, ref_start, ref_end),
            1.0 if chunk.kind == "moved" else compactness(chunk)))
    return Bases(tuple(chunks), tuple(_explained(placed, [c.where[1:3] for c in chunks], candidate)))


def rank(alignment: Alignment, reference: str, candidate: str, evidence: Evidence,
         made: Bases | None = None) -> list[RawDifference]:
    """The differences of an alignment, strongest first (one per candidate line). ``made``: the
    first stage (``bases``) of the same alignment, texts and ``evidence.placed``, when kept."""
    if made is None:
        made = bases(alignment, reference, candidate, evidence.placed)
    cand_typical = _typical(evidence.candidate_similarity)
    ref_typical = _typical(evidence.reference_similarity)
    on_candidate = _NearSimilar(evidence.candidate_similarity)
    on_reference = _NearSimilar(evidence.reference_similarity)
    found: list[RawDifference] = []
    for basis in made.chunks:
        kind, start, end, ref_start, ref_end, _ = basis.where
        shares = {
            "alignment": basis.alignment,
            "codebleu": basis.codebleu,
            "codebertscore": max(similarity_weight(on_candidate(start, end), start, end, cand_typical)
                                 if kind != "missing" else 0.0,
                                 similarity_weight(on_reference(ref_start, ref_end), ref_start, ref_end, ref_typical)),
        }
        parts = tuple((k, basis.scale * SHARES[k] * v) for k, v in shares.items())
        found.append(RawDifference(*basis.where, sum(v for _, v in parts), parts))
    for explained in made.explained:
        item = explained.item
        shares = {"codebleu": explained.codebleu,
                  "codebertscore": similarity_weight(on_candidate(item.start, item.end), item.start, item.end,
                                                     cand_typical)}
        weight = 0.5 * sum(SHARES[k] * v for k, v in shares.items())
        found.append(RawDifference("structure", item.start, item.end, item.explanation.start, item.explanation.end,
                                   explained.reason, weight, tuple((k, 0.5 * SHARES[k] * v) for k, v in shares.items())))
    return _merge_lines(found, candidate)


class _NearPlaced:
    """The placed explanations near a span, on either side (``SpanIndex``), in their order."""

    def __init__(self, placed: Sequence[PlacedExplanation]) -> None:
        self.placed = placed
        self._on_candidate = SpanIndex((p.start, p.end) if p.start is not None and p.end is not None else None
                                       for p in placed)
        self._on_reference = SpanIndex((p.explanation.start, p.explanation.end) for p in placed)

    def __call__(self, start: int, end: int, ref_start: int, ref_end: int) -> list[PlacedExplanation]:
        groups = [self._on_candidate.near(start, end)]
        if ref_end > ref_start:
            groups.append(self._on_reference.near(ref_start, ref_end))
        return pick(self.placed, union(*groups))


class _NearSimilar:
    """The token similarities near a span (``SpanIndex``), in their order."""

    def __init__(self, similarities: Sequence[Similarity]) -> None:
        self.similarities = similarities
        self._index = SpanIndex((a, b) for a, b, _ in similarities)

    def __call__(self, start: int, end: int) -> list[Similarity]:
        if not self.similarities:  # CodeBLEU's ranking: no similarity is near anything
            return []
        return pick(self.similarities, self._index.near(start, end))


def _explained(placed: Sequence[PlacedExplanation], covered: Sequence[tuple[int, int]],
               candidate: str) -> list[_ExplainedBasis]:
    """Syntax and dataflow explanations placed on one candidate line that no chunk covers."""
    found = []
    covering = SpanIndex(covered)
    for item in placed:
        if item.start is None or item.end is None or item.explanation.component == "ngram_match":
            continue
        if "\n" in candidate[item.start:item.end] or any(
                overlaps(item.start, item.end, *covered[k]) for k in covering.near(item.start, item.end)):
            continue
        explanation = item.explanation
        found.append(_ExplainedBasis(item, codebleu_weight([item], item.start, item.end, 0, 0),
                                     reasons.explained(explanation.component, explanation.text)))
    return found


def _merge_lines(found: list[RawDifference], candidate: str) -> list[RawDifference]:
    """One difference per candidate line (the strongest, its weight raised a little by the rest)."""
    by_line: dict[int, list[RawDifference]] = {}
    breaks = [m.start() for m in _NEWLINE.finditer(candidate)] if found else []  # once, not per item
    for item in found:
        by_line.setdefault(bisect_left(breaks, item.start), []).append(item)  # the "\n"s before it
    merged = []
    for items in by_line.values():
        items.sort(key=lambda d: (-d.weight, d.start))
        strongest = items[0].weight
        # a change inside a moved line says more than the move: its words lead
        best = next((d for d in items if d.kind != "moved"), items[0])
        if len(items) > 1:
            rest = sum(d.weight for d in items) - strongest
            reason = best.reason
            if best.kind != "moved" and any(d.kind == "moved" for d in items):
                reason += "; the line also stands in another place than in the reference"
            best = replace(best, weight=min(1.0, strongest + 0.1 * rest), reason=reason)
        merged.append(best)
    merged.sort(key=lambda d: (-d.weight, d.start))
    return merged
