"""Similarity among students' submissions to one problem: a hint for the teacher, never a verdict.

Pure over analysed documents (``analysis.similarity_tokens``: comments dropped, variables renamed
in first-use order, one unit per function): k-grams of those tokens minus the starter code's
(``fingerprints``), candidate pairs by MinHash/LSH over winnowed fingerprints for a large class
or every pair for a small one (``minhash_pairs``, ``all_pairs``), then the exact score of each
candidate pair (``pair_score``), the regions it shares (``matched_regions``) and the clusters of
pairs at or above the threshold (``clusters``).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable, Iterator, Literal, Sequence

from ...analysis.similarity_tokens import StructuralTokens
from .fingerprints import K, Fingerprint, fingerprint, starter_kgrams

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
    regions: tuple[Region, ...] = ()  # each shared run, longest first (``matched_regions``)


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


# Candidate pairs: MinHash signatures of the winnowed fingerprints, banded by LSH (``datasketch``),
# so a class of n submissions is not compared n(n-1)/2 times; or every pair, for small classes and
# for the benchmark's baseline.

NUM_PERM = 128
SEED = 1
#: Below this many submissions every pair is compared exactly (cheaper than building signatures).
ALL_PAIRS_UP_TO = 60
_MASK32 = 0xFFFFFFFF


def all_pairs(count: int) -> list[tuple[int, int]]:
    """Every pair (i, j), i < j."""
    return list(combinations(range(count), 2))


def lsh_threshold(score_threshold: float) -> float:
    """The LSH's Jaccard threshold for a flagging threshold on the Dice-like score: the Jaccard
    that score means (d / (2 - d)), with a wide margin, so that pairs near the threshold are
    still compared exactly (MinHash estimates, the exact score decides)."""
    jaccard = score_threshold / (2 - score_threshold) if score_threshold < 2 else 1.0
    return min(0.9, max(0.1, jaccard * 0.55))


def _identity(value: int) -> int:
    return value


def minhash_pairs(prints: Sequence[Fingerprint], score_threshold: float, num_perm: int = NUM_PERM,
                  seed: int = SEED) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, whose winnowed fingerprints LSH puts in a common band, sorted."""
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=lsh_threshold(score_threshold), num_perm=num_perm)
    signatures = []
    for index, found in enumerate(prints):
        signature = MinHash(num_perm=num_perm, seed=seed, hashfunc=_identity)
        signature.update_batch(sorted(h & _MASK32 for h in found.winnowed))
        signatures.append(signature)
        if found.winnowed:
            lsh.insert(index, signature)
    pairs: set[tuple[int, int]] = set()
    for index, found in enumerate(prints):
        if found.winnowed:
            pairs.update((index, other) for other in lsh.query(signatures[index]) if other > index)
    return sorted(pairs)


# The exact score of a candidate pair, the lines it shares, and clusters of flagged pairs.

@dataclass(frozen=True)
class PairScore:
    """How much two submissions share: ``score`` (Dice over their k-gram multisets, 0..1: 1 is the
    same program up to names, comments and the order of functions) and ``containment`` (the
    shared part of the smaller one: high when one is a copy with code added)."""

    score: float
    containment: float
    shared: int


def pair_score(first: Fingerprint, second: Fingerprint) -> PairScore:
    """The exact score of two fingerprints (0 when either has no k-gram)."""
    if not first.kgrams or not second.kgrams:
        return PairScore(0.0, 0.0, 0)
    a, b = first.kgrams, second.kgrams
    common = first.keys & second.keys  # in C; most k-grams occur once, so few counts to compare
    shared = sum(min(a[h], b[h]) for h in common) if common else 0
    sizes = first.size, second.size
    return PairScore(round(2 * shared / (sizes[0] + sizes[1]), 6), round(shared / min(sizes), 6), shared)


def shared_lines(document: StructuralTokens, prints: Fingerprint, other: Fingerprint, k: int = K) -> tuple[int, ...]:
    """The 0-based lines of ``document`` covered by a k-gram the ``other`` submission has too."""
    lines: set[int] = set()
    for unit, hashes in zip(document.units, prints.unit_hashes):
        for start, h in enumerate(hashes):
            if h is not None and h in other.kgrams:
                lines.update(unit.lines[start:start + k])
    return tuple(sorted(lines))


def clusters(members: Sequence[str], edges: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Connected groups (two or more) of ``members`` joined by ``edges``, each in ``members``'
    order, the groups in the order of their first member."""
    parent = {m: m for m in members}
    order = {m: i for i, m in enumerate(members)}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb, key=order.__getitem__)] = min(ra, rb, key=order.__getitem__)
    groups: dict[str, list[str]] = {}
    for member in members:
        groups.setdefault(root(member), []).append(member)
    return [tuple(g) for g in groups.values() if len(g) > 1]


# Matched regions of a pair (the JPlag/Dolos view): each run of k-grams the two submissions share
# in the same order, as the lines it covers on each side, so that each region can be shown in its
# own colour on both sides. Greedy, longest run first at each place of the first submission; a run
# of the second is matched once (a region is one place on each side).

#: The most regions kept per pair (a long copy is a handful of regions; the rest are shared lines).
MAX_REGIONS = 40


@dataclass(frozen=True)
class Region:
    """One shared run: the 0-based lines it covers in the first and in the second submission, and
    its length in k-grams (the regions of a pair come longest first)."""

    first_lines: tuple[int, ...]
    second_lines: tuple[int, ...]
    kgrams: int


def matched_regions(first: StructuralTokens, first_prints: Fingerprint, second: StructuralTokens,
                    second_prints: Fingerprint, k: int = K) -> tuple[Region, ...]:
    """The regions the two share, longest first (at most ``MAX_REGIONS``)."""
    where: dict[int, list[tuple[int, int]]] = {}
    for unit, hashes in enumerate(second_prints.unit_hashes):
        for position, h in enumerate(hashes):
            if h is not None:
                where.setdefault(h, []).append((unit, position))
    used: set[tuple[int, int]] = set()
    found: list[Region] = []
    for unit, hashes in enumerate(first_prints.unit_hashes):
        position = 0
        while position < len(hashes):
            h = hashes[position]
            best, at = 0, None
            for other, start in where.get(h, ()) if h is not None else ():
                if (other, start) in used:
                    continue
                theirs = second_prints.unit_hashes[other]
                length = 0
                while position + length < len(hashes) and start + length < len(theirs) and \
                        hashes[position + length] is not None and hashes[position + length] == theirs[start + length] \
                        and (other, start + length) not in used:
                    length += 1
                if length > best:
                    best, at = length, (other, start)
            if at is None:
                position += 1
                continue
            used.update((at[0], at[1] + n) for n in range(best))
            mine = first.units[unit].lines[position:position + best + k - 1]
            theirs_lines = second.units[at[0]].lines[at[1]:at[1] + best + k - 1]
            found.append(Region(tuple(sorted(set(mine))), tuple(sorted(set(theirs_lines))), best))
            position += best
    found.sort(key=lambda region: (-region.kgrams, region.first_lines[:1]))
    return tuple(found[:MAX_REGIONS])


__all__ = ["DEFAULT_THRESHOLD", "SimilarPair", "SimilarityResult", "Submission", "compare", "pair_score",
           "fingerprint"]
