"""The token table CodeBLEU's dataflow uses, over a flat tree read by ``refscore.parsing.flat``.

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
from typing import Any, Container, Iterable, Mapping, Optional, Sequence

from ..parsing.flat import FlatTree

#: Token kinds (first item of a node's token info).
KEYWORD = 1      # a token whose type equals its text: no dataflow
VARIABLE = 2     # a token whose type differs from its text: a "variable" in the package's sense
UNINDEXED = -1   # a token-like node inside a string token: the package's lookup fails (KeyError)

#: Token info of a node: (kind, token number, text, is an identifier); None for other nodes.
TokenInfo = tuple[int, int, str, bool]
_KEYWORD_INFO: TokenInfo = (KEYWORD, -1, "", False)


class Abort(Exception):
    """The package would raise here; the whole extraction yields no dataflow."""


class DataTree:
    """A flat tree with token facts: what the walker reads (nodes are ints, the root is 0)."""

    __slots__ = ("flat", "types", "kids", "last", "info", "spans", "hidden_vars", "var_nodes", "var_facts",
                 "var_pairs", "token_ranges", "inside", "not_values", "by_span")

    def __init__(self, flat: FlatTree, info: list[Optional[TokenInfo]],
                 spans: list[tuple[Any, Any]]) -> None:
        self.flat = flat
        self.types = flat.types
        self.kids = flat.kids
        self.last = flat.last  # per node, the last node of its subtree
        self.info = info
        self.spans = spans
        #: hidden token-like nodes (inside a token) whose info says variable, ascending
        self.hidden_vars: list[int] = []
        #: the variable tokens (not inside a token) in preorder, and their (text, number, is an
        #: identifier): what a walk of a rule-free subtree reads, found by bisection
        self.var_nodes: list[int] = []
        self.var_facts: list[tuple[str, int, bool]] = []
        self.var_pairs: list[tuple[int, str]] = []  # (number, text) of each, ready for ``variables``
        #: (first, last) node numbers of each token with children (a string and its parts)
        self.token_ranges: list[tuple[int, int]] = []
        #: the nodes strictly inside those tokens (the parts; few)
        self.inside: set[int] = set()
        #: the keyword-only node types it was built with; whether tokens were numbered by span
        self.not_values: frozenset[str] = frozenset()
        self.by_span = False


def token_text(lines: list[str], start: Any, end: Any) -> str:
    """The package's token text: str lines sliced with byte columns, newlines dropped."""
    r0, c0 = start
    r1, c1 = end
    if r0 == r1:
        return lines[r0][c0:c1]
    return lines[r0][c0:] + "".join(lines[r0 + 1:r1]) + lines[r1][:c1]


class Points:
    """Byte offset -> (row, byte column) point of one text."""

    __slots__ = ("starts",)

    def __init__(self, text: str) -> None:
        lengths = [len(line) for line in text.split("\n")] if text.isascii() else \
            [len(line) for line in text.encode("utf-8").split(b"\n")]
        starts, offset = [], 0
        for length in lengths:
            starts.append(offset)
            offset += length + 1
        self.starts = starts

    def __call__(self, offset: int) -> tuple[int, int]:
        row = bisect_right(self.starts, offset) - 1
        return (row, offset - self.starts[row])


