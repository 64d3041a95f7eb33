"""Multiset overlaps, the counting every CodeBLEU component reduces to.

A multiset is a plain dict of item -> count (``refscore.analysis.document.count``). Only the items
both sides have are visited (the key intersection is taken in C), so an overlap costs the size of
the common part, not of either side.
"""

from __future__ import annotations

from typing import Hashable


def clipped_overlap(a: dict[Hashable, int], b: dict[Hashable, int]) -> int:
    """Size of the multiset intersection: over the items both have, the sum of the smaller count."""
    if len(a) > len(b):
        a, b = b, a
    matched = 0
    for item in a.keys() & b.keys():
        x, y = a[item], b[item]
        matched += x if x < y else y
    return matched


def covered(a: dict[Hashable, int], b: dict[Hashable, int]) -> int:
    """How many of ``a``'s occurrences are of items ``b`` has at all (the sum of their counts)."""
    return sum(map(a.__getitem__, a.keys() & b.keys()))
