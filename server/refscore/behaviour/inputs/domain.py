"""The domain a function's examples show, per argument: signs and ranges of numbers, the
alphabet and lengths of strings, element domains of containers, whether lists come sorted,
with distinct elements or of one fixed length; and between arguments, which ones always have
the same length and which numbers are never above which. Mutation (``mutate``) stays inside it."""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

#: Distinct characters of a class (lower-case letters, upper-case letters, digits) the examples
#: must show before strings may use the whole class: ``'010'`` stays binary, ``'hello'`` is words.
WIDEN_AFTER = 3
#: Examples that must agree before a fixed length or distinct elements count as a rule.
RULE_AFTER = 2


@dataclass
class Domain:
    """What the examples show of one value position (an argument, or a container's elements)."""

    kinds: set[str] = field(default_factory=set)
    low: float | None = None
    high: float | None = None
    alphabet: set[str] = field(default_factory=set)
    loose_spaces: bool = False  # a string with a leading, trailing or double space
    max_length: int = 0
    min_length: int | None = None
    lengths: set[int] = field(default_factory=set)  # of lists and tuples
    containers: int = 0  # lists and tuples seen
    always_sorted: bool = True
    sorted_seen: int = 0
    always_distinct: bool = True
    distinct_seen: int = 0  # lists of three or more distinct items
    items: "Domain | None" = None  # list / set / tuple elements, dict values
    keys: "Domain | None" = None  # dict keys
    tuple_items: list["Domain"] | None = None  # fixed-length tuples: per position

    @property
    def non_negative(self) -> bool:
        """Whether no example number is below zero."""
        return self.low is not None and self.low >= 0

    @property
    def positive(self) -> bool:
        """Whether every example number is at least one (zero is then outside the domain)."""
        return self.low is not None and self.low >= 1

    @property
    def smallest(self) -> int | None:
        """The smallest whole number the domain allows (None: no lower bound)."""
        return 1 if self.positive else 0 if self.non_negative else None

    def add(self, value: Any) -> None:
        """Learn from one example value."""
        kind = kind_of(value)
        self.kinds.add(kind)
        if kind in ("int", "float"):
            self.low = value if self.low is None else min(self.low, value)
            self.high = value if self.high is None else max(self.high, value)
        elif kind == "str":
            self.alphabet.update(value)
            self.loose_spaces |= value != value.strip(" ") or "  " in value
            self._length(len(value))
        elif kind in ("list", "tuple", "set"):
            self._length(len(value))
            if kind != "set":
                self.lengths.add(len(value))
                self.containers += 1
            self.items = self.items or Domain()
            for item in value:
                self.items.add(item)
            if kind == "list" and len(value) >= 2:
                try:
                    self.always_sorted &= list(value) == sorted(value)
                    self.sorted_seen += 1
                except TypeError:
                    self.always_sorted = False
                try:
                    distinct = len(set(value)) == len(value)
                except TypeError:
                    distinct = False
                self.always_distinct &= distinct
                self.distinct_seen += distinct and len(value) >= 3
            if kind == "tuple":
                if self.tuple_items is None:
                    self.tuple_items = [Domain() for _ in value]
                if len(self.tuple_items) == len(value):
                    for position, item in zip(self.tuple_items, value):
                        position.add(item)
        elif kind == "dict":
            self._length(len(value))
            self.keys = self.keys or Domain()
            self.items = self.items or Domain()
            for key, item in value.items():
                self.keys.add(key)
                self.items.add(item)

    def _length(self, length: int) -> None:
        self.max_length = max(self.max_length, length)
        self.min_length = length if self.min_length is None else min(self.min_length, length)

    @property
    def sorted_lists(self) -> bool:
        """Whether every example list of two or more items came sorted (and there was one)."""
        return self.always_sorted and self.sorted_seen > 0

    @property
    def distinct_items(self) -> bool:
        """Whether no example list repeats an item (and some show three or more)."""
        return self.always_distinct and self.distinct_seen >= RULE_AFTER

    @property
    def fixed_length(self) -> int | None:
        """The one length every example list or tuple has (at least ``RULE_AFTER`` of them,
        a pair at least): ``[a, b]`` pairs stay pairs."""
        if self.containers >= RULE_AFTER and len(self.lengths) == 1:
            length = next(iter(self.lengths))
            return length if length >= 2 else None
        return None

    def characters(self) -> str:
        """The characters strings here are made of: the examples' own, widened to their classes
        (``hello``: every lower-case letter) when they show ``WIDEN_AFTER`` of a class, unless
        those are the class's first ones in a row (``0``-``1``, ``A``-``F``: a sub-alphabet such as
        binary or hexadecimal); letters of both cases (``Hello``) widen both. A fixed order."""
        seen = self.alphabet
        pool = set(seen)
        lower, upper = seen & set(string.ascii_lowercase), seen & set(string.ascii_uppercase)
        if lower and upper and len(lower | upper) >= WIDEN_AFTER:
            pool.update(string.ascii_letters)
        for group in (string.ascii_lowercase, string.ascii_uppercase, string.digits):
            shown = seen & set(group)
            if len(shown) >= WIDEN_AFTER and shown != set(group[:len(shown)]):
                pool.update(group)
        return "".join(sorted(pool)) or string.ascii_lowercase

    @property
    def words(self) -> bool:
        """Whether strings here are words separated by single spaces (some example has a space,
        none has one at an end or two in a row)."""
        return " " in self.alphabet and not self.loose_spaces


