"""An edited document's assembled flat tree made from its last version's (``parsing.flat.assemble``
in an editing process): the parts before and after the edit are copied from the last version's
lists, shifted by the nodes, tokens and bytes the edit added; only the parts in between are
appended one by one.

A 20,000-line file has 2,000 parts, and appending each (its node numbers and byte offsets shifted
in small lists) took a third of a one-character edit's structure analysis; copying whole runs of
the lists is a slice, and a run that must shift is one pass. The result is every field of
``flatten`` of the whole tree (``tests/analysis/test_flat_parts.py`` checks it after random edits).
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

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

    def mark(self, flat: "FlatTree") -> None:
        """Note where the next part starts (or, after the last, where the lists end)."""
        self.nodes.append(len(flat.types))
        self.tokens.append(len(flat.tokens))
        self.hidden.append(len(flat.hidden))
        self.subtrees.append(len(flat.subtree_keys))


def keep(layout: Layout) -> None:
    """Keep ``layout`` (complete: its lists marked after the last part) to derive later versions from."""
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
           middle: Callable[["FlatTree", Layout, int], None], new_flat: Callable[[], "FlatTree"]) -> Layout | None:
    """The layout of ``source``'s flat tree made from the kept layout it differs least from, its
    root not filled in yet (the caller does, as for a tree assembled part by part); None when no
    kept layout is close enough. ``middle(flat, layout, index)`` appends part ``index`` afresh."""
    found = _closest(source, tag, root_type)
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
    flat = new_flat()
    layout = Layout(source, tag, root_type, flat, list(spans), list(keyed))
    _copy(flat, old, 0, same, 0, 0, 0, 0, 0)
    layout.nodes.extend(old.nodes[:same])
    layout.tokens.extend(old.tokens[:same])
    layout.hidden.extend(old.hidden[:same])
    layout.subtrees.extend(old.subtrees[:same])
    layout.counts.extend(old.counts[:same])
    layout.depths.extend(old.depths[:same])
    for index in range(same, new_parts - after):
        layout.mark(flat)
        middle(flat, layout, index)
    first = old_parts - after
    shifts = (len(flat.types) - old.nodes[first], len(flat.tokens) - old.tokens[first],
              len(flat.hidden) - old.hidden[first], len(flat.subtree_keys) - old.subtrees[first])
    _copy(flat, old, first, old_parts, *shifts, delta)
    nodes, tokens, hidden, subtrees = shifts
    layout.nodes.extend([n + nodes for n in old.nodes[first:old_parts]])
    layout.tokens.extend([n + tokens for n in old.tokens[first:old_parts]])
    layout.hidden.extend([n + hidden for n in old.hidden[first:old_parts]])
    layout.subtrees.extend([n + subtrees for n in old.subtrees[first:old_parts]])
    layout.counts.extend(old.counts[first:])
    layout.depths.extend(old.depths[first:])
    layout.mark(flat)
    return layout


def _closest(source: bytes, tag: str, root_type: str) -> tuple[Layout, int, int] | None:
    """The kept layout of the same kind sharing the most bytes at its ends with ``source`` (at
    least ``1 - MAX_CHANGED`` of it), with the lengths of the shared prefix and suffix."""
    if len(source) < MIN_BYTES:
        return None
    with _lock:
        kept = list(_kept)
    best, most = None, len(source) * (1 - MAX_CHANGED)
    for layout in reversed(kept):
        if layout.tag != tag or layout.root_type != root_type:
            continue
        old = layout.source
        prefix = shared_prefix(old, source)
        suffix = shared_suffix(old, source, min(len(old), len(source)) - prefix)
        if prefix + suffix >= most:
            best, most = (layout, prefix, suffix), prefix + suffix
    return best


def _copy(flat: "FlatTree", old: Layout, first: int, end: int, nodes: int, tokens: int, hidden: int,
          subtrees: int, delta: int) -> None:
    """Append old parts ``first`` to ``end`` (exclusive) to ``flat``: node numbers moved by
    ``nodes``, byte offsets by ``delta`` (the token, hidden and subtree shifts only check that the
    run lands where the layout says)."""
    if first == end:
        return
    source = old.flat
    a, b = old.nodes[first], old.nodes[end]
    assert len(flat.types) == a + nodes and len(flat.tokens) == old.tokens[first] + tokens
    assert len(flat.hidden) == old.hidden[first] + hidden and len(flat.subtree_keys) == old.subtrees[first] + subtrees
    flat.types.extend(source.types[a:b])
    flat.fields.extend(source.fields[a:b])
    if nodes:
        flat.kids.extend([[k + nodes for k in kids] if kids else kids for kids in source.kids[a:b]])
        flat.last.extend([n + nodes for n in source.last[a:b]])
    else:  # the children's lists are shared: no flat tree's lists are changed once made
        flat.kids.extend(source.kids[a:b])
        flat.last.extend(source.last[a:b])
    t0, t1 = old.tokens[first], old.tokens[end]
    h0, h1 = old.hidden[first], old.hidden[end]
    s0, s1 = old.subtrees[first], old.subtrees[end]
    flat.tokens.extend([n + nodes for n in source.tokens[t0:t1]] if nodes else source.tokens[t0:t1])
    flat.hidden.extend([n + nodes for n in source.hidden[h0:h1]] if nodes else source.hidden[h0:h1])
    if delta:
        flat.token_spans.extend([(x + delta, y + delta) for x, y in source.token_spans[t0:t1]])
        flat.hidden_spans.extend([(x + delta, y + delta) for x, y in source.hidden_spans[h0:h1]])
        flat.subtree_starts.extend([x + delta for x in source.subtree_starts[s0:s1]])
        flat.subtree_ends.extend([x + delta for x in source.subtree_ends[s0:s1]])
    else:
        flat.token_spans.extend(source.token_spans[t0:t1])
        flat.hidden_spans.extend(source.hidden_spans[h0:h1])
        flat.subtree_starts.extend(source.subtree_starts[s0:s1])
        flat.subtree_ends.extend(source.subtree_ends[s0:s1])
    flat.subtree_keys.extend(source.subtree_keys[s0:s1])
    flat.subtree_types.extend(source.subtree_types[s0:s1])
