"""Syntax match: the share of reference subtrees whose shape also occurs in the candidate.

As in ``codebleu`` 0.7.0, each reference subtree (with multiplicity) counts as matched when a
subtree with the same key exists anywhere in the candidate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..parsing.trees import Subtree
from .overlap import covered


@dataclass(frozen=True)
class SyntaxMatch:
    """Matched and total reference subtrees of one pair."""

    matched: int
    total: int


def match_syntax(reference_keys: Counter[str], candidate_keys: Counter[str]) -> SyntaxMatch:
    """Count reference subtrees whose key the candidate also has."""
    return SyntaxMatch(covered(reference_keys, candidate_keys), sum(reference_keys.values()))


def unmatched_subtrees(reference: tuple[Subtree, ...], candidate_keys: Counter[str], limit: int = 50) -> list[Subtree]:
    """The smallest reference subtrees whose shape the candidate lacks, in document order.

    A subtree that contains a missing subtree is missing too, so only the innermost ones explain
    anything; those are reported.
    """
    missing = [s for s in reference if s.key not in candidate_keys]  # sorted: start, outer first
    innermost: list[Subtree] = []
    for index, subtree in enumerate(missing):
        following = missing[index + 1] if index + 1 < len(missing) else None
        if following is not None and following.start_byte < subtree.end_byte:
            continue  # it contains a smaller missing subtree
        innermost.append(subtree)
        if len(innermost) >= limit:
            break
    return innermost
