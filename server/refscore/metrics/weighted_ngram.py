"""Weighted n-gram match as ``codebleu`` 0.7.0 computes it.

Recall-based: reference n-grams clipped by the candidate's counts. Unigrams are weighted 1 for a
language keyword and 0.2 for any other token; higher orders are unweighted. The package's brevity
penalty compares the candidate length with ``len([tokens, weights])``, i.e. 2 per reference; we
keep that so numbers stay comparable, and say so in docs/codebleu.md.
"""

from __future__ import annotations

from typing import AbstractSet, Sequence

from ..analysis.document import TokenAnalysis
from .ngram import NgramStats, clipped_overlap, closest_length

KEYWORD_WEIGHT = 1.0
OTHER_WEIGHT = 0.2
PACKAGE_REFERENCE_LENGTH = 2  # the package measures len([tokens, weights])


def weighted_stats(references: Sequence[TokenAnalysis], candidate: TokenAnalysis,
                   keywords: AbstractSet[str], orders: int = 4) -> NgramStats:
    """Weighted recall statistics of one candidate against its references."""
    numerators, denominators = [], []
    for n in range(orders):
        cand_counts = candidate.counts[n]
        numerator: float = 0
        denominator: float = 0
        get = cand_counts.get
        for reference in references:
            ref_counts = reference.counts[n]
            if n == 0:  # unigrams are keyed by the word itself
                matched = total = 0.0
                for gram, count in ref_counts.items():
                    weight = KEYWORD_WEIGHT if gram in keywords else OTHER_WEIGHT
                    have = get(gram, 0)
                    matched += (count if count < have else have) * weight
                    total += count * weight
                numerator += matched
                denominator += max(1, total)
            else:
                numerator += clipped_overlap(ref_counts, cand_counts)
                denominator += max(1, max(0, reference.length - n))  # the number of reference n-grams
        numerators.append(numerator)
        denominators.append(denominator)
    ref_length = closest_length([PACKAGE_REFERENCE_LENGTH] * len(references), candidate.length)
    return NgramStats(tuple(numerators), tuple(denominators), candidate.length, ref_length)