def _token_texts(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """The package's text of each token (byte ranges of ``text``'s UTF-8 encoding)."""
    if text.isascii():  # byte offsets are string offsets; a token's newlines are dropped
        texts = [text[start:end] for start, end in spans]
        if "\n" in "".join(texts):  # rare: a token spans lines
            texts = [code.replace("\n", "") for code in texts]
        return texts
    lines = text.split("\n")
    point = Points(text)
    return [token_text(lines, point(start), point(end)) for start, end in spans]


def build(flat: FlatTree, text: str, not_values: frozenset[str] = frozenset()) -> DataTree:
    """Number the tokens of ``flat`` (the tree of ``text``) and attach each token's facts; the
    tokens under a node whose type is in ``not_values`` are read as keywords (never variables)."""
    types = flat.types
    tokens = flat.tokens
    spans = flat.token_spans
    texts = _token_texts(text, spans)
    numbers: Any = range(len(spans))
    by_span: dict[tuple[int, int], int] = {}
    if flat.hidden or len(set(spans)) < len(spans):
        # tokens are keyed by span: tokens with one span share the number and text of the last
        by_span = {span: number for number, span in enumerate(spans)}
        if len(by_span) < len(spans):  # else every token is its own span's last
            numbers = [by_span[span] for span in spans]
    info: list[Optional[TokenInfo]] = [None] * len(types)
    tree = DataTree(flat, info, spans)
    tree.not_values, tree.by_span = not_values, numbers.__class__ is not range
    codes = texts if numbers.__class__ is range else [texts[number] for number in numbers]
    muted = _muted_nodes(flat, not_values) if not_values else ()
    read_tokens(tree, flat, 0, numbers, tokens, codes, muted)
    read_hidden(tree, flat, 0, flat.hidden, flat.hidden_spans, by_span, texts, 0, muted)
    return tree


def read_tokens(into: Any, flat: FlatTree, first_node: int, numbers: Iterable[int], tokens: Iterable[int],
                codes: Iterable[str], muted: Container[int]) -> None:
    """The facts of ``tokens`` (numbered ``numbers``, their texts ``codes``) into ``into``: a
    ``DataTree``, or the facts of a run of its nodes (``_tree_edits``), whose ``info`` starts at
    node ``first_node``."""
    types, kids, last = flat.types, flat.kids, flat.last
    info, var_nodes, var_facts, var_pairs = into.info, into.var_nodes, into.var_facts, into.var_pairs
    for number, i, code in zip(numbers, tokens, codes):
        t = types[i]
        if t == code or i in muted:
            info[i - first_node] = _KEYWORD_INFO  # a keyword's number and text are never read
        else:
            ident = t == "identifier"
            info[i - first_node] = (VARIABLE, number, code, ident)
            var_nodes.append(i)
            var_facts.append((code, number, ident))
            var_pairs.append((number, code))
        if kids[i]:
            end = last[i]
            into.token_ranges.append((i, end))
            into.inside.update(range(i + 1, end + 1))


def read_hidden(into: Any, flat: FlatTree, first_node: int, hidden: Iterable[int],
                hidden_spans: Iterable[tuple[int, int]], by_span: Mapping[tuple[int, int], int],
                texts: Sequence[str], first_token: int, muted: Container[int]) -> None:
    """The facts of the token-like nodes ``hidden`` inside tokens, found by their spans among the
    tokens' (``by_span``; ``texts`` starts at token ``first_token``), into ``into`` as ``read_tokens``."""
    types, info, hidden_vars = flat.types, into.info, into.hidden_vars
    for i, span in zip(hidden, hidden_spans):
        number = by_span.get(span)
        if number is None:
            info[i - first_node] = (UNINDEXED, -1, "", False)
            continue
        code = texts[number - first_token]
        t = types[i]
        keyword = t == code or i in muted
        info[i - first_node] = (KEYWORD if keyword else VARIABLE, number, code, t == "identifier")
        if not keyword:
            hidden_vars.append(i)
    hidden_vars.sort()


def _muted_nodes(flat: FlatTree, not_values: frozenset[str], start: int = 0, stop: Optional[int] = None) -> set[int]:
    """The nodes at or under a node whose type is in ``not_values``, of the nodes ``start`` to
    ``stop`` (whole subtrees: the tree's, or a run of its top-level parts)."""
    muted: set[int] = set()
    last = flat.last
    types = flat.types if start == 0 and stop is None else flat.types[start:stop]
    for i, t in enumerate(types, start):
        if t in not_values and i not in muted:
            muted.update(range(i, last[i] + 1))
    return muted


def variables(tree: DataTree, n: Optional[int]) -> tuple[tuple[int, str], ...]:
    """``tree_to_variable_index``: (number, text) of the tokens under n whose type != text.

    Outside tokens these are the variable tokens in n's node range, found by bisection; inside a
    token (a string's parts) the subtree is walked.
    """
    if n is None:
        raise Abort("variables of a missing node")
    if n not in tree.inside:
        var_nodes = tree.var_nodes
        lo = bisect_left(var_nodes, n)
        return tuple(tree.var_pairs[lo:bisect_right(var_nodes, tree.last[n], lo)])
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
    last descendant) and its variable tokens a contiguous run of ``var_nodes``: found by bisection.
    """
    last = tree.last[n]
    var_nodes = tree.var_nodes
    lo = bisect_left(var_nodes, n)
    seen = dict.fromkeys([facts[0] for facts in tree.var_facts[lo:bisect_right(var_nodes, last, lo)]])
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
