"""The span index the differences ranking reads explanations and token similarities through
(metrics/differences/rank.py): it finds every span that may overlap, in order, and no other."""

from __future__ import annotations

import random

from refscore.metrics.differences.spans import SHORT, SpanIndex, overlaps, union


def test_near_is_exactly_the_spans_that_reach_the_range() -> None:
    rnd = random.Random(7)
    spans: list[tuple[int, int] | None] = []
    for _ in range(2000):
        start = rnd.randrange(0, 50_000)
        length = rnd.choice([0, 0, 1, 3, 10, 60, SHORT, SHORT + 1, 5_000])
        spans.append(None if rnd.random() < 0.05 else (start, start + length))
    index = SpanIndex(spans)
    for _ in range(500):
        start = rnd.randrange(0, 50_000)
        end = start + rnd.choice([0, 1, 5, 80, 2_000])
        found = index.near(start, end)
        expected = [p for p, span in enumerate(spans) if span is not None and span[0] <= end and span[1] >= start]
        assert found == expected  # ascending positions: a caller's sum keeps its order
        for p, span in enumerate(spans):  # what the ranking's exact rule keeps, either way round
            if span is not None and (overlaps(*span, start, end) or overlaps(start, end, *span)):
                assert p in found


def test_union_keeps_each_position_once_in_order() -> None:
    assert union([1, 4, 9], [0, 4, 10]) == [0, 1, 4, 9, 10]
    assert union([3, 5]) == [3, 5]
