"""Reaching-definition sets that grow without being copied.

A walk's state maps a variable to the sorted token numbers of its reaching definitions. Code that
reuses a local name (minified JavaScript: every function's ``e``, ``t``, ``n``) joins each new
definition with all the earlier ones at every branch, so the set grows by one per function; as
sorted tuples, each join copied and re-sorted it (quadratic time, and quadratic memory in the
edges that keep each version). ``Reach`` is such a set as a view of a shared, append-only list
(``store[:size]``): a join that only adds numbers past the last one appends them, and every edge
keeps its own view of the same list. ``union`` is the join (sorted, duplicate-free, as before);
small sets stay tuples, so ordinary code is unchanged.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import islice
from typing import Any, Iterable, Iterator, Union, overload

#: Sets at least this large are kept as ``Reach`` views (smaller ones as tuples).
SHARED_FROM = 16


class Reach(Sequence[int]):
    """The sorted token numbers ``store[:size]``; ``store`` is only ever appended to.

    Equal to another ``Reach`` of the same numbers (at once for a view of the same list); the
    hash reads the size and the ends only, so hashing a view for a loop's memo costs nothing."""

    __slots__ = ("store", "size")

    def __init__(self, store: list[int], size: int) -> None:
        self.store, self.size = store, size

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[int]:
        return islice(self.store, self.size)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[int, ...]: ...

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError("Reach index out of range")
        return self.store[index]

    def __contains__(self, value: object) -> bool:
        at = bisect_left(self.store, value, 0, self.size)  # type: ignore[call-overload]
        return at < self.size and self.store[at] == value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reach) or other.size != self.size:
            return False
        return other.store is self.store or all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash((self.size, self.store[0], self.store[self.size - 1])) if self.size else 0

    def __add__(self, other: Iterable[int]) -> tuple[int, ...]:
        return (*self, *other)

    def __radd__(self, other: Iterable[int]) -> tuple[int, ...]:
        return (*other, *self)

    def __reduce__(self) -> tuple[type, tuple[list[int], int]]:
        return Reach, (self.store, self.size)

    def __repr__(self) -> str:
        return f"Reach({tuple(self)!r})"


Defs = Union[tuple[int, ...], Reach]


def _has(values: Defs, number: int) -> bool:
    """``number in values`` for a sorted set (binary search)."""
    if values.__class__ is Reach:
        return number in values
    at = bisect_left(values, number)  # type: ignore[arg-type]
    return at < len(values) and values[at] == number


def _grown(base: Defs, extra: list[int]) -> Defs:
    """``base`` followed by ``extra`` (sorted, all past base's last number)."""
    size = len(base) + len(extra)
    if base.__class__ is Reach and len(base.store) == base.size:  # type: ignore[union-attr]
        base.store.extend(extra)  # type: ignore[union-attr]
        return Reach(base.store, size)  # type: ignore[union-attr]
    if size < SHARED_FROM:
        return (*base, *extra)
    return Reach([*base, *extra], size)


def _sorted(numbers: Iterable[int]) -> Defs:
    found = sorted(set(numbers))
    return tuple(found) if len(found) < SHARED_FROM else Reach(found, len(found))


def union(values: Sequence[Defs]) -> Defs:
    """The sorted union of the sets ``values`` (each sorted and duplicate-free). Appends to the
    largest set's list when every other number is in it or past its end; sorts otherwise."""
    base = max(values, key=len)
    if len(base) < SHARED_FROM:
        return tuple(sorted({n for v in values for n in v}))
    last = base[-1]
    extra: set[int] = set()
    for value in values:
        if value is base:
            continue
        if value.__class__ is Reach and base.__class__ is Reach and value.store is base.store:  # type: ignore[union-attr]
            continue  # an earlier view of the same list: a part of base
        if len(value) >= SHARED_FROM:
            return _sorted(n for v in values for n in v)
        for number in value:
            if number > last:
                extra.add(number)
            elif not _has(base, number):
                return _sorted(n for v in values for n in v)
    return _grown(base, sorted(extra)) if extra else base