def kind_of(value: Any) -> str:
    """``int``, ``float``, ``bool``, ``str``, ``list``, ``tuple``, ``set``, ``dict``, ``none`` or ``other``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    for kind in (int, float, str, list, tuple, dict):
        if isinstance(value, kind):
            return kind.__name__
    if isinstance(value, (set, frozenset)):
        return "set"
    return "other"


def domains_of(examples: Iterable[tuple[Any, ...]]) -> list[Domain]:
    """One domain per argument position, learnt from every example's values."""
    domains: list[Domain] = []
    for values in examples:
        while len(domains) < len(values):
            domains.append(Domain())
        for domain, value in zip(domains, values):
            domain.add(value)
    return domains


def _number(value: Any) -> bool:
    return kind_of(value) in ("int", "float")


def ordered_pairs(examples: Sequence[tuple[Any, ...]]) -> list[tuple[int, int]]:
    """Pairs of number arguments ``(i, j)`` with ``values[i] <= values[j]`` in every example
    (``clamp(x, lo, hi)``: lo never above hi), the smaller position first in the pair's order."""
    if not examples:
        return []
    width = min(len(v) for v in examples)
    pairs = []
    for first in range(width):
        for second in range(first + 1, width):
            if not all(_number(v[first]) and _number(v[second]) for v in examples):
                continue
            if all(v[first] <= v[second] for v in examples):
                pairs.append((first, second))
            elif all(v[first] >= v[second] for v in examples):
                pairs.append((second, first))
    return pairs


def _size(value: Any) -> int | None:
    return len(value) if kind_of(value) in ("str", "list", "tuple") else None


def same_length_groups(examples: Sequence[tuple[Any, ...]]) -> list[tuple[int, ...]]:
    """Argument positions whose strings or lists have one length in every example (a length of
    two at least somewhere): ``xor('010', '110')`` links its two arguments."""
    if not examples:
        return []
    width = min(len(v) for v in examples)
    groups: list[tuple[int, ...]] = []
    used: set[int] = set()
    for first in range(width):
        if first in used or any(_size(v[first]) is None for v in examples):
            continue
        group = [first]
        for other in range(first + 1, width):
            if other not in used and all(_size(v[other]) is not None and len(v[other]) == len(v[first])
                                         for v in examples):
                group.append(other)
        if len(group) > 1 and max(len(v[first]) for v in examples) >= 2:
            groups.append(tuple(group))
            used.update(group)
    return groups
