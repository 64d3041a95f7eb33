"""Candidate pairs: MinHash signatures of the winnowed fingerprints, banded by LSH (``datasketch``),
so a class of n submissions is not compared n(n-1)/2 times; or every pair, for small classes
and for the benchmark's baseline."""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from .fingerprints import Fingerprint

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
