"""The score table writes counts as numbers a reader reads: never in scientific notation."""

from __future__ import annotations

import dataclasses

from refscore.metrics.codebleu import ComponentScore
from refscore.scoring.codebleu import score_codebleu
from refscore.terminal.render import render_table
from refscore.scoring.report import ScoreReport

REFERENCE = "def add(a, b):\n    return a + b\n"


def _table_with(component: ComponentScore) -> str:
    result = score_codebleu([REFERENCE], REFERENCE, "python")
    parts = tuple(component if c.name == component.name else c for c in result.components)
    return render_table("cand.py", "ref.py", ScoreReport("python", codebleu=dataclasses.replace(result, components=parts)))


def test_large_counts_are_written_in_full() -> None:
    """A 19 MB candidate has 3,180,820 n-grams: the row read ``3/3.18082e+06``."""
    table = _table_with(ComponentScore("ngram_match", 0.0, 0.25, 3, 3180820))
    assert "3/3180820" in table and "e+" not in table


def test_fractional_counts_keep_a_short_fraction() -> None:
    table = _table_with(ComponentScore("weighted_ngram_match", 0.5, 0.25, 2.2, 3))
    assert "2.2/3" in table
    table = _table_with(ComponentScore("weighted_ngram_match", 0.5, 0.25, 1234567.25, 2469134.5))
    assert "1234567.25/2469134.5" in table and "e+" not in table
