"""Every candidate input of a Python reference, before the reference is run: the calls it
shows and a teacher's inputs file, their boundary forms, domain-respecting mutants of them, and
typed values for functions with no example. ``select`` later keeps a small, diverse set."""

from __future__ import annotations

import random
from typing import Any, Sequence

from ..calls import Call
from .domain import Domain, domains_of, kind_of, ordered_pairs, same_length_groups
from .mutate import boundaries, mutants
from .python_examples import FunctionShape, Shapes
from .typed import typed_values

#: How many inputs per function are made for the reference to run (before selection).
POOL = 160


def candidate_calls(shapes: Shapes, extra: Sequence[Call] = (), seed: int = 0, pool: int = POOL) -> list[Call]:
    """The inputs to try on the reference, most trusted first, each once."""
    out: list[Call] = []
    seen: set[tuple[str, str]] = set()

    def add(call: Call) -> bool:
        if call.key() in seen:
            return False
        seen.add(call.key())
        out.append(call)
        return True

    explicit = [c for c in (*extra, *shapes.calls) if c.function in shapes.functions]
    for call in explicit:
        add(call)
    for name, shape in shapes.functions.items():
        rng = random.Random(f"{seed}:{name}")
        shown = [c for c in explicit if c.function == name]
        examples = [c.values for c in shown if c.values is not None and shape.required <= len(c.values)]
        if examples:
            made = _from_examples(name, examples, rng, pool)
        elif shown:
            made = []
        else:  # typed (or guessed) values, then mutants of them as if they were examples
            typed = _typed(shape, rng, pool)
            seeds = [c.values for c in typed[:8] if c.values is not None]
            made = typed + (_from_examples(name, seeds, rng, pool // 2)[len(seeds):] if seeds else [])
        for call in made:
            add(call)
    return out


def _literal(values: Sequence[Any]) -> str:
    return ", ".join(repr(v) for v in values)


def _from_examples(name: str, examples: list[tuple[Any, ...]], rng: random.Random, pool: int) -> list[Call]:
    """Boundaries of the examples (arguments of one length stay so), each example with two
    arguments of a kind swapped, then mutants of them up to ``pool``."""
    domains = domains_of(examples)
    linked = same_length_groups(examples)
    group_of = {position: group for group in linked for position in group}
    made: list[Call] = []
    for values in examples:
        for position, value in enumerate(values):
            group = group_of.get(position, (position,))
            if position != group[0]:
                continue  # a linked group's boundaries are made once, from its first position
            for small in boundaries(value, domains[position]):
                changed = list(values)
                for other in group:
                    changed[other] = small if other == position else _like(small, values[other])
                made.append(Call(name, _literal(changed), "boundary", tuple(changed)))
    ordered = ordered_pairs(examples) if len(examples) > 1 else []  # one example shows no rule
    mutated: list[Call] = []
    for values in examples:  # each example with two arguments of one kind swapped
        for swapped in _swaps(values, domains, ordered)[:3]:
            mutated.append(Call(name, _literal(swapped), "mutant", tuple(swapped)))
    rounds = 0
    while len(mutated) < pool and rounds < pool:
        rounds += 1
        values = list(rng.choice(examples))
        for position in rng.sample(range(len(values)), k=min(len(values), rng.choice((1, 1, 2)))):
            options = mutants(values[position], domains[position], rng)
            if options:
                values[position] = rng.choice(options)
        if rng.random() < 0.3:  # a second step away from the examples
            position = rng.randrange(len(values)) if values else 0
            options = mutants(values[position], domains[position], rng) if values else []
            if options:
                values[position] = rng.choice(options)
        if rng.random() < 0.15:  # two arguments of one kind swapped (which side is the hypotenuse)
            _swap(values, domains, ordered, rng)
        for group in linked:
            _same_length(values, group)
        _in_order(values, ordered)
        mutated.append(Call(name, _literal(values), "mutant", tuple(values)))
    return made + mutated


def _swaps(values: Sequence[Any], domains: list[Domain], ordered: Sequence[tuple[int, int]]) -> list[list[Any]]:
    """``values`` with two arguments of the same kind swapped, each way there is, except pairs
    the examples always show in one order (numbers also stay inside each other's bounds)."""
    out = []
    for first in range(len(values)):
        for second in range(first + 1, len(values)):
            a, b = values[first], values[second]
            if kind_of(a) != kind_of(b) or a == b or (first, second) in ordered or (second, first) in ordered:
                continue
            if kind_of(a) == "int" and not (_fits(a, domains[second]) and _fits(b, domains[first])):
                continue
            swapped = list(values)
            swapped[first], swapped[second] = b, a
            if _keeps_order(swapped, ordered):
                out.append(swapped)
    return out


def _keeps_order(values: Sequence[Any], ordered: Sequence[tuple[int, int]]) -> bool:
    try:
        return all(values[low] <= values[high] for low, high in ordered if max(low, high) < len(values))
    except TypeError:
        return True


def _swap(values: list[Any], domains: list[Domain], ordered: Sequence[tuple[int, int]], rng: random.Random) -> None:
    """Swap two arguments of ``values`` of the same kind, when there are such."""
    options = _swaps(values, domains, ordered)
    if options:
        values[:] = rng.choice(options)


def _in_order(values: list[Any], ordered: Sequence[tuple[int, int]]) -> None:
    """Put each pair of numbers the examples always order (low, high) back in that order."""
    for low, high in ordered:
        if low < len(values) and high < len(values):
            try:
                if values[low] > values[high]:
                    values[low], values[high] = values[high], values[low]
            except TypeError:
                pass


def _fits(value: int, domain: Domain) -> bool:
    return domain.smallest is None or value >= domain.smallest


def _like(small: Any, value: Any) -> Any:
    """``value`` cut to the length of ``small`` (a linked argument's boundary form)."""
    return value[:len(small)]


def _same_length(values: list[Any], group: tuple[int, ...]) -> None:
    """Cut the linked arguments of ``values`` to their shortest length."""
    shortest = min(len(values[position]) for position in group)
    for position in group:
        values[position] = values[position][:shortest]


def _typed(shape: FunctionShape, rng: random.Random, pool: int) -> list[Call]:
    columns = [typed_values(a) for a in shape.annotations[:max(shape.required, 1)]][:len(shape.parameters)]
    if not columns or any(c is None for c in columns):
        return []
    made = []
    width = max(len(c) for c in columns)  # type: ignore[arg-type]
    for k in range(min(pool, width * 3)):
        values = tuple(c[(k * (i + 1) + (k // width) * i) % len(c)] for i, c in enumerate(columns))  # type: ignore[index, arg-type]
        made.append(Call(shape.name, _literal(values), "typed", values))
    rng.shuffle(made)
    return made
