"""Place CodeBLEU's explanations (spans of the reference) on the candidate, through the token
alignment:

* an unmatched subtree: the candidate node of the same kind that overlaps most the code its
  tokens aligned with (else that code itself); absent when none of its tokens has a counterpart;
* an unmatched dataflow edge: the candidate occurrence of the aligned variable (the token aligned
  with the edge's, else the renamed variable's nearest occurrence);
* a missing n-gram run: the code it aligned with, else the nearest aligned candidate token.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import chain
from typing import Sequence

from ..codebleu import Explanation
from .align import Alignment
from .model import PlacedExplanation

NodeSpan = tuple[str, int, int]  # candidate subtree: type, start, end (code points)


def reference_token_range(alignment: Alignment, start: int, end: int) -> range:
    """Indices of the reference tokens inside ``start:end``."""
    starts = alignment.reference_starts
    return range(bisect_left(starts, start), bisect_right(starts, max(start, end - 1)))


def aligned_span(alignment: Alignment, start: int, end: int) -> tuple[int, int] | None:
    """The candidate code the reference's ``start:end`` aligned with: its aligned tokens, else the
    candidate side of the replaced run it is in; None when nothing there has a counterpart."""
    indices = reference_token_range(alignment, start, end)
    if not indices:
        return None
    cand = alignment.candidate
    paired = [alignment.pairs[i] for i in indices if alignment.pairs[i] >= 0]
    if paired:
        return cand[min(paired)].start, cand[max(paired)].end
    for chunk in alignment.chunks:
        if chunk.kind == "replace" and chunk.ref_lo < indices.stop and indices.start < chunk.ref_hi:
            return cand[chunk.cand_lo].start, cand[chunk.cand_hi - 1].end
    return None


def nearest_aligned(alignment: Alignment, start: int) -> tuple[int, int] | None:
    """The candidate token aligned with the reference token nearest before ``start`` (else after)."""
    at = bisect_left(alignment.reference_starts, start)
    pairs, cand = alignment.pairs, alignment.candidate
    for index in chain(range(at - 1, -1, -1), range(at, len(pairs))):
        if pairs[index] >= 0:
            return cand[pairs[index]].start, cand[pairs[index]].end
    return None


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> float:
    inner = min(a[1], b[1]) - max(a[0], b[0])
    return inner / (max(a[1], b[1]) - min(a[0], b[0])) if inner > 0 else 0.0


def _subtree(alignment: Alignment, item: Explanation, nodes: Sequence[NodeSpan]) -> PlacedExplanation:
    span = aligned_span(alignment, item.start, item.end)
    if span is None:
        return PlacedExplanation(item, None, None, "absent")
    kind = item.text.split(":", 1)[0]
    best, score = None, 0.0
    for node_type, start, end in nodes:
        if node_type == kind and (value := _overlap(span, (start, end))) > score:
            best, score = (start, end), value
    if best is not None:
        return PlacedExplanation(item, best[0], best[1], "same kind")
    return PlacedExplanation(item, span[0], span[1], "aligned")


def _variable(alignment: Alignment, item: Explanation) -> PlacedExplanation:
    indices = reference_token_range(alignment, item.start, item.end)
    cand = alignment.candidate
    for index in indices:
        if alignment.pairs[index] >= 0:
            token = cand[alignment.pairs[index]]
            return PlacedExplanation(item, token.start, token.end, "variable")
    name = alignment.candidate_name(alignment.reference[indices.start].text) if indices else None
    if name is not None:
        near = nearest_aligned(alignment, item.start)
        where = near[0] if near else 0
        uses = alignment.candidate_uses.get(name)
        if uses:
            token = min(uses, key=lambda t: abs(t.start - where))
            return PlacedExplanation(item, token.start, token.end, "variable")
    return PlacedExplanation(item, None, None, "absent")


def _run(alignment: Alignment, item: Explanation) -> PlacedExplanation:
    span = aligned_span(alignment, item.start, item.end)
    if span is not None:
        return PlacedExplanation(item, span[0], span[1], "aligned")
    near = nearest_aligned(alignment, item.start)
    if near is not None:
        return PlacedExplanation(item, near[0], near[1], "nearest")
    return PlacedExplanation(item, None, None, "absent")


def place(alignment: Alignment, explanations: Sequence[Explanation], nodes: Sequence[NodeSpan],
          reference_index: int) -> tuple[PlacedExplanation, ...]:
    """Each explanation of reference ``reference_index`` placed on the candidate (explanations of
    other references are placed as absent: the alignment is with this one)."""
    placed = []
    for item in explanations:
        if item.reference_index != reference_index:
            placed.append(PlacedExplanation(item, None, None, "absent"))
        elif item.component == "syntax_match":
            placed.append(_subtree(alignment, item, nodes))
        elif item.component == "dataflow_match":
            placed.append(_variable(alignment, item))
        else:
            placed.append(_run(alignment, item))
    return tuple(placed)
