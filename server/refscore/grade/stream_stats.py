"""Summary statistics over a stream of report rows, in bounded memory.

``RowStats.summary()`` has the shape of ``rows.summary`` (counts; per metric n, mean, min, max)
and adds what the large-run HTML report shows: standard deviation, histogram counts, the
lowest and highest rows by one metric and the first rows with an error.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

from .rows import HANDED_NOTHING_IN, INTERRUPTED_PREFIX, SCORE_COLUMNS

#: Columns a lowest/highest table shows besides the scores.
BRIEF_KEYS = ("id", "problem", "language", "source", "errors", "warnings", "similar_to", "parse_error")
#: The most problems counted one by one (a JSONL of more problems keeps the pooled statistics only).
MAX_PROBLEMS = 500


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass
class ColumnStats:
    """Running count, sum, sum of squares, extremes and 10-bin histogram of one score column."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    low: float = math.inf
    high: float = -math.inf
    bins: list[int] = field(default_factory=lambda: [0] * 10)

    def add(self, value: float) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value
        if value < self.low:
            self.low = value
        if value > self.high:
            self.high = value
        bins = len(self.bins)  # histogram.bin_counts' bins over [0, 1], one value at a time
        slot = int(value * bins)
        self.bins[bins - 1 if slot >= bins else 0 if slot < 0 else slot] += 1

    def as_dict(self) -> dict[str, float]:
        return {"n": self.n, "mean": self.total / self.n, "min": self.low, "max": self.high}

    def std(self) -> float:
        mean = self.total / self.n
        return math.sqrt(max(0.0, self.squares / self.n - mean * mean))


class RowStats:
    """Feed rows with ``add``; read ``summary()``, ``lowest``/``highest`` and ``columns``."""

    def __init__(self, rank_by: str | None = None, keep: int = 25, per_problem: bool = False,
                 per_language: bool = True) -> None:
        self.rows = 0
        #: language -> its own statistics (a researcher's per-language summary; None when not kept)
        self.languages: dict[str, RowStats] | None = {} if per_language else None
        #: problem -> its own statistics (``per_problem``; None beyond MAX_PROBLEMS problems)
        self.problems: dict[str, RowStats] | None = {} if per_problem else None
        self.with_errors = 0
        self.unfinished = 0  # rows an interrupted run did not get to (``rows.INTERRUPTED_PREFIX``)
        self.handed_nothing = 0  # roster students' rows with nothing handed in (``rows.HANDED_NOTHING_IN``)
        self.not_parsing = 0  # scored rows whose code does not parse although a reference does
        self.columns: dict[str, ColumnStats] = {}
        self.rank_by = rank_by
        self.keep = keep
        self._low: list[tuple[float, int, dict[str, Any]]] = []  # max-heap by negated value
        self._high: list[tuple[float, int, dict[str, Any]]] = []  # min-heap
        self._failed: list[dict[str, Any]] = []  # the first ``keep`` rows with an error (not only interrupted)

    def add(self, row: dict[str, Any]) -> None:
        """Count one row (its position in the stream breaks ties in the rankings)."""
        position = self.rows
        self.rows += 1
        if self.problems is not None:
            name = str(row.get("problem") or "")
            if name not in self.problems and len(self.problems) >= MAX_PROBLEMS:
                self.problems = None
            else:
                self.problems.setdefault(name, RowStats(keep=0, per_language=False)).add(row)
        if self.languages is not None and row.get("language"):
            language = str(row["language"])
            if language not in self.languages and len(self.languages) >= MAX_PROBLEMS:
                self.languages = None
            else:
                self.languages.setdefault(language, RowStats(keep=0, per_language=False)).add(row)
        self.not_parsing += bool(row.get("parse_error"))
        if row.get("errors"):
            self.with_errors += 1
            unfinished = any(str(e).startswith(INTERRUPTED_PREFIX) for e in row["errors"])
            self.unfinished += unfinished
            self.handed_nothing += any(str(e).endswith(HANDED_NOTHING_IN) for e in row["errors"])
            if not unfinished and len(self._failed) < self.keep:
                self._failed.append({k: row.get(k) for k in (*BRIEF_KEYS, *SCORE_COLUMNS)})
        columns = self.columns
        for column in SCORE_COLUMNS:
            value = row.get(column)
            if value is not None and _finite(value):
                stats = columns.get(column)
                if stats is None:
                    stats = columns[column] = ColumnStats()
                stats.add(float(value))
        value = row.get(self.rank_by) if self.rank_by else None
        if self.keep > 0 and _finite(value):
            brief: dict[str, Any] | None = None  # built only for a row that enters a ranking
            for heap, key in ((self._low, (-float(value), -position)), (self._high, (float(value), -position))):
                full = len(heap) >= self.keep
                if full and key <= heap[0][:2]:
                    continue
                if brief is None:
                    brief = {k: row.get(k) for k in (*BRIEF_KEYS, *SCORE_COLUMNS)}
                (heapq.heapreplace if full else heapq.heappush)(heap, (*key, brief))

    def summary(self) -> dict[str, Any]:
        """``rows.summary``'s dict for every row seen."""
        metrics = {c: self.columns[c].as_dict() for c in SCORE_COLUMNS if c in self.columns}
        out = {"submissions": self.rows, "with_errors": self.with_errors, "handed_nothing_in": self.handed_nothing,
               "not_parsing": self.not_parsing, "metrics": metrics}
        if self.languages:
            out["by_language"] = {name: stats.summary() for name, stats in sorted(self.languages.items())}
        return out

    def errors_phrase(self) -> str:
        """``1 with errors, 2 handed nothing in``: the headlines' counts (the HTML page's, each
        problem's, the terminal's), roster students who handed nothing in told from the errors."""
        phrase = f"{self.with_errors - self.handed_nothing:,} with errors"
        return phrase + (f", {self.handed_nothing:,} handed nothing in" if self.handed_nothing else "")

    def failed(self) -> list[dict[str, Any]]:
        """The first ``keep`` rows with an error, in stream order (rows an interrupted run did not
        get to aside: the headline counts those)."""
        return list(self._failed)

    def lowest(self) -> list[dict[str, Any]]:
        """The ``keep`` rows lowest on ``rank_by``, lowest first (earlier rows first on ties)."""
        return [brief for _, _, brief in sorted(self._low, key=lambda e: (-e[0], -e[1]))]

    def highest(self) -> list[dict[str, Any]]:
        """The ``keep`` rows highest on ``rank_by``, highest first (earlier rows first on ties)."""
        return [brief for _, _, brief in sorted(self._high, key=lambda e: (-e[0], -e[1]))]


def counted(count: int, noun: str = "submission") -> str:
    """``1 submission``, ``1,234 submissions``: a count with its noun, for every headline."""
    return f"{count:,} {noun}{'s' * (count != 1)}"
