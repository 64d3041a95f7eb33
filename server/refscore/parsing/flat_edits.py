"""An edited document's assembled flat tree made from its last version's (``parsing.flat.assemble``
in an editing process): the last version's lists are changed into the new version's in place. The
parts before the edit stay as they are, the parts the edit changed are replaced by ones appended
afresh, and the parts after it are moved by the nodes, tokens and bytes the edit added.

A 20,000-line file has 2,000 parts, and appending each (its node numbers and byte offsets shifted
in small lists) took a third of a one-character edit's structure analysis; replacing a slice is a
move in C, and a run that must shift is one pass. The last version's lists are taken, not copied:
an editing process never holds two versions' trees (a 20,000-line file's is about 50 MB). The
result is every field of ``flatten`` of the whole tree (``tests/analysis/test_flat_parts.py``
checks it after random edits).

A layout is kept (``keep``) once the analysis that made its tree has finished with it: the next
derivation changes its lists.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from . import reaper
from .shared_ends import shared_prefix, shared_suffix

if TYPE_CHECKING:
    from .flat import FlatTree

#: Sources shorter than this are assembled part by part (a fraction of a millisecond).
MIN_BYTES = 4096
#: A source is derived from a kept layout only when the edit changed at most this share of it.
MAX_CHANGED = 0.25
#: Layouts kept to derive from (the last versions of the documents being edited).
KEPT = 2

_kept: deque["Layout"] = deque(maxlen=KEPT)
_lock = threading.Lock()
#: How many flat trees were derived (kept for the tests: the path must be taken to be checked).
derived = [0]


@dataclass(slots=True)
class Layout:
    """Where each part of an assembled flat tree lies in its lists: per part, its byte span, whether
    it is keyed, and the index of its first node, token, hidden token and subtree; each of the four
    index lists ends with its list's length. ``counts``/``depths``: each part's node count and depth."""

    source: bytes
    tag: str
    root_type: str
    flat: "FlatTree"
    spans: list[tuple[int, int]] = field(default_factory=list)
    keyed: list[bool] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    hidden: list[int] = field(default_factory=list)
    subtrees: list[int] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)
    #: a derived tree: the (node, token, hidden token, subtree) index where the parts made afresh
    #: start, where the replaced ones ended in the last version, and how far the rest moved
    edit: tuple | None = None
    #: what the data flow built from the last version's tree (taken: ``dataflow._tree_edits``
    #: changes it into this one's), and what it built from this one (kept for the next)
    previous: Any = None
    tree: Any = None

    def mark(self, flat: "FlatTree", at: tuple[int, int, int, int] = (0, 0, 0, 0)) -> None:
        """Note where the next part starts (or, after the last, where the lists end): ``flat``'s
        lengths, after ``at`` (node, token, hidden token, subtree) when ``flat`` holds a run that
        is placed there."""
        self.nodes.append(at[0] + len(flat.types))
        self.tokens.append(at[1] + len(flat.tokens))
        self.hidden.append(at[2] + len(flat.hidden))
        self.subtrees.append(at[3] + len(flat.subtree_keys))


def keep(layout: Layout) -> None:
    """Keep ``layout`` (complete: its lists marked after the last part; its tree no longer read by
    the analysis that made it) to derive later versions from."""
    if len(layout.source) >= MIN_BYTES:
        with _lock:
            oldest = _kept.popleft() if len(_kept) == KEPT else None
            _kept.append(layout)
        if oldest is not None:  # a large tree's lists freed after the update, not on its path
            reaper.evicted(oldest)


def forget() -> None:
    """Drop every kept layout (parts no longer assembled in this process)."""
    with _lock:
        _kept.clear()


def derive(source: bytes, tag: str, root_type: str, spans: list[tuple[int, int]], keyed: list[bool],
           middle: Callable[["FlatTree", Layout, int, int], None]) -> Layout | None:
    """The layout of ``source``'s flat tree, made from the kept layout it differs least from (taken:
    its flat tree's lists are changed into this source's, so two versions' lists are never held at
    once), its root not filled in yet (the caller does, as for a tree assembled part by part); None
    when no kept layout is close enough. ``middle(flat, layout, index, base)`` appends part
    ``index`` afresh to ``flat``, its nodes numbered from ``base + len(flat.types)``."""
    found = _take(source, tag, root_type)
    if found is None:
        return None
    old, prefix, suffix = found
    delta = len(source) - len(old.source)
    old_parts, new_parts = len(old.spans), len(spans)
    same = 0  # the leading parts within the shared prefix, at the same bytes
    while same < min(old_parts, new_parts) and spans[same] == old.spans[same] and spans[same][1] <= prefix \
            and keyed[same] == old.keyed[same]:
        same += 1
    after = 0  # the trailing parts within the shared suffix, moved by ``delta``
    first_kept_byte = len(source) - suffix
    while after < min(old_parts, new_parts) - same:
        start, end = spans[new_parts - 1 - after]
        old_start, old_end = old.spans[old_parts - 1 - after]
        if start < first_kept_byte or start - delta != old_start or end - delta != old_end \
                or keyed[new_parts - 1 - after] != old.keyed[old_parts - 1 - after]:
            break
        after += 1
    if same + after == 0:
        return None
    derived[0] += 1
    first = old_parts - after  # the old parts from here on are kept, moved
    starts = (old.nodes[same], old.tokens[same], old.hidden[same], old.subtrees[same])
    ends = (old.nodes[first], old.tokens[first], old.hidden[first], old.subtrees[first])
    layout = Layout(source, tag, root_type, old.flat, list(spans), list(keyed))
    for mine, theirs in ((layout.nodes, old.nodes), (layout.tokens, old.tokens), (layout.hidden, old.hidden),
                         (layout.subtrees, old.subtrees), (layout.counts, old.counts), (layout.depths, old.depths)):
        mine.extend(theirs[:same])
    return _changed(layout, old, same, first, new_parts - after, starts, ends, delta, middle)


def _changed(layout: Layout, old: Layout, same: int, first: int, new_end: int, starts: tuple[int, int, int, int],
            ends: tuple[int, int, int, int], delta: int, middle: Callable[["FlatTree", Layout, int, int], None]) -> Layout:
    """Replace the old parts ``same`` to ``first`` of ``layout``'s flat tree (``old``'s) by the new
    parts ``same`` to ``new_end``, made afresh, and move the parts after them by the nodes, tokens
    and bytes that changed."""
    flat = layout.flat
    added = type(flat)()  # (``flat.FlatTree``, which imports this module)
    nodes, tokens, hidden, subtrees = starts
    for index in range(same, new_end):
        layout.mark(added, starts)
        middle(added, layout, index, nodes)
    moved = (nodes + len(added.types) - ends[0], tokens + len(added.tokens) - ends[1],
             hidden + len(added.hidden) - ends[2], subtrees + len(added.subtree_keys) - ends[3])
    dn = moved[0]
    layout.edit, layout.previous = (starts, ends, moved), old.tree
    splice(flat.types, added.types, nodes, ends[0])
    splice(flat.fields, added.fields, nodes, ends[0])
    splice(flat.kids, added.kids, nodes, ends[0],
             (lambda kids: [[k + dn for k in ks] if ks else ks for ks in kids]) if dn else None)
    splice(flat.last, added.last, nodes, ends[0], plus(dn))
    splice(flat.tokens, added.tokens, tokens, ends[1], plus(dn))
    splice(flat.token_spans, added.token_spans, tokens, ends[1], pairs_plus(delta))
    splice(flat.hidden, added.hidden, hidden, ends[2], plus(dn))
    splice(flat.hidden_spans, added.hidden_spans, hidden, ends[2], pairs_plus(delta))
    splice(flat.subtree_keys, added.subtree_keys, subtrees, ends[3])
    splice(flat.subtree_types, added.subtree_types, subtrees, ends[3])
    splice(flat.subtree_starts, added.subtree_starts, subtrees, ends[3], plus(delta))
    splice(flat.subtree_ends, added.subtree_ends, subtrees, ends[3], plus(delta))
    for mine, theirs, by in ((layout.nodes, old.nodes, moved[0]), (layout.tokens, old.tokens, moved[1]),
                             (layout.hidden, old.hidden, moved[2]), (layout.subtrees, old.subtrees, moved[3])):
        mine.extend([n + by for n in theirs[first:-1]] if by else theirs[first:-1])
    layout.counts.extend(old.counts[first:])
    layout.depths.extend(old.depths[first:])
    layout.mark(flat)
    return layout


def splice(items: list, added: list, start: int, end: int, shift: Callable[[list], list] | None = None) -> None:
    """``items[start:end] = added``, the items after ``end`` changed by ``shift`` (None: as they
    are), in place (the token table's lists are changed as the tree's: ``dataflow._tree_edits``)."""
    if shift is None or end == len(items):
        items[start:end] = added
    else:
        items[start:] = added + shift(items[end:])


def plus(by: int) -> Callable[[list], list] | None:
    """``splice``'s shift of numbers by ``by`` (None: none)."""
    return (lambda values: [v + by for v in values]) if by else None


def pairs_plus(by: int) -> Callable[[list], list] | None:
    """``splice``'s shift of both numbers of pairs by ``by`` (None: none)."""
    return (lambda pairs: [(a + by, b + by) for a, b in pairs]) if by else None


def _take(source: bytes, tag: str, root_type: str) -> tuple[Layout, int, int] | None:
    """The kept layout of the same kind sharing the most bytes at its ends with ``source`` (at
    least ``1 - MAX_CHANGED`` of it), no longer kept, with the lengths of the shared prefix and suffix."""
    if len(source) < MIN_BYTES:
        return None
    with _lock:
        best, most = None, len(source) * (1 - MAX_CHANGED)
        for layout in reversed(_kept):
            if layout.tag != tag or layout.root_type != root_type:
                continue
            old = layout.source
            prefix = shared_prefix(old, source)
            suffix = shared_suffix(old, source, min(len(old), len(source)) - prefix)
            if prefix + suffix >= most:
                best, most = (layout, prefix, suffix), prefix + suffix
        if best is not None:
            _kept.remove(best[0])
    return best
