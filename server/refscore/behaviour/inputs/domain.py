"""The domain a function's examples show, per argument: signs and ranges of numbers, the
alphabet and lengths of strings, element domains of containers, whether lists come sorted.
Mutation (``mutate``) stays inside it."""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any, Iterable


@dataclass
class Domain:
    """What the examples show of one value position (an argument, or a container's elements)."""

    kinds: set[str] = field(default_factory=set)
    low: float | None = None
    high: float | None = None
    alphabet: set[str] = field(default_factory=set)
    max_length: int = 0
    min_length: int | None = None
    always_sorted: bool = True
    sorted_seen: int = 0
    items: "Domain | None" = None  # list / set / tuple elements, dict values
    keys: "Domain | None" = None  # dict keys
    tuple_items: list["Domain"] | None = None  # fixed-length tuples: per position

    @property
    def non_negative(self) -> bool:
        """Whether no example number is below zero."""
        return self.low is not None and self.low >= 0

    def add(self, value: Any) -> None:
        """Learn from one example value."""
        kind = kind_of(value)
        self.kinds.add(kind)
        if kind in ("int", "float"):
            self.low = value if self.low is None else min(self.low, value)
            self.high = value if self.high is None else max(self.high, value)
        elif kind == "str":
            self.alphabet.update(value)
            self._length(len(value))
        elif kind in ("list", "tuple", "set"):
            self._length(len(value))
            self.items = self.items or Domain()
            for item in value:
                self.items.add(item)
            if kind == "list" and len(value) >= 2:
                try:
                    self.always_sorted &= list(value) == sorted(value)
                    self.sorted_seen += 1
                except TypeError:
                    self.always_sorted = False
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

    def characters(self) -> str:
        """The characters strings here are made of: the examples' own, widened to their classes
        (a lower-case letter seen: all lower-case letters), in a fixed order."""
        seen = self.alphabet
        pool = set(seen)
        for group in (string.ascii_lowercase, string.ascii_uppercase, string.digits):
            if seen & set(group):
                pool.update(group)
        return "".join(sorted(pool)) or string.ascii_lowercase


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
