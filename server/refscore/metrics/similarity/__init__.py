"""Similarity among students' submissions to one problem: a hint for the teacher, never a verdict.

Pure over analysed documents (``analysis.similarity_tokens``: comments dropped, variables renamed
in first-use order, one unit per function): k-grams of those tokens minus the starter code's
(``fingerprints``), candidate pairs by MinHash/LSH over winnowed fingerprints for a large class
or every pair for a small one (``candidates``), then the exact score of each candidate pair and
the clusters of pairs at or above the threshold (``pairs``).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterator, Literal, Sequence

from ...analysis.similarity_tokens import StructuralTokens
from .candidates import ALL_PAIRS_UP_TO, all_pairs, minhash_pairs
from .fingerprints import K, Fingerprint, fingerprint, starter_kgrams
from .pairs import PairScore, clusters, pair_score, shared_lines
from .regions import Region, matched_regions

#: The score at or above which a pair is flagged when the teacher names no threshold.
DEFAULT_THRESHOLD = 0.8
Method = Literal["auto", "lsh", "all"]
#: Flagged pairs (highest first) whose shared lines are found for the side-by-side view; a class
#: of near-identical submissions can flag n(n-1)/2 pairs, its groups say the rest.
LINES_FOR = 1000
#: Flagged pairs listed per problem at most (a class of n identical submissions flags n(n-1)/2):
#: the groups still hold every flagged submission, ``unlisted`` counts the pairs left out.
MAX_PAIRS = 50_000
#: Why a submission was not compared (its ``status``); "compared" otherwise.
EMPTY = "not compared: no code"
UNSUPPORTED = "not compared: not a language RefScore parses"
TOO_SHORT = f"not compared: fewer than {K} tokens of code"
ONLY_STARTER = "not compared: nothing but the starter code"
#: Bins of the histogram of every compared pair's score (0..1), and the pairs just below the
#: threshold listed (highest first: those a teacher may want to read too).
BINS = 20
NEAR_PAIRS = 10


@dataclass(frozen=True)
class Submission:
    """One student's submission to the problem: a unique id and its analysed code."""

    id: str
    tokens: StructuralTokens


@dataclass(frozen=True)
class SimilarPair:
    """Two submissions at or above the threshold, and the 0-based lines each shares with the other."""

    first: str
    second: str
    score: float
    containment: float
    shared_kgrams: int
    first_lines: tuple[int, ...] = ()
    second_lines: tuple[int, ...] = ()
    regions: tuple[Region, ...] = ()  # each shared run, longest first (``regions``)


@dataclass(frozen=True)
class SimilarityResult:
    """The flagged pairs (highest score first; ``unlisted`` more past ``MAX_PAIRS``), their clusters,
    each submission's status and the work done: ``compared`` exact scores of ``possible`` pairs,
    candidates found by ``method`` (submissions with the very same k-grams are scored once)."""

    threshold: float
    pairs: tuple[SimilarPair, ...]
    clusters: tuple[tuple[str, ...], ...]
    status: dict[str, str] = field(default_factory=dict)
    syntax_errors: tuple[str, ...] = ()
    compared: int = 0
    possible: int = 0
    method: str = "all"
    unlisted: int = 0
    histogram: tuple[int, ...] = ()  # every compared pair's score in ``BINS`` bins over 0..1
    near: tuple[SimilarPair, ...] = ()  # the highest pairs below the threshold (no lines)

    def partners(self) -> dict[str, list[tuple[str, float]]]:
        """Each flagged submission's partners and their scores, highest first."""
        found: dict[str, list[tuple[str, float]]] = {}
        for p in self.pairs:
            found.setdefault(p.first, []).append((p.second, p.score))
            found.setdefault(p.second, []).append((p.first, p.score))
        return {k: sorted(v, key=lambda f: (-f[1], f[0])) for k, v in found.items()}


def _status(document: StructuralTokens, prints: Fingerprint) -> str:
    if document.language is None:
        return UNSUPPORTED
    if not document.units:
        return EMPTY
    if not prints.kgrams:
        return ONLY_STARTER if document.token_count >= K else TOO_SHORT
    return "compared"


