"""Every candidate input of a Python reference, before the reference is run: the calls it
shows and a teacher's inputs file, their boundary forms, domain-respecting mutants of them, and
typed values for functions with no example. ``select`` later keeps a small, diverse set."""

from __future__ import annotations

import random
from typing import Any, Sequence

from ..calls import Call
from .domain import domains_of
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
    domains = domains_of(examples)
    made: list[Call] = []
    for values in examples:
        for position, value in enumerate(values):
            for small in boundaries(value, domains[position]):
                changed = (*values[:position], small, *values[position + 1:])
                made.append(Call(name, _literal(changed), "boundary", changed))
    mutated: list[Call] = []
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
        mutated.append(Call(name, _literal(values), "mutant", tuple(values)))
    return made + mutated


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
