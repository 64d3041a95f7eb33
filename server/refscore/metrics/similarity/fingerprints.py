"""k-gram hashes of structural tokens, starter code taken out, and their winnowed fingerprints.

Each unit (a function, or the code outside functions) gives the hashes of its k-grams of
normalised tokens; no k-gram spans two units, so the order of functions does not matter. The
hashes are 64-bit BLAKE2b of the tokens (the same in every process, unlike ``hash``). Winnowing
(Schleimer, Wilkerson and Aiken, SIGMOD 2003) keeps the smallest hash of each window of ``w``
k-grams: a copied run of ``w + k - 1`` tokens or more always shares a fingerprint.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from ...analysis.similarity_tokens import StructuralTokens

#: Tokens per k-gram and k-grams per winnowing window (a copied run of K + W - 1 = 10 tokens or
#: more is always seen; JPlag's default minimum match for Java is 9 tokens).
K = 6
W = 5


@dataclass(frozen=True)
class Fingerprint:
    """One submission's k-grams (hash -> occurrences, starter code removed) and winnowed set."""

    kgrams: Counter
    winnowed: frozenset[int]
    #: per unit, each k-gram's hash in order (None where it was starter code), for the side-by-side view
    unit_hashes: tuple[tuple[int | None, ...], ...] = field(default=(), compare=False)
    size: int = 0  # k-grams counted with repeats
    keys: frozenset[int] = frozenset()  # the distinct k-grams (intersected in C by ``pair_score``)


def _hash(tokens: tuple[str, ...]) -> int:
    digest = hashlib.blake2b("\x1f".join(tokens).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def unit_kgrams(tokens: tuple[str, ...], k: int = K) -> list[int]:
    """The hashes of a unit's k-grams in order (one k-gram for a unit shorter than ``k``... none)."""
    return [_hash(tokens[i:i + k]) for i in range(len(tokens) - k + 1)]


def starter_kgrams(starters: Iterable[StructuralTokens], k: int = K) -> frozenset[int]:
    """Every k-gram of the starter code given to all students."""
    return frozenset(h for starter in starters for unit in starter.units for h in unit_kgrams(unit.tokens, k))


def winnow(hashes: list[int | None], w: int = W) -> set[int]:
    """The minimum of each window of ``w`` hashes (None: removed, never selected)."""
    chosen: set[int] = set()
    kept = [h for h in hashes if h is not None]
    if 0 < len(kept) <= w:
        chosen.add(min(kept))
        return chosen
    for start in range(len(hashes) - w + 1):
        window = [h for h in hashes[start:start + w] if h is not None]
        if window:
            chosen.add(min(window))
    return chosen


def fingerprint(document: StructuralTokens, starter: frozenset[int] = frozenset(), k: int = K,
                w: int = W) -> Fingerprint:
    """The k-grams and winnowed fingerprint of a document, without the starter's k-grams."""
    counts: Counter = Counter()
    selected: set[int] = set()
    per_unit: list[tuple[int | None, ...]] = []
    for unit in document.units:
        hashes: list[int | None] = [None if h in starter else h for h in unit_kgrams(unit.tokens, k)]
        counts.update(h for h in hashes if h is not None)
        selected |= winnow(hashes, w)
        per_unit.append(tuple(hashes))
    return Fingerprint(counts, frozenset(selected), tuple(per_unit), sum(counts.values()), frozenset(counts))
