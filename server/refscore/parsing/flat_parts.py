"""The native flat tree of a document assembled from its top-level parts, each part's kept by its
bytes: an edit flattens again only the parts it changed (``flat.flatten`` walks every node
through py-tree-sitter, most of a structure analysis's time besides the data flow).

A part is a kept child of the root; its flat tree is made by ``flatten`` on the child (node 0)
with byte offsets from the part's start, then numbered after the nodes before it. What the root
adds is made here as ``flatten`` makes it: node 0, its children (the parts' first nodes), its
subtree slot and key (from the parts' keys, in order), the count and depth. Only an error-free
root all of whose kept children have children of their own is assembled (``assemble`` gives None
otherwise: the caller flattens the whole tree); ``tests/analysis/test_flat_parts.py`` checks every field
against ``flatten`` of the whole tree on edited documents in several languages.
"""

from __future__ import annotations

from typing import Optional

import tree_sitter

from .flat import FlatTree, flatten
from .memo import TextMemo
from .trees import is_docstring

_BODIES = frozenset({"module", "block"})

#: A part's flat tree (offsets from its start), by its bytes, language, dropped types and whether
#: it is keyed (a module docstring is not).
_PARTS: TextMemo[FlatTree] = TextMemo(entries=8192, chars=8_000_000)


def assemble(root: tree_sitter.Node, source: bytes, language: str, drop: frozenset[str],
             docstrings: bool) -> Optional[FlatTree]:
    """``flatten(root, language, drop, "native")`` from per-part flat trees, or None when the
    tree is not one this assembles (errors, a part without children)."""
    if root.has_error or root.type in drop:
        return None
    children = [c for c in root.children if c.type not in drop]
    if not children or any(c.child_count == 0 for c in children):
        return None
    flat = FlatTree()
    flat.types.append(root.type)
    flat.fields.append(None)
    kids: list[int] = []
    flat.kids.append(kids)
    flat.last.append(0)
    flat.subtree_keys.append(0)
    flat.subtree_types.append(root.type)
    flat.subtree_starts.append(root.start_byte)
    flat.subtree_ends.append(root.end_byte)
    entries = []
    seen = not (docstrings and root.type in _BODIES)  # the first named child may be a docstring
    count, depth = 1, 0
    tag = f"{language}|{','.join(sorted(drop))}"
    for child in children:
        keyed = True
        if not seen and child.is_named:
            seen = True
            keyed = not is_docstring(child)
        start = child.start_byte
        part = _PARTS(source[start:child.end_byte], f"{tag}|{keyed}",
                      lambda: _relative(child, language, drop, keyed))  # noqa: B023 - called at once
        at = len(flat.types)
        kids.append(at)
        _append(flat, part, at, start)
        count += part.count
        depth = max(depth, part.depth + 1)
        if keyed:
            entries.append((None, part.subtree_keys[0]))
    flat.last[0] = len(flat.types) - 1
    flat.subtree_keys[0] = hash((root.type, tuple(entries)))
    flat.count, flat.depth, flat.has_error = count, depth, False
    return flat


def _relative(node: tree_sitter.Node, language: str, drop: frozenset[str], keyed: bool) -> FlatTree:
    """The part's flat tree, byte offsets from its start (keyed: with its native subtrees)."""
    part = flatten(node, language, drop, "native" if keyed else None)
    shift = node.start_byte
    part.token_spans = [(a - shift, b - shift) for a, b in part.token_spans]
    part.hidden_spans = [(a - shift, b - shift) for a, b in part.hidden_spans]
    part.subtree_starts = [a - shift for a in part.subtree_starts]
    part.subtree_ends = [b - shift for b in part.subtree_ends]
    return part


def _append(flat: FlatTree, part: FlatTree, at: int, start: int) -> None:
    """Add ``part``'s nodes numbered from ``at`` and its offsets from ``start`` to ``flat``."""
    flat.types.extend(part.types)
    flat.fields.extend(part.fields)
    flat.kids.extend([[k + at for k in kids] if kids else kids for kids in part.kids])
    flat.last.extend([n + at for n in part.last])
    flat.tokens.extend([n + at for n in part.tokens])
    flat.token_spans.extend([(a + start, b + start) for a, b in part.token_spans])
    flat.hidden.extend([n + at for n in part.hidden])
    flat.hidden_spans.extend([(a + start, b + start) for a, b in part.hidden_spans])
    flat.subtree_keys.extend(part.subtree_keys)
    flat.subtree_types.extend(part.subtree_types)
    flat.subtree_starts.extend([a + start for a in part.subtree_starts])
    flat.subtree_ends.extend([b + start for b in part.subtree_ends])
