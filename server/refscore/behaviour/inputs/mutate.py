"""Type-aware mutation of example values that stays inside the examples' domain (``domain``),
and the boundary forms of a value (empty, zero, one element). Deterministic for a seed."""

from __future__ import annotations

import math
import random
from typing import Any, Iterator

from .domain import Domain, kind_of


def boundaries(value: Any, domain: Domain) -> Iterator[Any]:
    """The smallest forms of ``value`` the domain allows: zero and one (one and two when the
    examples are all positive), empty containers and strings, one element; a list of fixed
    length keeps its length."""
    kind = kind_of(value)
    if kind == "int":
        smallest = domain.smallest
        yield 0 if smallest is None else smallest
        yield 1 if smallest is None or smallest < 1 else smallest + 1
    elif kind == "float":
        yield 0.0
    elif kind == "str":
        yield ""
        if value:
            yield value[0]
    elif kind == "list":
        if domain.fixed_length is None:
            yield []
            if value:
                yield [value[0]]
    elif kind == "tuple" and not value:
        yield ()
    elif kind == "set":
        yield set()
    elif kind == "dict":
        yield {}
        if value:
            key = next(iter(value))
            yield {key: value[key]}


def mutants(value: Any, domain: Domain, rng: random.Random, depth: int = 0) -> list[Any]:
    """Values near ``value`` that the examples' domain allows."""
    kind = kind_of(value)
    if depth > 4:
        return []
    if kind == "bool":
        return [not value]
    if kind == "int":
        out = _int_mutants(value, domain, rng)
        if "float" in domain.kinds:  # the examples mix ints and floats: cross over
            out += [float(value), value + 0.5]
        return out
    if kind == "float":
        out = _float_mutants(value, domain, rng)
        if "int" in domain.kinds and math.isfinite(value):
            out += [int(value), float(round(value))]
        return out
    if kind == "str":
        return _str_mutants(value, domain, rng)
    if kind == "list":
        return _list_mutants(value, domain, rng, depth)
    if kind == "tuple":
        return _tuple_mutants(value, domain, rng, depth)
    if kind == "set":
        return [set(v) for v in _list_mutants(sorted(value, key=repr), domain, rng, depth)]
    if kind == "dict":
        return _dict_mutants(value, domain, rng, depth)
    return []


def _int_mutants(value: int, domain: Domain, rng: random.Random) -> list[int]:
    low = domain.smallest
    high = domain.high if domain.high is not None else value
    span = max(abs(int(high)), abs(int(domain.low or 0)), 4)
    out = [value + 1, value - 1, value * 2, value // 2, rng.randint(-span if low is None else low, span * 2)]
    if domain.low is not None:
        out.append(int(domain.low))
    if low is None:
        out.append(-value)
    return [v for v in out if (low is None or v >= low) and abs(v) <= 10 ** 9]


def _float_mutants(value: float, domain: Domain, rng: random.Random) -> list[float]:
    out = [value * 1.5, value / 2, value + 0.5, round(value, 1), rng.uniform(domain.low or 0.0, (domain.high or 1.0) * 2)]
    if not domain.non_negative:
        out.append(-value)
    return [v for v in out if math.isfinite(v) and (not domain.non_negative or v >= 0)]


def _str_mutants(value: str, domain: Domain, rng: random.Random) -> list[str]:
    pool = domain.characters()
    out = []
    if value:
        cut = rng.randrange(len(value))
        out += [value[:cut] + value[cut + 1:], value[:cut] + value[cut] + value[cut:], value[::-1],
                value[:cut] + rng.choice(pool) + value[cut + 1:]]
    out.append(value + rng.choice(pool))
    length = rng.randint(1, max(2, min(domain.max_length, 20)))
    out.append("".join(rng.choice(pool) for _ in range(length)))
    if " " in domain.alphabet:
        words = value.split(" ")
        rng.shuffle(words)
        out.append(" ".join(words))
    if domain.words:  # single spaces between words, none at the ends
        out = [" ".join(word for word in text.split(" ") if word) for text in out]
    return out


def _list_mutants(value: list, domain: Domain, rng: random.Random, depth: int) -> list[list]:
    items = domain.items or Domain()
    out: list[list] = []
    fixed = domain.fixed_length is not None
    if value:
        cut = rng.randrange(len(value))
        if not fixed:
            out += [value[:cut] + value[cut + 1:], value + [value[cut]], value[:cut + 1] + value[cut:]]
        for changed in _some(mutants(value[cut], items, rng, depth + 1), 3, rng):
            out.append(value[:cut] + [changed] + value[cut + 1:])
        if not fixed:
            grown = list(value)
            for _ in range(rng.randint(1, 4)):
                grown.append(rng.choice(mutants(rng.choice(value), items, rng, depth + 1) or [rng.choice(value)]))
            out.append(grown)
        if not domain.sorted_lists:
            shuffled = list(value)
            rng.shuffle(shuffled)
            out += [shuffled, list(reversed(value))]
    if domain.sorted_lists:
        out = [fixed_list for fixed_list in (_sorted(candidate) for candidate in out) if fixed_list is not None]
    if domain.distinct_items:
        out = [candidate for candidate in out if _distinct(candidate)]
    return out


def _some(options: list, count: int, rng: random.Random) -> list:
    """``count`` of ``options`` drawn at random (all of them when there are no more)."""
    return options if len(options) <= count else rng.sample(options, count)


def _sorted(value: list) -> list | None:
    try:
        return sorted(value)
    except TypeError:
        return None


def _distinct(value: list) -> bool:
    try:
        return len(set(value)) == len(value)
    except TypeError:
        return False


def _tuple_mutants(value: tuple, domain: Domain, rng: random.Random, depth: int) -> list[tuple]:
    if not value:
        return []
    positions = domain.tuple_items if domain.tuple_items and len(domain.tuple_items) == len(value) else None
    out = []
    for index in range(len(value)):
        own = positions[index] if positions else (domain.items or Domain())
        for changed in _some(mutants(value[index], own, rng, depth + 1), 2, rng):
            out.append(value[:index] + (changed,) + value[index + 1:])
    return out


def _dict_mutants(value: dict, domain: Domain, rng: random.Random, depth: int) -> list[dict]:
    if not value:
        return []
    keys = list(value)
    key = rng.choice(keys)
    out = [{k: v for k, v in value.items() if k != key}]
    for changed in _some(mutants(value[key], domain.items or Domain(), rng, depth + 1), 2, rng):
        out.append({**value, key: changed})
    for new_key in mutants(key, domain.keys or Domain(), rng, depth + 1)[:1]:
        if new_key not in value:
            out.append({**value, new_key: value[key]})
    return out
