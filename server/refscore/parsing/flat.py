"""A parsed tree read once into flat lists, shared by the subtree keys and the data-flow walker.

py-tree-sitter attribute access is what analysis time is spent on, so each node is touched once,
in one ``TreeCursor`` walk. Nodes are numbered in preorder; per node we keep the type, the field
name under its parent, the children's numbers, the last node of its subtree and, for token-like
nodes, the (start, end) byte offsets.
The same walk builds the subtree keys (see ``refscore.parsing.trees`` for what they mean):

* ``"compat"``: the S-expression-equivalent shape hashes of ``trees._shape_keys`` (None where
  those cannot tell, e.g. an anonymous node with named children; the caller then falls back to
  S-expressions);
* ``"native"``: the subtrees of ``trees.native_subtrees`` (comment nodes are left out of the whole
  flat tree, docstrings only out of the keys), kept as parallel lists in preorder
  (``subtree_keys``, ``subtree_types``, ``subtree_starts``, ``subtree_ends``); ``subtrees`` makes
  ``Subtree`` tuples of them on demand (a candidate only needs the keys).

Field lookups (``FlatTree.field``) read the field names the cursor reported: the first child
under that field is what ``child_by_field_name`` returns, except under an ERROR node, where
tree-sitter has no field map and returns nothing (tests/analysis/test_flat_tree.py checks this against
tree-sitter). ``assemble`` makes the native flat tree from per-part flat trees kept by their bytes.
Only ``analysis`` touches tree-sitter objects.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

import tree_sitter

from .. import languages
from . import flat_edits
from .memo import TextMemo
from .trees import Subtree, anonymous_key, hides_missing, is_docstring, missing_key

KeyMode = Literal["compat", "native"]

#: Token-like node types besides leaves (the ``codebleu`` package's rule), ``comment`` excluded.
STRING_TYPES = frozenset({"string_literal", "string", "character_literal"})
_BODIES = frozenset({"module", "block"})
_NO_KIDS: tuple[int, ...] = ()

# per (language, dropped types): kind_id -> ``_kind_facts`` (filled on first sight); per language:
# field_id -> field name (every field of the grammar, filled once)
_KINDS: dict[tuple[str, frozenset[str]], dict[int, tuple[str, bool, int, bool, bool, bool]]] = {}
_FIELDS: dict[str, dict[Optional[int], Optional[str]]] = {}


class FlatTree:
    """One parsed text as flat, preorder-numbered lists (node 0 is the root)."""

    __slots__ = ("types", "fields", "kids", "last", "tokens", "token_spans", "hidden", "hidden_spans", "depth",
                 "count", "has_error", "compat_keys", "subtree_keys", "subtree_types", "subtree_starts",
                 "subtree_ends", "layout")

    def __init__(self) -> None:
        self.types: list[str] = []
        self.fields: list[Optional[str]] = []
        self.kids: list[Any] = []           # list[int] per inner node, () for leaves
        self.last: list[int] = []           # per node, the last node of its subtree (itself for a leaf)
        self.tokens: list[int] = []         # token-like nodes not inside a token, in preorder
        self.token_spans: list[tuple[int, int]] = []  # their (start, end) bytes
        self.hidden: list[int] = []         # token-like nodes inside a token
        self.hidden_spans: list[tuple[int, int]] = []  # their (start, end) bytes
        self.depth = 0                      # max depth of nodes not inside a token
        self.count = 0                      # number of nodes not inside a token
        self.has_error = False
        self.compat_keys: Optional[list[int]] = None
        self.subtree_keys: list[int] = []   # native: per subtree, in preorder
        self.subtree_types: list[str] = []
        self.subtree_starts: list[int] = []
        self.subtree_ends: list[int] = []
        #: an assembled tree: where its parts lie (``flat_edits.keep`` it once the tree is read)
        self.layout: Optional[flat_edits.Layout] = None

    def __len__(self) -> int:
        return len(self.types)

    @property
    def spans(self) -> dict[int, tuple[int, int]]:
        """Token-like node -> its (start, end) bytes."""
        return dict(zip(self.tokens + self.hidden, self.token_spans + self.hidden_spans))

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


def _kind_facts(t: str, named: bool, drop: frozenset[str]) -> tuple[str, bool, int, bool, bool, bool]:
    """What the walk needs to know of a node kind: type, named, its key as a leaf, kept (not in
    ``drop``), token-like whatever its children (a string type), token-like when childless."""
    return (t, named, hash((t, ())), t not in drop, t in STRING_TYPES and t != "comment", t != "comment")


def _field_table(language: tree_sitter.Language) -> dict[Optional[int], Optional[str]]:
    """Field id -> field name, every field of the language (None and 0: no field)."""
    table: dict[Optional[int], Optional[str]] = {None: None, 0: None}
    table.update((i, language.field_name_for_id(i)) for i in range(1, language.field_count + 1))
    return table


def flatten(root: tree_sitter.Node, language: str, drop: frozenset[str] = frozenset(),
            keys: Optional[KeyMode] = None) -> FlatTree:
    """Read ``root`` in one cursor walk; node types in ``drop`` are left out with their subtrees.

    ``keys`` also builds the compat shape keys (only for an error-free tree) or native subtrees.
    """
    flat = FlatTree()
    flat.has_error = has_error = root.has_error
    kinds = _KINDS.setdefault((language, drop), {})
    field_names = _FIELDS.get(language)
    if field_names is None:
        field_names = _FIELDS[language] = _field_table(languages.get(language).ts_language)
    types, fields, kids_of, last_nodes = flat.types, flat.fields, flat.kids, flat.last
    tokens, token_spans, hidden, hidden_spans = flat.tokens, flat.token_spans, flat.hidden, flat.hidden_spans
    compat = keys == "compat"
    errors = compat and has_error  # MISSING and ERROR leaves print in S-expressions: see below
    missing = 0
    native = keys == "native"
    keying = compat or native
    docstrings = native and languages.get(language).docstrings
    found_keys: list[int] = []
    sub_keys, sub_types = flat.subtree_keys, flat.subtree_types
    sub_starts, sub_ends = flat.subtree_starts, flat.subtree_ends
    # The open inner node whose children are being read is held in locals (p_*); the ones around
    # it wait on ``stack``. p_inside: inside a token; p_depth: its children's depth; p_entries:
    # its children's (field, key) entries, None if it is not keyed; p_slot: its native subtree
    # slot; p_seen: a first statement was seen in it (Python docstrings).
    # The root's "parent" is a scratch list for its number and (when keying) its entry; p_seen
    # is set so that the root is never taken for a docstring.
    stack: list[tuple] = []
    p_kids: Any = []
    p_number = p_slot = -1
    p_inside = False
    p_depth = 0
    p_entries: Optional[list] = [] if keying else None
    p_field: Optional[str] = None
    p_seen = True
    cursor = root.walk()
    count = depth = 0
    number = -1
    ok_compat = compat
    anonymous: dict[int, tree_sitter.Node] = {}  # open anonymous nodes with children (compat)
    while True:
        node = cursor.node
        kid_id = node.kind_id
        try:
            kind = kinds[kid_id]
        except KeyError:
            kind = kinds[kid_id] = _kind_facts(node.type, node.is_named, drop)
        t, named, leaf_key, kept, string_token, leaf_token = kind
        if kept:
            number += 1
            types.append(t)
            last_nodes.append(number)
            fname = field_names[cursor.field_id]
            fields.append(fname)
            p_kids.append(number)
            if not p_inside:
                count += 1
                if p_depth > depth:
                    depth = p_depth
            cc = cursor.goto_first_child()  # has children: the cursor is now on the first
            token_like = string_token or (leaf_token and not cc)
            if token_like:
                if p_inside:
                    hidden.append(number)
                    hidden_spans.append(node.byte_range)
                else:
                    tokens.append(number)
                    token_spans.append(node.byte_range)
            keyed = p_entries is not None
            if docstrings and keyed and named and not p_seen \
                    and types[p_number] in _BODIES:
                p_seen = True
                keyed = not is_docstring(node)
            if cc:
                kids: list[int] = []
                kids_of.append(kids)
                slot = -1
                if native and keyed:
                    slot = len(sub_keys)
                    sub_keys.append(0)  # the key is known when the node closes
                    sub_types.append(t)
                    sub_starts.append(node.start_byte)
                    sub_ends.append(node.end_byte)
                if compat and not named and number:
                    anonymous[number] = node  # Python's "not in": see ``trees.anonymous_key``
                stack.append((p_kids, p_number, p_inside, p_depth, p_entries, p_field, p_slot, p_seen))
                p_kids, p_number, p_inside, p_depth = kids, number, p_inside or token_like, p_depth + 1
                p_entries = [] if keyed and keying else None
                p_field, p_slot, p_seen = fname, slot, False
                continue
            else:
                kids_of.append(_NO_KIDS)
                if keyed:  # (p_entries is set)
                    if errors and node.is_missing:  # "(MISSING name)" or '(MISSING "token")'
                        p_entries.append((fname, missing_key(t, named)))
                        missing += 1
                    elif errors and t == "ERROR" and node.end_byte > node.start_byte:
                        ok_compat = False  # "(UNEXPECTED 'c')": the character is not ours to read
                    elif named:
                        p_entries.append((fname, leaf_key))
        while not cursor.goto_next_sibling():
            if not stack:
                break
            cursor.goto_parent()
            entries, closed, field_name, slot = p_entries, p_number, p_field, p_slot
            last_nodes[closed] = number  # nodes are numbered in preorder: the subtree ends here
            p_kids, p_number, p_inside, p_depth, p_entries, p_field, p_slot, p_seen = stack.pop()
            if entries is not None:
                if anonymous and closed in anonymous:
                    key = anonymous_key(anonymous.pop(closed), entries)
                    if key is None:
                        ok_compat = False
                    else:
                        found_keys.append(key)  # and nothing in the parent's S-expression
                    continue
                key = hash((types[closed], tuple(entries)))
                if native:
                    sub_keys[slot] = key
                else:
                    found_keys.append(key)
                if p_entries is not None:
                    p_entries.append((field_name, key))
        else:
            continue
        break
    flat.count, flat.depth = count, depth
    if compat:
        if not found_keys and types:
            found_keys.append(hash((types[0], ())))
        if errors and ok_compat and hides_missing(root, missing):
            ok_compat = False
        flat.compat_keys = found_keys if ok_compat else None
    if native and not sub_keys and types:
        sub_keys.append(hash((types[0], ())))
        sub_types.append(types[0])
        sub_starts.append(root.start_byte)
        sub_ends.append(root.end_byte)
    return flat


# The native flat tree of a document assembled from its top-level parts, each part's kept by its
# bytes: an edit flattens again only the parts it changed (``flatten`` walks every node through
# py-tree-sitter, most of a structure analysis's time besides the data flow).
#
# A part is a kept child of the root; its flat tree is made by ``flatten`` on the child (node 0)
# with byte offsets from the part's start, then numbered after the nodes before it. What the root
# adds is made here as ``flatten`` makes it: node 0, its children (the parts' first nodes), its
# subtree slot and key (from the parts' keys, in order), the count and depth. Only an error-free
# root all of whose kept children have children of their own is assembled (``assemble`` gives None
# otherwise: the caller flattens the whole tree); ``tests/analysis/test_flat_parts.py`` checks every
# field against ``flatten`` of the whole tree on edited documents in several languages. A long
# document's runs of parts the edit left are copied from its last version's lists (``flat_edits``).

_BODIES = frozenset({"module", "block"})

#: A part's flat tree (offsets from its start), by its bytes, language, dropped types and whether
#: it is keyed (a module docstring is not).
_PARTS: TextMemo[FlatTree] = TextMemo(entries=8192, chars=8_000_000)
#: Whether ``assemble`` runs at all: on in an editing session (``keep_parts``: each new version of
#: a file repeats most of its parts), off in batch scoring, where no part ever repeats and keeping
#: them only costs (15 to 21% of native CodeBLEU's CPU time when grading, docs/benchmarks.md).
_ASSEMBLE: list[bool] = [False]


def keep_parts(on: bool = True) -> None:
    """Make the native flat tree from kept top-level parts in this process (the language server
    and its large lane's worker call it); the result is the same either way."""
    _ASSEMBLE[0] = on
    if not on:
        flat_edits.forget()


def assemble(root: tree_sitter.Node, source: bytes, language: str, drop: frozenset[str],
             docstrings: bool) -> Optional[FlatTree]:
    """``flatten(root, language, drop, "native")`` from per-part flat trees, or None when the
    tree is not one this assembles (errors, a part without children) or parts are not kept here
    (``keep_parts``). A long source's tree is its last version's changed where the edit changed
    parts (``flat_edits``): the caller keeps its ``layout`` once it is done with the tree."""
    if not _ASSEMBLE[0] or root.has_error or root.type in drop:
        return None
    children = [c for c in root.children if c.type not in drop]
    if not children or any(c.child_count == 0 for c in children):
        return None
    keyed = [True] * len(children)
    if docstrings and root.type in _BODIES:  # the first named child may be a docstring
        first = next((k for k, c in enumerate(children) if c.is_named), None)
        if first is not None:
            keyed[first] = not is_docstring(children[first])
    tag = f"{language}|{','.join(sorted(drop))}"

    def middle(flat: FlatTree, layout: flat_edits.Layout, index: int, base: int = 0) -> None:
        child = children[index]
        start = child.start_byte
        part = _PARTS(source[start:child.end_byte], f"{tag}|{keyed[index]}",
                      lambda: _relative(child, language, drop, keyed[index]))
        _append(flat, part, base + len(flat.types), start)
        layout.counts.append(part.count)
        layout.depths.append(part.depth)

    spans = [(c.start_byte, c.end_byte) for c in children]
    layout = flat_edits.derive(source, tag, root.type, spans, keyed, middle)
    if layout is None:
        layout = flat_edits.Layout(source, tag, root.type, _rooted(root), spans, keyed)
        for index in range(len(children)):
            layout.mark(layout.flat)
            middle(layout.flat, layout, index)
        layout.mark(layout.flat)
    flat = layout.flat
    flat.layout = layout
    flat.kids[0] = layout.nodes[:-1]
    flat.subtree_starts[0], flat.subtree_ends[0] = root.start_byte, root.end_byte
    flat.last[0] = len(flat.types) - 1
    keys = flat.subtree_keys
    flat.subtree_keys[0] = hash((root.type, tuple([(None, keys[at]) for at, kept in
                                                   zip(layout.subtrees, keyed) if kept])))
    flat.count = 1 + sum(layout.counts)
    flat.depth = max(layout.depths) + 1
    flat.has_error = False
    return flat


def _rooted(root: tree_sitter.Node) -> FlatTree:
    """A flat tree holding only ``root`` (node 0, its subtree slot), its parts to follow."""
    flat = FlatTree()
    flat.types.append(root.type)
    flat.fields.append(None)
    flat.kids.append([])
    flat.last.append(0)
    flat.subtree_keys.append(0)
    flat.subtree_types.append(root.type)
    flat.subtree_starts.append(root.start_byte)
    flat.subtree_ends.append(root.end_byte)
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
