"""Weighted n-gram match as ``codebleu`` 0.7.0 computes it.

Recall-based: reference n-grams clipped by the candidate's counts. Unigrams are weighted 1 for a
language keyword and 0.2 for any other token; higher orders are unweighted. The package's brevity
penalty compares the candidate length with ``len([tokens, weights])``, i.e. 2 per reference; we
keep that so numbers stay comparable, and say so in docs/codebleu.md.
"""

from __future__ import annotations

from typing import Sequence

from ..analysis.document import TokenAnalysis
from .ngram import NgramStats, closest_length
from .overlap import clipped_overlap

KEYWORD_WEIGHT = 1.0
OTHER_WEIGHT = 0.2
PACKAGE_REFERENCE_LENGTH = 2  # the package measures len([tokens, weights])


def weighted_stats(references: Sequence[TokenAnalysis], candidate: TokenAnalysis,
                   keywords: frozenset[str], orders: int = 4,
                   overlaps: Sequence[int] | None = None) -> NgramStats:
    """Weighted recall statistics of one candidate against its references. ``overlaps``: the
    clipped overlaps per order with a single reference, when the caller has them already.

    Unigrams: each reference token counts with its weight, so the total is 0.2 x the other
    tokens + 1 x the keyword tokens, and the matched part likewise over the clipped overlap.
    """
    if overlaps is not None and len(references) == 1:
        return _single_reference(references[0], candidate, keywords, orders, overlaps)
    numerators, denominators, possibles = [], [], []
    for n in range(orders):
        cand_counts = candidate.counts[n]
        numerator: float = 0
        denominator: float = 0
        possible: float = 0  # the same, not raised to 1 per reference
        for reference in references:
            ref_counts = reference.counts[n]
            overlap = overlaps[n] if overlaps is not None else clipped_overlap(ref_counts, cand_counts)
            if n == 0:  # unigrams are keyed by the word itself
                key_grams, key_total = reference.keyword_counts(keywords)
                key_matched = _keywords_matched(key_grams, cand_counts)
                matched = OTHER_WEIGHT * (overlap - key_matched) + KEYWORD_WEIGHT * key_matched
                total = OTHER_WEIGHT * (reference.length - key_total) + KEYWORD_WEIGHT * key_total
                numerator += matched
                denominator += max(1, total)
                possible += total
            else:
                numerator += overlap
                denominator += max(1, max(0, reference.length - n))  # the number of reference n-grams
                possible += max(0, reference.length - n)
        numerators.append(numerator)
        denominators.append(denominator)
        possibles.append(possible)
    ref_length = closest_length([PACKAGE_REFERENCE_LENGTH] * len(references), candidate.length)
    return NgramStats(tuple(numerators), tuple(denominators), candidate.length, ref_length, tuple(possibles))


def _single_reference(reference: TokenAnalysis, candidate: TokenAnalysis, keywords: frozenset[str],
                      orders: int, overlaps: Sequence[int]) -> NgramStats:
    """``weighted_stats`` against one reference whose overlaps are known (the corpus's usual
    case): the same sums, without the loop over references."""
    key_grams, key_total = reference.keyword_counts(keywords)
    key_matched = _keywords_matched(key_grams, candidate.counts[0])
    total = OTHER_WEIGHT * (reference.length - key_total) + KEYWORD_WEIGHT * key_total
    counted = [max(0, reference.length - n) for n in range(1, orders)]
    return NgramStats(
        (OTHER_WEIGHT * (overlaps[0] - key_matched) + KEYWORD_WEIGHT * key_matched, *overlaps[1:orders]),
        (max(1, total), *[max(1, c) for c in counted]),
        candidate.length, closest_length([PACKAGE_REFERENCE_LENGTH], candidate.length), (total, *counted))


def _keywords_matched(key_grams: tuple[tuple[str, int], ...], cand_counts: dict) -> int:
    """The reference's keyword occurrences the candidate has, each clipped by the candidate's count."""
    get = cand_counts.get
    matched = 0
    for gram, count in key_grams:
        have = get(gram, 0)
        matched += count if count < have else have
    return matched
