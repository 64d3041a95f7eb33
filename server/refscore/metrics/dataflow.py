"""Data-flow match: how many of the reference's normalised data-flow edges the candidate has.

Counting is the package's (``corpus_dataflow_match``, per pair): each normalised reference edge,
in order, matches one not-yet-used equal edge of the candidate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..dataflow import FlowEdge, normalize_dataflow

__all__ = ["DataflowMatch", "match_dataflow"]


@dataclass(frozen=True)
class DataflowMatch:
    """Matched and total reference edges, and the reference edges left unmatched."""

    matched: int
    total: int
    unmatched: tuple[FlowEdge, ...]


def match_dataflow(reference: Sequence[FlowEdge], candidate: Sequence[FlowEdge],
                   reference_normalized: Sequence[tuple] | None = None,
                   candidate_normalized: Sequence[tuple] | None = None) -> DataflowMatch:
    """Match the normalised reference edges against the normalised candidate edges.

    Callers that keep the normalised forms (analyses do) pass them to skip recomputing them.
    """
    ref_norm = normalize_dataflow(reference) if reference_normalized is None else reference_normalized
    cand_norm = normalize_dataflow(candidate) if candidate_normalized is None else candidate_normalized
    remaining: dict[tuple, int] = {}
    for item in cand_norm:
        remaining[item] = remaining.get(item, 0) + 1
    matched = 0
    unmatched = []
    for edge, item in zip(reference, ref_norm):
        left = remaining.get(item, 0)
        if left:
            remaining[item] = left - 1
            matched += 1
        else:
            unmatched.append(edge)
    return DataflowMatch(matched, len(ref_norm), tuple(unmatched))
