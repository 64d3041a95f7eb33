"""Unique report ids for every run, in two passes over a stream too large to hold.

Pass one sees every id (``add``) and keeps an 8-byte hash of each; pass two (``name``) renames
repeats ``x``, ``x#2``, ``x#3``... skipping names the input already uses. Memory: 8 bytes per item plus the repeated ids themselves. Two different ids with
the same 64-bit hash can only make a repeat skip a free suffix (still unique names); at a million
ids the chance of that is about 1 in 10^7.
"""

from __future__ import annotations

import hashlib
from array import array


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


class IdNamer:
    """Collect ids with ``add``, call ``freeze``, then ``name`` each id in the same order."""

    def __init__(self) -> None:
        self._hashes = array("Q")
        self._sorted: "object | None" = None
        self._repeated: set[int] = set()
        self._seen: dict[str, int] = {}
        self._added: set[str] = set()

    def add(self, item_id: str) -> None:
        """Pass one: remember that ``item_id`` occurs."""
        self._hashes.append(_hash(item_id))

    def freeze(self) -> None:
        """End of pass one: find the hashes that occur more than once."""
        import numpy as np

        values = np.frombuffer(self._hashes, dtype=np.uint64) if len(self._hashes) else np.zeros(0, np.uint64)
        unique, counts = np.unique(values, return_counts=True)
        self._sorted = unique
        self._repeated = {int(h) for h in unique[counts > 1]}
        self._hashes = array("Q")

    @property
    def unique(self) -> bool:
        """After ``freeze``: whether no id occurred twice (every id is named as it is)."""
        return not self._repeated

    def _taken(self, name: str) -> bool:
        import numpy as np

        if name in self._added:
            return True
        table = self._sorted
        assert table is not None, "freeze() first"
        h = np.uint64(_hash(name))
        at = int(np.searchsorted(table, h))  # type: ignore[call-overload]
        return at < len(table) and table[at] == h  # type: ignore[index]

    def name(self, item_id: str) -> str:
        """Pass two: the unique name of this occurrence of ``item_id``."""
        if _hash(item_id) not in self._repeated:
            return item_id
        count = self._seen.get(item_id, 0) + 1
        self._seen[item_id] = count
        if count == 1:
            return item_id
        candidate = f"{item_id}#{count}"
        while self._taken(candidate):
            count += 1
            candidate = f"{item_id}#{count}"
        self._seen[item_id] = count
        self._added.add(candidate)
        return candidate
