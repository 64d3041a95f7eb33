"""Matched regions of a pair (the JPlag/Dolos view): each run of k-grams the two submissions share
in the same order, as the lines it covers on each side, so that each region can be shown in its
own colour on both sides. Greedy, longest run first at each place of the first submission; a run
of the second is matched once (a region is one place on each side)."""

from __future__ import annotations

from dataclasses import dataclass

from ...analysis.similarity_tokens import StructuralTokens
from .fingerprints import K, Fingerprint

#: The most regions kept per pair (a long copy is a handful of regions; the rest are shared lines).
MAX_REGIONS = 40


@dataclass(frozen=True)
class Region:
    """One shared run: the 0-based lines it covers in the first and in the second submission, and
    its length in k-grams (the regions of a pair come longest first)."""

    first_lines: tuple[int, ...]
    second_lines: tuple[int, ...]
    kgrams: int


def matched_regions(first: StructuralTokens, first_prints: Fingerprint, second: StructuralTokens,
                    second_prints: Fingerprint, k: int = K) -> tuple[Region, ...]:
    """The regions the two share, longest first (at most ``MAX_REGIONS``)."""
    where: dict[int, list[tuple[int, int]]] = {}
    for unit, hashes in enumerate(second_prints.unit_hashes):
        for position, h in enumerate(hashes):
            if h is not None:
                where.setdefault(h, []).append((unit, position))
    used: set[tuple[int, int]] = set()
    found: list[Region] = []
    for unit, hashes in enumerate(first_prints.unit_hashes):
        position = 0
        while position < len(hashes):
            h = hashes[position]
            best, at = 0, None
            for other, start in where.get(h, ()) if h is not None else ():
                if (other, start) in used:
                    continue
                theirs = second_prints.unit_hashes[other]
                length = 0
                while position + length < len(hashes) and start + length < len(theirs) and \
                        hashes[position + length] is not None and hashes[position + length] == theirs[start + length] \
                        and (other, start + length) not in used:
                    length += 1
                if length > best:
                    best, at = length, (other, start)
            if at is None:
                position += 1
                continue
            used.update((at[0], at[1] + n) for n in range(best))
            mine = first.units[unit].lines[position:position + best + k - 1]
            theirs_lines = second.units[at[0]].lines[at[1]:at[1] + best + k - 1]
            found.append(Region(tuple(sorted(set(mine))), tuple(sorted(set(theirs_lines))), best))
            position += best
    found.sort(key=lambda region: (-region.kgrams, region.first_lines[:1]))
    return tuple(found[:MAX_REGIONS])
