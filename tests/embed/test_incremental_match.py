"""The live encoding's look-up of a whole-text token's part token (``embed.incremental``): the
exact-span fast path finds the very token the windowed search does, duplicates and empty spans
included."""

from __future__ import annotations

import random

from refscore.embed.incremental import _match_all, _overlapping


def test_fast_look_up_equals_the_windowed_search() -> None:
    rng = random.Random(7)
    for _ in range(300):
        spans = []
        for _ in range(rng.randrange(0, 40)):
            a = rng.randrange(0, 60)
            spans.append((a, a + rng.choice((0, 0, 1, 2, 3, 5)), rng.randrange(100)))
        spans.sort()
        starts = [s[0] for s in spans]
        queries = [(a, a + rng.choice((0, 1, 2, 3))) for a in (rng.randrange(0, 62) for _ in range(30))]
        queries += [s[:2] for s in spans]  # every exact span, duplicates too
        assert _match_all(spans, starts, queries) == [_overlapping(spans, starts, s, e) for s, e in queries]
