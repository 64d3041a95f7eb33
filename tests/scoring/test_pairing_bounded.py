"""Pairing N candidate functions with N reference functions is about linear work (issue 45,
item 1, the editor's part): each function is parsed once, and each unmatched candidate function
is scored against a bounded number of reference functions found through an index. Work is
counted (parses, CodeBLEU comparisons), never timed."""

from __future__ import annotations

import random

import pytest

from refscore import languages
from refscore.languages.spec import LanguageSpec
from refscore.scoring.pairing import MAX_ALIGNMENT_PAIRS, ReferenceIndex, name_words, pair_functions
from refscore.scoring.scorer import LocalScorer

PYTHON = languages.get("python")
WEIGHTS = (0.25, 0.25, 0.25, 0.25)


def functions(count: int, name: str, operator: str) -> str:
    return "".join(f"def {name}{k}(a):\n    return a {operator} {k}\n\n" for k in range(count))


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per tree-sitter parse of any text; the text caches emptied and at their own
    bounds (an earlier test in this process may have lowered them all, as the language server
    does, so that the same work parsed more at one size than at the other)."""
    from refscore.analysis import cache

    monkeypatch.setattr(cache, "_LIMIT", [])
    for each in list(cache._ALL):
        each.cache_clear()
        monkeypatch.setattr(each, "_max_entries", max(each._max_entries, 100_000))
        monkeypatch.setattr(each, "_max_chars", max(each._max_chars, 100_000_000))
    counted: list[int] = []
    original = LanguageSpec.parse

    def parse(self, source: bytes):  # type: ignore[no-untyped-def]
        counted.append(len(source))
        return original(self, source)

    monkeypatch.setattr(LanguageSpec, "parse", parse)
    return counted


def work(count: int, parses: list[int]) -> tuple[int, int, list]:
    """(parses, CodeBLEU comparisons, pairs) of pairing ``count`` ``gK`` with ``count`` ``fK``."""
    scorer, compared = LocalScorer(), []

    def score_many(requests):  # type: ignore[no-untyped-def]
        compared.append(len(requests))
        return scorer.score_many(requests)

    from refscore.analysis import cache

    for each in list(cache._ALL):
        each.cache_clear()
    parses.clear()
    pairs = pair_functions(functions(count, "g", "*"), [functions(count, "f", "+")], PYTHON, score_many, WEIGHTS)
    return len(parses), sum(compared), pairs


def test_pairing_repetitive_functions_is_linear_work(parses: list[int]) -> None:
    small_parses, small_compared, _ = work(100, parses)
    large_parses, large_compared, pairs = work(400, parses)
    # four times the functions, at most about four times the work (it parsed every reference
    # function again for each candidate function: 16 times the parses)
    assert large_parses <= 5 * small_parses, (small_parses, large_parses)
    assert large_compared <= 5 * small_compared, (small_compared, large_compared)
    assert large_compared <= 400 + max(MAX_ALIGNMENT_PAIRS, 400)  # the final scores + the bounded alignment
    assert len(pairs) == 400 and all(p.region is not None and p.codebleu is not None for p in pairs)


def test_the_index_picks_what_a_stable_sort_of_every_reference_picks() -> None:
    """``likeliest`` looks only at the functions sharing a signature or a word, yet chooses as
    sorting all of them by (signature, shared word) did, ties in document order."""
    chooser = random.Random(45)
    words = ["total", "count", "mean", "sum_up", "max", "scale"]
    reference = "".join(f"def {chooser.choice(words)}_{k}({', '.join('xyz'[:chooser.randint(0, 3)])}):\n    pass\n\n"
                        for k in range(60))
    index = ReferenceIndex([reference], PYTHON)
    for arity in (None, 0, 1, 2, 3):
        for name in ("total_value", "max_count", "other", "scale"):
            mine = name_words(name)
            everything = sorted(range(len(index.functions)), reverse=True,
                                key=lambda p: (index.static(p, arity, mine).signature,
                                               index.static(p, arity, mine).shared_word))
            for limit in (1, 3, 10, 59, 60, None):
                expected = everything[:limit] if limit is not None and limit < 60 else list(range(60))
                assert index.likeliest(arity, mine, limit) == expected, (arity, name, limit)
