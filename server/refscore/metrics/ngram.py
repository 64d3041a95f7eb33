"""N-gram match: corpus BLEU-4 as ``codebleu`` 0.7.0 computes it.

Clipped n-gram precision against the best reference counts, brevity penalty against the closest
reference length (ties go to the shorter), NLTK's smoothing method 1 (0.1 added to empty orders).
Every score is built from additive sufficient statistics, so corpus scores are sums of pair stats.

The native rule (``effective_order=True``) differs for texts shorter than the highest order: an
order with no n-grams to count (a 3-token text has no 4-grams) is left out and the other orders'
weights are scaled up, as sacrebleu's sentence BLEU does with ``effective_order``; the package
counts such an order as 0.1 / 1, so that a copy of ``x = 1`` scores 0.56, not 1.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from functools import reduce
from typing import Sequence

from ..analysis.document import TokenAnalysis
from .overlap import clipped_overlap

SMOOTHING_EPSILON = 0.1
DEFAULT_NGRAM_WEIGHTS = (0.25, 0.25, 0.25, 0.25)


@dataclass(frozen=True)
class NgramStats:
    """Additive statistics of an n-gram match (numerators/denominators per order, lengths)."""

    numerators: tuple[float, ...]
    denominators: tuple[float, ...]  # as the package counts them (at least 1 per pair)
    hyp_length: int
    ref_length: int
    #: what there is to count per order, not raised to 1 (0: the text has no n-grams of that order)
    possible: tuple[float, ...] | None = None

    def __add__(self, other: "NgramStats") -> "NgramStats":
        possible = None
        if self.possible is not None and other.possible is not None:
            possible = tuple(a + b for a, b in zip(self.possible, other.possible))
        return NgramStats(
            tuple(a + b for a, b in zip(self.numerators, other.numerators)),
            tuple(a + b for a, b in zip(self.denominators, other.denominators)),
            self.hyp_length + other.hyp_length,
            self.ref_length + other.ref_length,
            possible,
        )

    @classmethod
    def total(cls, items: Sequence["NgramStats"]) -> "NgramStats":
        """The sum of ``items`` (at least one), added left to right as ``a + b + ...`` would:
        the same floats, without an object per partial sum."""
        possibles = [s.possible for s in items]
        possible = None if None in possibles else column_sums(possibles)  # type: ignore[arg-type]
        return cls(column_sums([s.numerators for s in items]), column_sums([s.denominators for s in items]),
                   reduce(operator.add, [s.hyp_length for s in items]),
                   reduce(operator.add, [s.ref_length for s in items]), possible)

    @classmethod
    def zero(cls, orders: int = 4) -> "NgramStats":
        return cls((0,) * orders, (0,) * orders, 0, 0, (0,) * orders)


def column_sums(rows: Sequence[Sequence[float]]) -> tuple[float, ...]:
    """Per column, the left-to-right sum of ``rows`` (``sum`` may compensate rounding on newer
    Pythons; a corpus must add up exactly as pair-by-pair addition does)."""
    return tuple(reduce(operator.add, column) for column in zip(*rows))


def closest_length(reference_lengths: Sequence[int], hyp_length: int) -> int:
    """The reference length closest to the hypothesis length (the shorter one on ties)."""
    return min(reference_lengths, key=lambda length: (abs(length - hyp_length), length))


def brevity_penalty(ref_length: int, hyp_length: int) -> float:
    """BLEU's brevity penalty."""
    if hyp_length > ref_length:
        return 1.0
    if hyp_length == 0:
        return 0.0
    return math.exp(1 - ref_length / hyp_length)


def bleu_stats(references: Sequence[TokenAnalysis], candidate: TokenAnalysis, orders: int = 4,
               overlaps: Sequence[int] | None = None) -> NgramStats:
    """Clipped precision statistics of one candidate against its references. ``overlaps``: the
    clipped overlaps per order with a single reference, when the caller has them already."""
    numerators, denominators = [], []
    length = candidate.length
    for n in range(orders):
        numerators.append(overlaps[n] if overlaps is not None else _clipped_matches(references, candidate, n))
        denominators.append(max(1, length - n))  # the number of candidate n-grams
    return NgramStats(
        tuple(numerators), tuple(denominators), length,
        closest_length([r.length for r in references], length),
        tuple(max(0, length - n) for n in range(orders)))


def _clipped_matches(references: Sequence[TokenAnalysis], candidate: TokenAnalysis, n: int) -> int:
    """Candidate (n+1)-grams clipped by their highest count in any reference."""
    cand_counts = candidate.counts[n]
    if len(references) == 1:
        return clipped_overlap(cand_counts, references[0].counts[n])
    best: dict = {}
    for reference in references:
        ref_counts = reference.counts[n]
        for gram in cand_counts:
            seen = ref_counts.get(gram, 0)
            if seen > best.get(gram, 0):
                best[gram] = seen
    return clipped_overlap(cand_counts, best)


def score_from_stats(stats: NgramStats, weights: Sequence[float] = DEFAULT_NGRAM_WEIGHTS,
                     effective_order: bool = False, brevity: bool = True) -> float:
    """Combine statistics into a BLEU-style score (geometric mean of smoothed precisions x BP).

    ``effective_order`` (the native rule): orders with nothing to count are left out, the other
    weights scaled to the same total, and each order divided by what there is to count.
    ``brevity=False``: no brevity penalty (a recall needs none)."""
    if stats.numerators[0] == 0:
        return 0.0
    penalty = brevity_penalty(stats.ref_length, stats.hyp_length) if brevity else 1.0
    rows = list(zip(weights, stats.numerators, stats.denominators))
    if effective_order and stats.possible is not None:
        kept = [(w, num, possible) for w, num, possible in zip(weights, stats.numerators, stats.possible) if possible > 0]
        scale = math.fsum(weights) / (math.fsum(w for w, _, _ in kept) or 1.0)
        rows = [(w * scale, num, possible) for w, num, possible in kept]
    logs = []
    for weight, numerator, denominator in rows:
        if numerator == 0:
            numerator += SMOOTHING_EPSILON
        logs.append(weight * math.log(numerator / denominator))
    return penalty * math.exp(math.fsum(logs))


@dataclass(frozen=True)
class MissingRun:
    """Consecutive reference tokens the candidate does not supply (code-point span in the reference)."""

    tokens: int
    start: int
    end: int


def missing_runs(reference: TokenAnalysis, candidate: TokenAnalysis, limit: int = 100) -> list[MissingRun]:
    """Runs of reference tokens beyond what the candidate has (unigram clipping), in reading order."""
    budget = dict(candidate.counts[0])
    runs: list[MissingRun] = []
    run_start = run_end = -1
    count = 0
    for token in reference.tokens:
        gram = token.text
        if budget.get(gram, 0) > 0:
            budget[gram] -= 1
            if count:
                runs.append(MissingRun(count, run_start, run_end))
                count = 0
                if len(runs) >= limit:
                    return runs
            continue
        if not count:
            run_start = token.start
        run_end = token.end
        count += 1
    if count:
        runs.append(MissingRun(count, run_start, run_end))
    return runs[:limit]
