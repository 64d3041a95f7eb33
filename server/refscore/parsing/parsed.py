"""The last few parse trees, by language and source bytes: one version of an edited document is
read by several analyses (CodeBLEU's structure, the code tokens, the functions, the prose spans),
and each used to parse it again (about 5 ms a time for a 2,000-line file on a quiet CPU).

Trees are immutable and read-only here (each reader walks its own cursor), so the same tree may
be read by several threads; the parse of the same bytes by the same grammar is the same tree."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import tree_sitter

    from ..languages import LanguageSpec

#: Trees kept, and the source bytes they may hold together (a tree takes some 30 to 50 times its
#: source in memory).
KEPT_TREES = 4
KEPT_BYTES = 1_500_000

_kept: OrderedDict[tuple[str, bytes], "tree_sitter.Tree"] = OrderedDict()
_bytes = 0
_lock = threading.Lock()


def parse(spec: "LanguageSpec", source: bytes) -> "tree_sitter.Tree":
    """``spec.parse(source)``, the tree of the same bytes reused."""
    global _bytes
    key = (spec.name, source)
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    tree = spec.parse(source)
    if len(source) <= KEPT_BYTES:
        with _lock:
            if key not in _kept:
                _kept[key] = tree
                _bytes += len(source)
                while len(_kept) > KEPT_TREES or _bytes > KEPT_BYTES:
                    (_, old), _ = _kept.popitem(last=False)
                    _bytes -= len(old)
    return tree
