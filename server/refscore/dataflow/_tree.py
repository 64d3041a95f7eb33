"""A light, pure-Python copy of a tree-sitter tree, with the token table CodeBLEU's dataflow uses.

py-tree-sitter attribute access is the cost of dataflow extraction, and the loop rules visit a
subtree more than once; so the tree is read once, iteratively (no recursion limit), into `DNode`
objects. Tokens are numbered the way the ``codebleu`` package numbers them:

* a token is a node without children, or a ``string``/``string_literal``/``character_literal``
  node, unless its type is exactly ``comment``;
* the text of a token slices the *str* line with tree-sitter *byte* columns, and a token spanning
  lines is the concatenation of its line pieces without the newlines;
* tokens are keyed by their (start, end) points, so two tokens with the same span share the
  number and text of the last one.
"""

from __future__ import annotations

from typing import Any, Optional

STRING_TYPES = frozenset({"string_literal", "string", "character_literal"})

#: DNode.tok values.
NOT_TOKEN = 0
KEYWORD = 1      # a token whose type equals its text: no dataflow
VARIABLE = 2     # a token whose type differs from its text: a "variable" in the package's sense
UNINDEXED = -1   # a token-like node inside a string token: the package's lookup fails (KeyError)


class Abort(Exception):
    """The package would raise here; the whole extraction yields no dataflow."""


class DNode:
    """One node: type, children, token facts; the tree-sitter node is kept for field lookups."""

    __slots__ = ("type", "kids", "tok", "idx", "code", "ident", "ts", "span", "fields", "vars",
                 "names")

    def __init__(self, type_: str, ts: Any) -> None:
        self.type = type_
        self.kids: Optional[list[DNode]] = None
        self.tok = NOT_TOKEN
        self.idx = -1
        self.code = ""
        self.ident = False
        self.ts = ts
        self.span: Any = None
        self.fields: Optional[dict[str, Optional[DNode]]] = None
        self.vars: Optional[tuple[tuple[int, str], ...]] = None
        self.names: Optional[tuple[str, ...]] = None


class TokenTable:
    """The numbered tokens of one text: spans by number, and (number, text) by span."""

    __slots__ = ("spans", "by_span", "drop")

    def __init__(self, drop: frozenset[str]) -> None:
        self.spans: list[tuple[Any, Any]] = []
        self.by_span: dict[tuple[Any, Any], tuple[int, str]] = {}
        self.drop = drop


def token_text(lines: list[str], start: Any, end: Any) -> str:
    """The package's token text: str lines sliced with byte columns, newlines dropped."""
    r0, c0 = start
    r1, c1 = end
    if r0 == r1:
        return lines[r0][c0:c1]
    return lines[r0][c0:] + "".join(lines[r0 + 1:r1]) + lines[r1][:c1]


def build(root: Any, text: str, drop: frozenset[str]) -> tuple[DNode, TokenTable, int, int]:
    """Read the tree once; return the root DNode, the token table, the tree depth, the node count.

    Node types in ``drop`` (comments, in native mode) are left out with their subtrees.
    """
    table = TokenTable(drop)
    tokens: list[DNode] = []
    spans = table.spans
    top = DNode(root.type, root)
    stack: list[tuple[Any, DNode, int]] = [(root, top, 0)]
    depth = 0
    count = 0
    pop = stack.pop
    push = stack.append
    while stack:
        node, dn, d = pop()
        count += 1
        if d > depth:
            depth = d
        t = dn.type
        if (node.child_count == 0 or t in STRING_TYPES) and t != "comment":
            dn.span = (node.start_point, node.end_point)
            spans.append(dn.span)
            tokens.append(dn)
            continue
        kids: list[DNode] = []
        dn.kids = kids
        d += 1
        children = node.children
        for child in children:
            ct = child.type
            if ct in drop:
                continue
            kid = DNode(ct, child)
            kids.append(kid)
        for i in range(len(kids) - 1, -1, -1):
            push((kids[i].ts, kids[i], d))
    lines = text.split("\n")
    by_span = table.by_span
    for i, span in enumerate(spans):
        by_span[span] = (i, token_text(lines, span[0], span[1]))
    for dn in tokens:
        _set_token(dn, by_span)
    return top, table, depth, count


def _set_token(dn: DNode, by_span: dict[tuple[Any, Any], tuple[int, str]]) -> None:
    hit = by_span.get(dn.span)
    if hit is None:
        dn.tok = UNINDEXED
        return
    dn.idx, dn.code = hit
    dn.tok = KEYWORD if dn.type == dn.code else VARIABLE
    dn.ident = dn.type == "identifier"


def children(dn: DNode, table: TokenTable) -> list[DNode]:
    """The children of a node; those of a string token are read on demand (not numbered)."""
    kids = dn.kids
    if kids is None:
        kids = []
        for child in dn.ts.children:
            if child.type in table.drop:
                continue
            kids.append(_build_hidden(child, table))
        dn.kids = kids
    return kids


def _build_hidden(node: Any, table: TokenTable) -> DNode:
    """A subtree inside a token: token-like nodes resolve by span only (else UNINDEXED)."""
    dn = DNode(node.type, node)
    if (node.child_count == 0 or dn.type in STRING_TYPES) and dn.type != "comment":
        dn.span = (node.start_point, node.end_point)
        _set_token(dn, table.by_span)
    else:
        dn.kids = [_build_hidden(c, table) for c in node.children if c.type not in table.drop]
    return dn


def field(dn: Optional[DNode], name: str, table: TokenTable) -> Optional[DNode]:
    """``child_by_field_name`` mapped to our child object (cached per node)."""
    if dn is None:
        raise Abort(f"field {name!r} of a missing node")
    cache = dn.fields
    if cache is None:
        cache = dn.fields = {}
    elif name in cache:
        return cache[name]
    found = dn.ts.child_by_field_name(name)
    result = None
    if found is not None:
        target = found.id
        kids = children(dn, table)
        pos = 0
        for child in dn.ts.children:
            if child.type in table.drop:
                continue
            if child.id == target:
                result = kids[pos]
                break
            pos += 1
    cache[name] = result
    return result


def variables(dn: Optional[DNode]) -> tuple[tuple[int, str], ...]:
    """``tree_to_variable_index``: (number, text) of the tokens under dn whose type != text."""
    if dn is None:
        raise Abort("variables of a missing node")
    cached = dn.vars
    if cached is not None:
        return cached
    out: list[tuple[int, str]] = []
    stack = [dn]
    while stack:
        n = stack.pop()
        tok = n.tok
        if tok == VARIABLE:
            out.append((n.idx, n.code))
        elif tok == UNINDEXED:
            raise Abort("token inside a string token")
        elif tok == NOT_TOKEN:
            kids = n.kids
            if kids is None:
                raise Abort("unexpected unread subtree")
            stack.extend(reversed(kids))
    result = tuple(out)
    dn.vars = result
    return result


def mentioned(dn: DNode) -> tuple[str, ...]:
    """The distinct texts of the variable tokens under dn (all a walk of dn can read or write)."""
    seen: dict[str, None] = {}
    stack = [dn]
    while stack:
        n = stack.pop()
        if n.tok == VARIABLE:
            seen[n.code] = None
        elif n.kids:
            stack.extend(n.kids)
    return tuple(seen)
