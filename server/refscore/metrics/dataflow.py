"""Data-flow match: how many of the reference's normalised data-flow edges the candidate has.

Counting is the package's (``corpus_dataflow_match``, per pair): each normalised reference edge,
in order, matches one not-yet-used equal edge of the candidate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..dataflow import FlowEdge, normalize_dataflow

__all__ = ["DataflowMatch", "match_dataflow", "unmatched_indices"]


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
    missing = unmatched_indices(ref_norm, cand_norm)
    return DataflowMatch(len(ref_norm) - len(missing), len(ref_norm), tuple(reference[i] for i in missing))


def unmatched_indices(reference_normalized: Sequence[tuple], candidate_normalized: Sequence[tuple]) -> list[int]:
    """Positions of the normalised reference edges the candidate does not match (same rule)."""
    remaining: dict[tuple, int] = {}
    for item in candidate_normalized:
        remaining[item] = remaining.get(item, 0) + 1
    missing = []
    for position, item in enumerate(reference_normalized):
        left = remaining.get(item)
        if left:
            remaining[item] = left - 1
        else:
            missing.append(position)
    return missing
