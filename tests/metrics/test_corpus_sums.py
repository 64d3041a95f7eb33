"""Corpus statistics add up exactly as pair-by-pair addition does, and the single-reference fast
path of the weighted n-gram match gives the general path's numbers."""

from __future__ import annotations

import random
from functools import reduce

from refscore import languages
from refscore.analysis.document import analyse_tokens
from refscore.metrics.codebleu import PairStats
from refscore.metrics.ngram import NgramStats
from refscore.metrics.overlap import clipped_overlap
from refscore.metrics.weighted_ngram import weighted_stats


def _ngram(rng: random.Random) -> NgramStats:
    floats = lambda: tuple(rng.random() * 10 for _ in range(4))  # noqa: E731
    return NgramStats(floats(), floats(), rng.randrange(50), rng.randrange(50), floats())


def test_total_is_the_left_to_right_sum() -> None:
    rng = random.Random(7)
    items = [PairStats(_ngram(rng), _ngram(rng), *(rng.randrange(30) for _ in range(4))) for _ in range(500)]
    assert PairStats.total(items) == reduce(lambda a, b: a + b, items)  # the same floats, bit for bit
    assert PairStats.total(items[:1]) is items[0]
    assert PairStats.total([]) is None


def test_total_without_possible_counts_has_none() -> None:
    a = NgramStats((1.0,) * 4, (2.0,) * 4, 3, 4, None)
    b = NgramStats((0.5,) * 4, (1.0,) * 4, 1, 1, (1.0,) * 4)
    assert NgramStats.total([a, b]) == a + b
    assert NgramStats.total([a, b]).possible is None


def test_single_reference_weighted_match_equals_the_general_path() -> None:
    keywords = languages.get("python").keywords
    texts = ["def f(x):\n    return x + 1", "def f(y):\n    if y:\n        return y + 1\n    return None",
             "for i in range(3): print(i)", "x", ""]
    for ref_text in texts:
        for cand_text in texts:
            ref, cand = analyse_tokens(ref_text), analyse_tokens(cand_text)
            overlaps = [clipped_overlap(ref.counts[n], cand.counts[n]) for n in range(4)]
            assert weighted_stats([ref], cand, keywords, overlaps=overlaps) == \
                weighted_stats([ref], cand, keywords), (ref_text, cand_text)
