"""The exact score of a candidate pair, the lines it shares, and clusters of flagged pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from ...analysis.similarity_tokens import StructuralTokens
from .fingerprints import K, Fingerprint


@dataclass(frozen=True)
class PairScore:
    """How much two submissions share: ``score`` (Dice over their k-gram multisets, 0..1: 1 is the
    same program up to names, comments and the order of functions) and ``containment`` (the
    shared part of the smaller one: high when one is a copy with code added)."""

    score: float
    containment: float
    shared: int


def pair_score(first: Fingerprint, second: Fingerprint) -> PairScore:
    """The exact score of two fingerprints (0 when either has no k-gram)."""
    if not first.kgrams or not second.kgrams:
        return PairScore(0.0, 0.0, 0)
    a, b = first.kgrams, second.kgrams
    common = first.keys & second.keys  # in C; most k-grams occur once, so few counts to compare
    shared = sum(min(a[h], b[h]) for h in common) if common else 0
    sizes = first.size, second.size
    return PairScore(round(2 * shared / (sizes[0] + sizes[1]), 6), round(shared / min(sizes), 6), shared)


def shared_lines(document: StructuralTokens, prints: Fingerprint, other: Fingerprint, k: int = K) -> tuple[int, ...]:
    """The 0-based lines of ``document`` covered by a k-gram the ``other`` submission has too."""
    lines: set[int] = set()
    for unit, hashes in zip(document.units, prints.unit_hashes):
        for start, h in enumerate(hashes):
            if h is not None and h in other.kgrams:
                lines.update(unit.lines[start:start + k])
    return tuple(sorted(lines))


def clusters(members: Sequence[str], edges: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Connected groups (two or more) of ``members`` joined by ``edges``, each in ``members``'
    order, the groups in the order of their first member."""
    parent = {m: m for m in members}
    order = {m: i for i, m in enumerate(members)}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb, key=order.__getitem__)] = min(ra, rb, key=order.__getitem__)
    groups: dict[str, list[str]] = {}
    for member in members:
        groups.setdefault(root(member), []).append(member)
    return [tuple(g) for g in groups.values() if len(g) > 1]