def compare(submissions: Sequence[Submission], threshold: float = DEFAULT_THRESHOLD,
            starter: Sequence[StructuralTokens] = (), method: Method = "auto") -> SimilarityResult:
    """Flag the pairs of ``submissions`` whose exact score reaches ``threshold`` (0..1).

    ``starter``: the code handed out to every student (its k-grams count for no one). ``method``:
    ``lsh`` (MinHash candidates), ``all`` (every pair) or ``auto`` (``all`` up to
    ``ALL_PAIRS_UP_TO`` submissions). The same inputs give the same result, in any process.
    """
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"similarity threshold {threshold} is not in 0..1")
    ids = [s.id for s in submissions]
    if len(set(ids)) != len(ids):
        raise ValueError("similarity: submission ids must be unique")
    base = starter_kgrams(starter)
    prints = [fingerprint(s.tokens, base) for s in submissions]
    status = {s.id: _status(s.tokens, p) for s, p in zip(submissions, prints)}
    usable = [i for i, s in enumerate(submissions) if status[s.id] == "compared"]
    same = _same_structure(usable, prints)  # representative -> every submission with its k-grams
    shown = list(same)
    chosen = "all" if method == "all" or (method == "auto" and len(shown) <= ALL_PAIRS_UP_TO) else "lsh"
    if chosen == "all":
        candidates = [(shown[a], shown[b]) for a, b in all_pairs(len(shown))]
    else:
        candidates = [(shown[a], shown[b]) for a, b in minhash_pairs([prints[i] for i in shown], threshold)]
    scored: list[tuple[float, int, int, PairScore]] = []
    below: list[tuple[float, int, int, PairScore]] = []
    bins = [0] * BINS
    for a, b in candidates:
        found = pair_score(prints[a], prints[b])
        bins[min(BINS - 1, int(found.score * BINS))] += len(same[a]) * len(same[b])
        if found.score >= threshold and found.shared:
            scored.append((-found.score, a, b, found))
        elif found.shared:
            below.append((-found.score, a, b, found))
    bins[-1] += sum(len(m) * (len(m) - 1) // 2 for m in same.values())  # the same k-grams: score 1
    near = heapq.nsmallest(NEAR_PAIRS, _every_pair(same, [], heapq.nsmallest(NEAR_PAIRS, below, key=_order)),
                           key=_order)
    identical = [PairScore(1.0, 1.0, prints[members[0]].size) for members in same.values()]
    total = sum(len(m) * (len(m) - 1) // 2 for m in same.values()) + sum(len(same[a]) * len(same[b])
                                                                        for _, a, b, _ in scored)
    every = _every_pair(same, identical, scored)
    listed = sorted(every, key=_order) if total <= MAX_PAIRS else heapq.nsmallest(MAX_PAIRS, every, key=_order)
    flagged = [SimilarPair(ids[a], ids[b], found.score, found.containment, found.shared,
                           *((shared_lines(submissions[a].tokens, prints[a], prints[b]),
                              shared_lines(submissions[b].tokens, prints[b], prints[a]),
                              matched_regions(submissions[a].tokens, prints[a], submissions[b].tokens, prints[b]))
                             if n < LINES_FOR else ()))
               for n, (_, a, b, found) in enumerate(listed)]
    edges = [(ids[m[0]], ids[other]) for m in same.values() for other in m[1:]]
    groups = clusters(ids, [*edges, *((ids[a], ids[b]) for _, a, b, _ in scored)])
    errors = tuple(s.id for s in submissions if s.tokens.has_syntax_errors and status[s.id] == "compared")
    return SimilarityResult(threshold, tuple(flagged), tuple(groups), status, errors, len(candidates),
                            len(usable) * (len(usable) - 1) // 2, chosen, total - len(flagged), tuple(bins),
                            tuple(SimilarPair(ids[a], ids[b], f.score, f.containment, f.shared) for _, a, b, f in near))


def _order(entry: tuple[float, int, int, PairScore]) -> tuple[float, int, int]:
    return entry[:3]


def _same_structure(usable: Sequence[int], prints: Sequence[Fingerprint]) -> dict[int, list[int]]:
    """Submissions with the very same k-grams, keyed by the first of them (in input order): one
    of each is compared, the others share its scores (a class of identical copies costs nothing)."""
    found: dict[frozenset, list[int]] = {}
    for index in usable:
        found.setdefault(frozenset(prints[index].kgrams.items()), []).append(index)
    return {members[0]: members for members in found.values()}


def _every_pair(same: dict[int, list[int]], identical: list[PairScore],
                scored: list[tuple[float, int, int, PairScore]]) -> Iterator[tuple[float, int, int, PairScore]]:
    """Every flagged pair (i < j): within a group of the same k-grams (score 1), and each member of
    one group with each of another the exact score joined."""
    for members, found in zip(same.values(), identical):
        for a, b in combinations(members, 2):
            yield -1.0, a, b, found
    for score, a, b, found in scored:
        for x in same[a]:
            for y in same[b]:
                yield (score, x, y, found) if x < y else (score, y, x, found)


__all__ = ["DEFAULT_THRESHOLD", "SimilarPair", "SimilarityResult", "Submission", "compare", "pair_score",
           "fingerprint"]
