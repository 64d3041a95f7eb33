"""The last few parse trees, by language and source bytes: one version of an edited document is
read by several analyses (CodeBLEU's structure, the code tokens, the functions, the prose spans),
and each used to parse it again (about 5 ms a time for a 2,000-line file on a quiet CPU).

In an editing process (``reparse_edits``) a new version is parsed incrementally from the kept tree
it differs least from (tree-sitter reuses the unchanged subtrees: a 20,000-line file's parse after
a one-character edit took a fifth of a fresh one). The result is the fresh parse's tree: a tree with
an error is parsed again from scratch (tree-sitter's error recovery may depend on what it reused),
so the same text always gives the same tree, whatever the path (``tests/analysis/test_parse_incremental.py``).

Trees are immutable and read-only here (each reader walks its own cursor; an incremental parse
edits a copy), so the same tree may be read by several threads; the parse of the same bytes by the
same grammar is the same tree."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Optional

from .reaper import evicted
from .shared_ends import shared_prefix, shared_suffix

if TYPE_CHECKING:  # pragma: no cover
    import tree_sitter

    from ..languages import LanguageSpec

#: Trees kept, and the source bytes they may hold together (a tree takes some 30 to 50 times its
#: source in memory).
KEPT_TREES = 4
KEPT_BYTES = 1_500_000
#: An incremental parse is tried for sources at least this long whose changed bytes (the part
#: outside the longest common prefix and suffix with a kept source) are at most this share of them.
INCREMENTAL_MIN_BYTES = 4096
INCREMENTAL_MAX_CHANGED = 0.25

_kept: OrderedDict[tuple[str, bytes], "tree_sitter.Tree"] = OrderedDict()
_bytes = 0
_lock = threading.Lock()
_INCREMENTAL: list[bool] = [False]
#: How many parses were incremental (kept for the tests: the path must be taken to be checked).
incremental_parses = 0


def reparse_edits(on: bool = True) -> None:
    """Parse new versions incrementally from kept trees in this process (an editing session,
    where each version repeats most of the last); the trees are the same either way."""
    _INCREMENTAL[0] = on


def parse(spec: "LanguageSpec", source: bytes) -> "tree_sitter.Tree":
    """``spec.parse(source)``, the tree of the same bytes reused."""
    global _bytes
    key = (spec.name, source)
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
        base = _closest(spec.name, source) if _INCREMENTAL[0] and len(source) >= INCREMENTAL_MIN_BYTES else None
    tree = _incremental(spec, source, *base) if base is not None else None
    if tree is None:
        tree = spec.parse(source)
    if len(source) <= KEPT_BYTES:
        with _lock:
            if key not in _kept:
                _kept[key] = tree
                _bytes += len(source)
                while len(_kept) > KEPT_TREES or _bytes > KEPT_BYTES:
                    (_, old), dropped = _kept.popitem(last=False)
                    _bytes -= len(old)
                    evicted(dropped)
    return tree


def _closest(language: str, source: bytes) -> Optional[tuple[bytes, "tree_sitter.Tree", int, int]]:
    """The kept source of ``language`` that shares the most bytes with ``source`` at its ends,
    a copy of its tree, and the shared prefix and suffix lengths; None when none shares enough.
    Called with the lock held."""
    best = None
    most = len(source) * (1 - INCREMENTAL_MAX_CHANGED)
    for (name, old), tree in _kept.items():
        if name != language:
            continue
        prefix = shared_prefix(old, source)
        limit = min(len(old), len(source)) - prefix
        suffix = shared_suffix(old, source, limit)
        if prefix + suffix >= most:
            most, best = prefix + suffix, (old, tree, prefix, suffix)
    if best is None:
        return None
    old, tree, prefix, suffix = best
    return old, tree.copy(), prefix, suffix


def _incremental(spec: "LanguageSpec", source: bytes, old: bytes, tree: "tree_sitter.Tree",
                 prefix: int, suffix: int) -> Optional["tree_sitter.Tree"]:
    """The tree of ``source`` parsed from ``tree`` (a copy of ``old``'s, edited here), or None when
    it has an error (the caller parses from scratch)."""
    global incremental_parses
    tree.edit(start_byte=prefix, old_end_byte=len(old) - suffix, new_end_byte=len(source) - suffix,
              start_point=_point(old, prefix), old_end_point=_point(old, len(old) - suffix),
              new_end_point=_point(source, len(source) - suffix))
    new = spec.parser().parse(source, tree)
    if new.root_node.has_error:
        return None
    incremental_parses += 1
    return new


def _point(source: bytes, offset: int) -> tuple[int, int]:
    """The (row, byte column) of a byte offset."""
    return source.count(b"\n", 0, offset), offset - (source.rfind(b"\n", 0, offset) + 1)
