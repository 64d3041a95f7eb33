"""The token table CodeBLEU's dataflow uses, over a flat tree read by ``refscore.analysis.flat``.

The tree is read once (``flatten``: preorder node numbers, types, children, token spans); here
its tokens are numbered the way the ``codebleu`` package numbers them:

* a token is a node without children, or a ``string``/``string_literal``/``character_literal``
  node, unless its type is exactly ``comment``;
* the text of a token slices the *str* line with tree-sitter *byte* columns, and a token spanning
  lines is the concatenation of its line pieces without the newlines;
* tokens are keyed by their (start, end) points, so two tokens with the same span share the
  number and text of the last one;
* a token-like node inside a token (a string's parts) is only found by its span: when no token
  has that span, the package's lookup fails (``UNINDEXED``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, Optional

from ..analysis.flat import FlatTree

#: Token kinds (first item of a node's token info).
KEYWORD = 1      # a token whose type equals its text: no dataflow
VARIABLE = 2     # a token whose type differs from its text: a "variable" in the package's sense
UNINDEXED = -1   # a token-like node inside a string token: the package's lookup fails (KeyError)

#: Token info of a node: (kind, token number, text, is an identifier); None for other nodes.
TokenInfo = tuple[int, int, str, bool]


class Abort(Exception):
    """The package would raise here; the whole extraction yields no dataflow."""


class DataTree:
    """A flat tree with token facts: what the walker reads (nodes are ints, the root is 0)."""

    __slots__ = ("flat", "types", "kids", "info", "spans", "var_texts", "hidden_vars")

    def __init__(self, flat: FlatTree, info: list[Optional[TokenInfo]],
                 spans: list[tuple[Any, Any]]) -> None:
        self.flat = flat
        self.types = flat.types
        self.kids = flat.kids
        self.info = info
        self.spans = spans
        #: per token (by position in ``flat.tokens``): its text if it is a variable, else None
        self.var_texts: list[Optional[str]] = [None] * len(flat.tokens)
        #: hidden token-like nodes (inside a token) whose info says variable, ascending
        self.hidden_vars: list[int] = []


def token_text(lines: list[str], start: Any, end: Any) -> str:
    """The package's token text: str lines sliced with byte columns, newlines dropped."""
    r0, c0 = start
    r1, c1 = end
    if r0 == r1:
        return lines[r0][c0:c1]
    return lines[r0][c0:] + "".join(lines[r0 + 1:r1]) + lines[r1][:c1]


def build(flat: FlatTree, text: str) -> DataTree:
    """Number the tokens of ``flat`` (the tree of ``text``) and attach each token's facts."""
    node_spans = flat.spans
    types = flat.types
    spans = [node_spans[i] for i in flat.tokens]
    lines = text.split("\n")
    by_span: dict[tuple[Any, Any], tuple[int, str]] = {}
    for number, span in enumerate(spans):
        start, end = span
        if start[0] == end[0]:
            by_span[span] = (number, lines[start[0]][start[1]:end[1]])
        else:
            by_span[span] = (number, token_text(lines, start, end))
    info: list[Optional[TokenInfo]] = [None] * len(types)
    get = by_span.get
    tree = DataTree(flat, info, spans)
    var_texts = tree.var_texts
    for position, i in enumerate(flat.tokens):
        number, code = get(node_spans[i])  # every token has its own span in by_span
        t = types[i]
        if t == code:
            info[i] = (KEYWORD, number, code, t == "identifier")
        else:
            info[i] = (VARIABLE, number, code, t == "identifier")
            var_texts[position] = code
    hidden_vars = tree.hidden_vars
    for i in flat.hidden:
        hit = get(node_spans[i])
        if hit is None:
            info[i] = (UNINDEXED, -1, "", False)
            continue
        number, code = hit
        t = types[i]
        info[i] = (KEYWORD if t == code else VARIABLE, number, code, t == "identifier")
        if t != code:
            hidden_vars.append(i)
    hidden_vars.sort()
    return tree


def variables(tree: DataTree, n: Optional[int]) -> tuple[tuple[int, str], ...]:
    """``tree_to_variable_index``: (number, text) of the tokens under n whose type != text."""
    if n is None:
        raise Abort("variables of a missing node")
    out: list[tuple[int, str]] = []
    info, kids = tree.info, tree.kids
    stack = [n]
    pop, extend = stack.pop, stack.extend
    while stack:
        m = pop()
        facts = info[m]
        if facts is None:
            extend(reversed(kids[m]))
        elif facts[0] == VARIABLE:
            out.append((facts[1], facts[2]))
        elif facts[0] == UNINDEXED:
            raise Abort("token inside a string token")
    return tuple(out)


def mentioned(tree: DataTree, n: int) -> tuple[str, ...]:
    """The distinct texts of the variable tokens under n (all a walk of n can read or write).

    Children of tokens are searched too (a rule may walk a string's parts): a superset is safe.
    Nodes are numbered in preorder, so the subtree of n is the node range [n, last] (last: its
    last descendant) and its tokens a contiguous run of ``flat.tokens``: found by bisection.
    """
    kids = tree.kids
    last = n
    while kids[last]:
        last = kids[last][-1]
    flat = tree.flat
    toks = flat.tokens
    lo = bisect_left(toks, n)
    hi = bisect_right(toks, last, lo)
    seen = dict.fromkeys(tree.var_texts[lo:hi])
    seen.pop(None, None)
    hidden = tree.hidden_vars
    if hidden:
        info = tree.info
        for i in hidden[bisect_left(hidden, n):bisect_right(hidden, last)]:
            seen[info[i][2]] = None  # type: ignore[index]
    return tuple(seen)


def mentioned_by_walk(tree: DataTree, n: int) -> tuple[str, ...]:
    """``mentioned`` by a full walk of the subtree (the definition; kept for tests)."""
    seen: dict[str, None] = {}
    info, kids = tree.info, tree.kids
    stack = [n]
    while stack:
        m = stack.pop()
        facts = info[m]
        if facts is not None and facts[0] == VARIABLE:
            seen[facts[2]] = None
        else:
            stack.extend(kids[m])
    return tuple(seen)
