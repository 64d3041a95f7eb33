"""The data-flow walk of a document part by part, each top-level part's walk kept (an editing
session: each version repeats most parts of the last).

The walk threads one state through the whole document, so a part's edges depend on the state it
is walked with; but a walk of a node reads and writes only the variables named under it (the
rule the loops' memo and ``local_state`` rest on), and only compares token numbers for order and
equality. So a part's walk is a function of its text and of the incoming definitions of its own
names, up to an order-preserving renumbering: its own tokens counted from its first, the incoming
definitions replaced by their ranks among themselves (negative numbers, below every token of the
part). That is the key a walk is kept under, and a kept walk is renumbered back into the document.
The result is the whole walk's, edge for edge and in the same order; the step budget is spent as
the whole walk spends it (``tests/analysis/test_dataflow_parts.py``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, Optional

from ..parsing.memo import TextMemo
from ._reach import Reach
from ._tree import Abort, DataTree, mentioned
from ._walker import State, Walker

#: Incoming definitions kept per part text (the part's walks under different incoming states).
WALKS_PER_PART = 8

#: Per part text (and rule set): the names under it and its kept walks.
_PARTS: TextMemo["_Kept"] = TextMemo(entries=8192, chars=8_000_000)
_ON: list[bool] = [False]
#: How many part walks were taken from the kept ones (for the tests: the path must be taken).
reused = [0]


def keep_walks(on: bool = True) -> None:
    """Walk documents part by part, keeping each part's walk, in this process (an editing
    session); the edges are the same either way."""
    _ON[0] = on


class _Kept:
    """One part text's names (in the order its tokens first name them) and its walks by incoming
    definitions: ``(edges, outgoing, steps)`` in relative numbers, and the last walk as it was
    used, ``(first, end, incoming, edges, outgoing, steps)`` in the document's numbers (put in
    relative numbers only when another use needs it renumbered: most edits leave a part's numbers)."""

    __slots__ = ("names", "walks", "last", "filed")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.walks: dict[tuple, tuple[list, tuple, int]] = {}
        self.last: Optional[tuple[int, int, tuple, list, tuple, int]] = None
        self.filed = False  # whether ``last`` is among ``walks``


def walk_root(walker: Walker, tree: DataTree, text: str, tag: str) -> None:
    """``walker.walk(0, {})``, top-level part by part where the root allows (no rule of its own,
    no child walked first), each part's walk kept by its text (``text``, the document's) and the
    rule set ``tag``."""
    if not _ON[0] or tree.flat.has_error or tree.info[0] is not None or tree.types[0] in walker.handlers or 0 in walker.reordered \
            or 0 in tree.inside or not tree.kids[0]:
        walker.walk(0, {})
        return
    source = text if text.isascii() else text.encode("utf-8")  # parts are sliced by byte offsets
    flat = tree.flat
    tokens, spans = flat.tokens, tree.spans
    st: State = {}
    for part in tree.kids[0]:  # (none is inside a token: the root is not one)
        first = bisect_left(tokens, part)
        end = bisect_right(tokens, tree.last[part], first)
        if first == end:
            st = walker.walk(part, st)
            continue
        key = source[spans[first][0]:spans[end - 1][1]]
        kept = _PARTS(key, tag, lambda: _Kept(mentioned(tree, part)))
        st = _walk_part(walker, part, st, kept, first, end)


def _walk_part(walker: Walker, part: int, st: State, kept: _Kept, first: int, end: int) -> State:
    """Walk one part with ``st``: as its last walk when its numbers and incoming definitions are
    the same, else from a kept walk renumbered, else for real (kept afterwards)."""
    names = kept.names
    incoming = tuple([st.get(v) for v in names])
    last = kept.last
    if last is not None and last[0] == first and last[2] == incoming:  # as last time: no renumbering
        return _apply(walker, st, names, *last[3:])
    ranks, key = _symbolic_key(incoming) if last is not None else (None, ())  # a new part: nothing to renumber
    if ranks is not None:
        if not kept.filed:
            _file(kept, last)
        found = kept.walks.get(key)
        if found is not None:
            relative, outgoing_relative, steps = found
            order = sorted(ranks)
            edges = [(e[0], e[1] + first, e[2], e[3], tuple([first + p if p >= 0 else order[p] for p in e[4]]))
                     for e in relative]
            outgoing = tuple([None if v is None else tuple([first + p if p >= 0 else order[p] for p in v])
                              for v in outgoing_relative])
            kept.last, kept.filed = (first, end, incoming, edges, outgoing, steps), True
            return _apply(walker, st, names, edges, outgoing, steps)
    out = walker.out
    start, steps_before = len(out), walker.steps
    st = walker.walk(part, st)
    kept.last = (first, end, incoming, out[start:], tuple([st.get(v) for v in names]), walker.steps - steps_before)
    kept.filed = False
    return st


def _file(kept: _Kept, last: tuple) -> None:
    """Keep the last walk in relative numbers too (when it renumbers cleanly)."""
    first, end, incoming, edges, outgoing, steps = last
    kept.filed = True
    ranks, key = _symbolic_key(incoming)
    relative = _relative(edges, outgoing, ranks, first, end) if ranks is not None else None
    if relative is not None:
        if len(kept.walks) >= WALKS_PER_PART:
            kept.walks.pop(next(iter(kept.walks)))
        kept.walks[key] = (*relative, steps)


def _apply(walker: Walker, st: State, names: tuple[str, ...], edges: list, outgoing: tuple, steps: int) -> State:
    """A kept walk's effect: its steps spent, its edges added, its names' definitions set."""
    reused[0] += 1
    walker.steps += steps
    if walker.steps > walker.max_steps:
        raise Abort("step budget exceeded")
    walker.out.extend(edges)
    for v, value in zip(names, outgoing):
        if value is None:
            st.pop(v, None)
        else:
            st[v] = value
    return st


def _symbolic_key(incoming: tuple) -> tuple[Optional[dict[int, int]], tuple]:
    """The incoming definitions with each token replaced by its rank among them, counted back
    from -1 (the order kept), and the token -> rank map; (None, ()) when a set is shared
    (``Reach``: a large set, not kept)."""
    tokens: set[int] = set()
    for value in incoming:
        if value is not None:
            if value.__class__ is Reach:
                return None, ()
            tokens.update(value)
    order = sorted(tokens)
    size = len(order)
    ranks = {token: rank - size for rank, token in enumerate(order)}
    return ranks, tuple([None if v is None else tuple([ranks[t] for t in v]) for v in incoming])


def _relative(edges: list, outgoing: tuple, ranks: dict[int, int], first: int, end: int) -> Optional[tuple[list, tuple]]:
    """The part's edges and outgoing definitions in relative numbers (own tokens from 0, incoming
    ones by rank), or None when a number is neither (or a set is shared): such a walk is not kept."""
    def number(token: int) -> int:
        if first <= token < end:
            return token - first
        return ranks[token]  # KeyError: neither the part's nor an incoming definition

    try:
        relative = []
        for e in edges:
            parents: Any = e[4]
            if parents.__class__ is Reach:
                return None
            relative.append((e[0], number(e[1]), e[2], e[3], tuple([number(p) for p in parents])))
        out = []
        for value in outgoing:
            if value is not None and value.__class__ is Reach:
                return None
            out.append(None if value is None else tuple([number(p) for p in value]))
    except KeyError:
        return None
    return relative, tuple(out)
