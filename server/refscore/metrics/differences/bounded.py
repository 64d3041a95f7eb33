"""Sequence matching whose work is bounded by the input's size.

``difflib.SequenceMatcher`` costs up to (pairs of equal elements) x (the shorter length) steps:
cubic on repetitive code (a thousand one-line functions whose ``def`` lines are all alike). Here
difflib runs as it is, its steps counted, and its opcodes are kept when it finishes within
``BUDGET`` steps (every ordinary input: the same opcodes as before); past it, the sequences are
first cut at anchors, patience-diff style:
elements that occur once on each side (else: the same number of times on each side, paired in
order), the longest chain of them that keeps both orders. The gaps between anchors are matched
the same way, recursively. A gap that has no anchor and is still over the budget, or any gap
once the total work passes ``WORK_PER_ELEMENT`` steps per element, is left unmatched (one
``replace``) and ``Matched.capped`` says so.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import Counter, OrderedDict
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Callable, Generic, Hashable, Sequence, TypeVar

Opcode = tuple[str, int, int, int, int]
V = TypeVar("V")
Block = tuple[int, int, int]
#: difflib's steps (elements its longest-match search visits) before it is stopped.
BUDGET = 100_000
#: The anchored matching's steps per element of both sequences, past ``BUDGET``, before it stops.
WORK_PER_ELEMENT = 64
#: difflib's steps in a gap between anchors, per element of the gap.
GAP_STEPS = 16


@dataclass(frozen=True)
class Matched:
    """The opcodes of one matching; ``capped``: part of it was left unmatched to bound the work."""

    opcodes: list[Opcode]
    capped: bool = False


class _OverBudget(Exception):
    """difflib has spent its steps."""


class _CountedMatcher(SequenceMatcher):
    """``SequenceMatcher`` that counts the steps of its longest-match searches (each visits, per
    element of ``a`` in the range, that element's places in ``b``) and stops past ``budget``."""

    def __init__(self, a: Sequence[Hashable], b: Sequence[Hashable], autojunk: bool, budget: int) -> None:
        self.budget, self.spent = budget, 0
        self._steps: list[int] | None = None
        super().__init__(None, a, b, autojunk=autojunk)

    def find_longest_match(self, alo: int = 0, ahi: int | None = None, blo: int = 0,
                           bhi: int | None = None):  # type: ignore[no-untyped-def]
        ahi = len(self.a) if ahi is None else ahi
        if self._steps is None:
            self._steps = [0]
            for x in self.a:
                self._steps.append(self._steps[-1] + len(self.b2j.get(x, ())))
        steps = self._steps[ahi] - self._steps[alo] + 1
        if self.spent + steps > self.budget:
            raise _OverBudget
        self.spent += steps
        return super().find_longest_match(alo, ahi, blo, bhi)


def _difflib(a: Sequence[Hashable], b: Sequence[Hashable], autojunk: bool, budget: int) -> tuple[list[Block] | None, int]:
    """difflib's matching blocks (None: over ``budget``) and the steps spent."""
    matcher = _CountedMatcher(a, b, autojunk, budget)
    try:
        blocks = [(i, j, n) for i, j, n in matcher.get_matching_blocks() if n]
    except _OverBudget:
        return None, matcher.spent
    return blocks, matcher.spent


def match(a: Sequence[Hashable], b: Sequence[Hashable], autojunk: bool = False) -> Matched:
    """The opcodes turning ``a`` into ``b`` (``SequenceMatcher.get_opcodes``'s form)."""
    blocks, spent = _difflib(a, b, autojunk, BUDGET)
    if blocks is not None:
        return Matched(to_opcodes(blocks, len(a), len(b)))
    blocks, capped = _anchored(a, b, autojunk)
    return Matched(to_opcodes(blocks, len(a), len(b)), capped)


class Kept(Generic[V]):
    """The last ``entries`` values made, by key (the least recently used dropped first)."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._kept: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V], valid: Callable[[V], bool] = lambda _: True) -> V:
        """The value kept under ``key`` when ``valid`` says it still applies, else ``make()``, kept."""
        with self._lock:
            found = self._kept.get(key)
            if found is not None and valid(found):
                self._kept.move_to_end(key)
                return found
        made = make()
        with self._lock:
            self._kept[key] = made
            while len(self._kept) > self.entries:
                self._kept.popitem(last=False)
        return made

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


class KeptMatches(Kept[Matched]):
    """``match`` of sequences met before, by their elements; a kept matching's opcodes are never
    changed."""

    def __call__(self, a: Sequence[Hashable], b: Sequence[Hashable], autojunk: bool = False) -> Matched:
        return self.get((tuple(a), tuple(b), autojunk), lambda: match(a, b, autojunk))


#: Runs of tokens met before: an edit leaves most differing runs of lines as they were, so their
#: token matchings are not made again.
KEPT_RUNS = 8192
kept_match = KeptMatches(KEPT_RUNS)
#: Whole documents' lines met before (a few: each holds its lines): an edit inside names leaves
#: the alignment's first pass, which reads every name as the same word, as it was.
KEPT_DOCUMENTS = 4
kept_lines_match = KeptMatches(KEPT_DOCUMENTS)


def _anchored(a: Sequence[Hashable], b: Sequence[Hashable], autojunk: bool) -> tuple[list[Block], bool]:
    """Matching blocks found by cutting at anchors (see the module's text)."""
    blocks: list[Block] = []
    work, limit, capped = 0, WORK_PER_ELEMENT * (len(a) + len(b) + 1), False
    gaps = [(0, len(a), 0, len(b))]
    whole = True  # difflib has failed on the whole already
    while gaps:
        alo, ahi, blo, bhi = gaps.pop()
        alo, blo, ahi, bhi = _trim(a, b, alo, ahi, blo, bhi, blocks)
        if alo == ahi or blo == bhi:
            continue
        work += (ahi - alo) + (bhi - blo)
        if work > limit:
            capped = True
            continue
        part_a, part_b = a[alo:ahi], b[blo:bhi]
        if not whole:
            size = (ahi - alo) + (bhi - blo)
            found, spent = _difflib(part_a, part_b, autojunk, min(BUDGET, GAP_STEPS * size, limit - work))
            work += spent
            if found is not None:
                blocks.extend((alo + i, blo + j, n) for i, j, n in found)
                continue
        whole = False
        anchors = _anchors(part_a, part_b)
        if not anchors:
            capped = True
            continue
        previous_a, previous_b = alo, blo
        for i, j in anchors:
            blocks.append((alo + i, blo + j, 1))
            gaps.append((previous_a, alo + i, previous_b, blo + j))
            previous_a, previous_b = alo + i + 1, blo + j + 1
        gaps.append((previous_a, ahi, previous_b, bhi))
    return _merged(sorted(blocks)), capped


def _trim(a: Sequence[Hashable], b: Sequence[Hashable], alo: int, ahi: int, blo: int, bhi: int,
          blocks: list[Block]) -> tuple[int, int, int, int]:
    """The gap less its common start and end (added to ``blocks``)."""
    start = 0
    while alo + start < ahi and blo + start < bhi and a[alo + start] == b[blo + start]:
        start += 1
    if start:
        blocks.append((alo, blo, start))
    alo, blo = alo + start, blo + start
    end = 0
    while ahi - end > alo and bhi - end > blo and a[ahi - end - 1] == b[bhi - end - 1]:
        end += 1
    if end:
        blocks.append((ahi - end, bhi - end, end))
    return alo, blo, ahi - end, bhi - end


def _anchors(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """(index in a, index in b) pairs, increasing in both: elements once on each side, else
    elements as many times on each side (k-th with k-th); the longest chain of them."""
    count_a, count_b = Counter(a), Counter(b)
    for wanted in (lambda x: count_a[x] == 1 == count_b.get(x, 0),
                   lambda x: count_a[x] == count_b.get(x, 0)):
        keep = {x for x in count_a if wanted(x)}
        if not keep:
            continue
        where_b: dict[Hashable, list[int]] = {}
        for j, x in enumerate(b):
            if x in keep:
                where_b.setdefault(x, []).append(j)
        seen: Counter[Hashable] = Counter()
        pairs = []
        for i, x in enumerate(a):
            if x in keep:
                pairs.append((i, where_b[x][seen[x]]))
                seen[x] += 1
        return _longest_chain(pairs)
    return []


def _longest_chain(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (increasing in their first item) whose second items
    increase too (patience sorting, n log n)."""
    tails: list[int] = []  # the smallest last j of a chain of each length
    tail_at: list[int] = []  # its index in pairs
    before = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        length = bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_at.append(index)
        else:
            tails[length], tail_at[length] = j, index
        before[index] = tail_at[length - 1] if length else -1
    chain: list[tuple[int, int]] = []
    at = tail_at[-1] if tail_at else -1
    while at >= 0:
        chain.append(pairs[at])
        at = before[at]
    return chain[::-1]


def _merged(blocks: list[Block]) -> list[Block]:
    """Sorted blocks with adjacent ones joined."""
    out: list[Block] = []
    for i, j, n in blocks:
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + n)
        else:
            out.append((i, j, n))
    return out


def to_opcodes(blocks: Sequence[Block], len_a: int, len_b: int) -> list[Opcode]:
    """Opcodes from sorted, non-overlapping matching blocks."""
    out: list[Opcode] = []
    i = j = 0
    for ai, bj, size in [*blocks, (len_a, len_b, 0)]:
        if i < ai and j < bj:
            out.append(("replace", i, ai, j, bj))
        elif i < ai:
            out.append(("delete", i, ai, j, bj))
        elif j < bj:
            out.append(("insert", i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            out.append(("equal", ai, i, bj, j))
    return out
