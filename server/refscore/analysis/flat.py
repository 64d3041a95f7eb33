"""A parsed tree read once into flat lists, shared by the subtree keys and the data-flow walker.

py-tree-sitter attribute access is what analysis time is spent on, so each node is touched once,
in one ``TreeCursor`` walk. Nodes are numbered in preorder; per node we keep the type, the field
name under its parent, the children's numbers and, for token-like nodes, the (start, end) byte offsets.
The same walk builds the subtree keys (see ``refscore.analysis.trees`` for what they mean):

* ``"compat"``: the S-expression-equivalent shape hashes of ``trees._shape_keys`` (None when an
  anonymous node has children; the caller then falls back to S-expressions);
* ``"native"``: the subtrees of ``trees.native_subtrees`` (comment nodes are left out of the whole
  flat tree, docstrings only out of the keys), kept as parallel lists in preorder
  (``subtree_keys``, ``subtree_types``, ``subtree_starts``, ``subtree_ends``); ``subtrees`` makes
  ``Subtree`` tuples of them on demand (a candidate only needs the keys).

Field lookups (``FlatTree.field``) read the field names the cursor reported: the first child
under that field is what ``child_by_field_name`` returns, except under an ERROR node, where
tree-sitter has no field map and returns nothing (tests/test_flat_tree.py checks this against
tree-sitter). Only ``analysis`` touches tree-sitter objects.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

import tree_sitter

from .trees import Subtree, is_docstring

KeyMode = Literal["compat", "native"]

#: Token-like node types besides leaves (the ``codebleu`` package's rule), ``comment`` excluded.
STRING_TYPES = frozenset({"string_literal", "string", "character_literal"})
_BODIES = frozenset({"module", "block"})
_NO_KIDS: tuple[int, ...] = ()

# per language: kind_id -> (type, is_named); field_id -> field name (filled on first sight)
_KINDS: dict[str, dict[int, tuple[str, bool]]] = {}
_FIELDS: dict[str, dict[int, Optional[str]]] = {}


class FlatTree:
    """One parsed text as flat, preorder-numbered lists (node 0 is the root)."""

    __slots__ = ("types", "fields", "kids", "spans", "tokens", "hidden", "depth", "count",
                 "has_error", "compat_keys", "subtree_keys", "subtree_types", "subtree_starts",
                 "subtree_ends")

    def __init__(self) -> None:
        self.types: list[str] = []
        self.fields: list[Optional[str]] = []
        self.kids: list[Any] = []           # list[int] per inner node, () for leaves
        self.spans: dict[int, tuple[int, int]] = {}  # token-like node -> (start, end) byte
        self.tokens: list[int] = []         # token-like nodes not inside a token, in preorder
        self.hidden: list[int] = []         # token-like nodes inside a token
        self.depth = 0                      # max depth of nodes not inside a token
        self.count = 0                      # number of nodes not inside a token
        self.has_error = False
        self.compat_keys: Optional[list[int]] = None
        self.subtree_keys: list[int] = []   # native: per subtree, in preorder
        self.subtree_types: list[str] = []
        self.subtree_starts: list[int] = []
        self.subtree_ends: list[int] = []

    def __len__(self) -> int:
        return len(self.types)

    @property
    def subtrees(self) -> list[Subtree]:
        """The native subtrees as ``Subtree`` tuples, in preorder (by start, outer first)."""
        return list(map(Subtree, self.subtree_keys, self.subtree_types, self.subtree_starts,
                        self.subtree_ends))

    def field(self, n: int, name: str) -> Optional[int]:
        """The child ``child_by_field_name(name)`` gives, as a node number (None if absent)."""
        if self.types[n] == "ERROR":
            return None
        fields = self.fields
        for kid in self.kids[n]:
            if fields[kid] == name:
                return kid
        return None


def flatten(root: tree_sitter.Node, language: str, drop: frozenset[str] = frozenset(),
            keys: Optional[KeyMode] = None) -> FlatTree:
    """Read ``root`` in one cursor walk; node types in ``drop`` are left out with their subtrees.

    ``keys`` also builds the compat shape keys (only for an error-free tree) or native subtrees.
    """
    flat = FlatTree()
    flat.has_error = has_error = root.has_error
    kinds = _KINDS.setdefault(language, {})
    field_names = _FIELDS.setdefault(language, {0: None})
    types, fields, kids_of, spans = flat.types, flat.fields, flat.kids, flat.spans
    tokens, hidden = flat.tokens, flat.hidden
    compat = keys == "compat" and not has_error
    native = keys == "native"
    docstrings = native and language == "python"
    found_keys: list[int] = []
    sub_keys, sub_types = flat.subtree_keys, flat.subtree_types
    sub_starts, sub_ends = flat.subtree_starts, flat.subtree_ends
    # open inner nodes: [number, token depth (0: not inside a token), depth, key entries or None,
    #                    field, native subtree slot, first statement seen]
    frames: list[list[Any]] = []
    cursor = root.walk()
    count = depth = 0
    ok_compat = compat
    while True:
        node = cursor.node
        kid_id = node.kind_id
        kind = kinds.get(kid_id)
        if kind is None:
            kind = kinds[kid_id] = (node.type, node.is_named)
        t, named = kind
        if t not in drop:
            i = len(types)
            types.append(t)
            fid = cursor.field_id
            fname = field_names.get(fid)
            if fname is None and fid:
                fname = field_names[fid] = cursor.field_name
            fields.append(fname)
            if frames:
                parent = frames[-1]
                kids_of[parent[0]].append(i)
                inside = parent[1]
                d = parent[2] + 1
                entries = parent[3]
            else:
                inside = 0
                d = 0
                entries = None
            if not inside:
                count += 1
                if d > depth:
                    depth = d
            cc = node.child_count
            token_like = (cc == 0 or t in STRING_TYPES) and t != "comment"
            if token_like:
                spans[i] = node.byte_range
                (hidden if inside else tokens).append(i)
            keyed = entries is not None or not frames
            if native and keyed and named and docstrings and frames:
                parent = frames[-1]
                if not parent[6] and types[parent[0]] in _BODIES:
                    parent[6] = True
                    keyed = not is_docstring(node)
            if cc:
                kids_of.append([])
                if cursor.goto_first_child():
                    slot = -1
                    if native and keyed:
                        slot = len(sub_keys)
                        sub_keys.append(0)  # the key is known when the node closes
                        sub_types.append(t)
                        sub_starts.append(node.start_byte)
                        sub_ends.append(node.end_byte)
                    frames.append([i, inside or token_like, d, [] if keyed and (compat or native) else None,
                                   fname, slot, False])
                    if compat and not named and i:
                        ok_compat = False
                    continue
            else:
                kids_of.append(_NO_KIDS)
                if keyed and named and entries is not None:
                    entries.append((fname, hash((t, ()))))
        while not cursor.goto_next_sibling():
            if not frames:
                break
            cursor.goto_parent()
            i, _, _, entries, fname, slot, _ = frames.pop()
            if entries is not None:
                key = hash((types[i], tuple(entries)))
                if native:
                    sub_keys[slot] = key
                else:
                    found_keys.append(key)
                if frames:
                    outer = frames[-1][3]
                    if outer is not None:
                        outer.append((fname, key))
        else:
            continue
        break
    flat.count, flat.depth = count, depth
    if compat:
        if not frames and not found_keys and types:
            found_keys.append(hash((types[0], ())))
        flat.compat_keys = found_keys if ok_compat else None
    if native and not sub_keys and types:
        sub_keys.append(hash((types[0], ())))
        sub_types.append(types[0])
        sub_starts.append(root.start_byte)
        sub_ends.append(root.end_byte)
    return flat
