"""The references' functions, indexed once per pairing (issue 45, item 1): by name, by
parameter count and by name word, so that pairing N candidate functions with N reference
functions parses each function once and finds each one's likeliest references without looking
at all N (it parsed every reference function again for each candidate function: N² parses,
7 s at 800 one-line functions)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Iterable, Sequence

from ..analysis.functions import Function, top_level_functions
from ..languages import LanguageSpec
from .signature import name_words, parameter_count


@dataclass(frozen=True)
class Static:
    """What pairs a candidate function with a reference function without scoring them."""

    signature: bool  # the same number of parameters
    shared_word: bool  # the names share a word of three letters or more


@dataclass
class ReferenceIndex:
    """Every top-level function of ``references``, in order, with lookups by name, parameter
    count and name word (each reference function parsed at most once, when first asked)."""

    references: Sequence[str]
    spec: LanguageSpec
    functions: list[tuple[int, Function]] = field(init=False)
    _arity: list[int | None] | None = field(default=None, init=False)
    _by_arity: dict[int, list[int]] = field(default_factory=dict, init=False)
    _by_word: dict[str, list[int]] | None = field(default=None, init=False)
    _by_name: dict[str, list[int]] = field(default_factory=dict, init=False)
    _by_short: dict[str, list[int]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.functions = [(i, f) for i, ref in enumerate(self.references) for f in top_level_functions(ref, self.spec)]
        for position, (_, function) in enumerate(self.functions):
            self._by_name.setdefault(function.name, []).append(position)
            self._by_short.setdefault(function.short_name, []).append(position)

    def named(self, name: str, short: bool = False) -> list[int]:
        """The positions of the functions called ``name`` (``short``: by the name after any class)."""
        return (self._by_short if short else self._by_name).get(name, [])

    def arity(self, position: int) -> int | None:
        """The parameter count of the function at ``position`` (None: none found)."""
        if self._arity is None:
            self._arity = [parameter_count(self.references[i][f.start:f.end], self.spec) for i, f in self.functions]
            for k, count in enumerate(self._arity):
                if count is not None:
                    self._by_arity.setdefault(count, []).append(k)
        return self._arity[position]

    def _words(self) -> dict[str, list[int]]:
        if self._by_word is None:
            self._by_word = {}
            for position, (_, function) in enumerate(self.functions):
                for word in name_words(function.short_name):
                    self._by_word.setdefault(word, []).append(position)
        return self._by_word

    def static(self, position: int, arity: int | None, words: set[str]) -> Static:
        """The evidence between a function of ``arity`` parameters named with ``words`` and the
        reference function at ``position``."""
        return Static(arity is not None and arity == self.arity(position),
                      bool(words & name_words(self.functions[position][1].short_name)))

    def likeliest(self, arity: int | None, words: set[str], limit: int | None) -> list[int]:
        """The positions a function of ``arity`` parameters named with ``words`` is scored
        against: all, in order, when ``limit`` is None or not below their number; else the first
        ``limit`` by (same signature, shared word), each group in order (as a stable sort of all
        of them would give), looking only at the functions sharing its signature or a word."""
        if limit is None or len(self.functions) <= limit:
            return list(range(len(self.functions)))
        limit = max(limit, 1)
        if self.functions:
            self.arity(0)  # the parameter counts, once
        by_word = self._words()
        worded = sorted({p for w in words for p in by_word.get(w, ())})
        same = self._by_arity.get(arity, []) if arity is not None else []
        same_set, worded_set = set(same), set(worded)
        groups: list[Iterable[int]] = [(p for p in worded if p in same_set), (p for p in same if p not in worded_set),
                                       (p for p in worded if p not in same_set),
                                       (p for p in range(len(self.functions)) if p not in same_set and p not in worded_set)]
        return list(islice(chain.from_iterable(groups), limit))

