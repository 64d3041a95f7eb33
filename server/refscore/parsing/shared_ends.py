"""How much two versions of a text share at their ends: what an edit left as it was before and
after it (the editor's carried results, an incremental parse)."""

from __future__ import annotations

from typing import TypeVar

Text = TypeVar("Text", str, bytes)


def shared_prefix(a: Text, b: Text) -> int:
    """Length of the longest common prefix (bisection over slice comparisons, which run in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def shared_suffix(a: Text, b: Text, limit: int) -> int:
    """Length of the longest common suffix, at most ``limit`` (the part the prefix leaves)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:] == b[len(b) - middle:]:
            low = middle
        else:
            high = middle - 1
    return low
