"""An edited document's token table (``_tree.build``) made from its last version's, where its flat
tree was made from the last version's (``parsing.flat_edits``): the facts of the tokens before
the edit stay, those of the parts made afresh are read, and those after it are moved by the nodes
and tokens the edit added. The last version's table is taken and changed in place, as its flat
tree was. A 20,000-line file's table took a third of a one-character edit's data flow; the result
is ``build``'s, every field (``tests/analysis/test_flat_parts.py``).

Tokens are numbered by position here, as ``build`` numbers them when no two tokens share a span;
a table whose tokens were numbered by span, a part whose tokens or string parts have empty spans,
or another set of keyword-only node types is built afresh.
"""

from __future__ import annotations

import logging
from bisect import bisect_left
from typing import Any, Optional

from ..parsing.flat import FlatTree
from ._tree import _KEYWORD_INFO, KEYWORD, UNINDEXED, VARIABLE, DataTree, TokenInfo, _token_texts, build

log = logging.getLogger(__name__)

#: How many tables were changed from the last version's (kept for the tests: the path must be taken).
changed = [0]


def token_table(flat: FlatTree, text: str, not_values: frozenset[str] = frozenset()) -> DataTree:
    """``build(flat, text, not_values)``, changed from the last version's table where ``flat`` was
    changed from the last version's tree; an assembled tree's table is kept on its layout for the
    next version."""
    if flat.layout is None:
        return build(flat, text, not_values)
    tree = None
    try:
        tree = derived_tree(flat, text, not_values)
    except Exception:  # noqa: BLE001 - never a wrong table: made afresh instead
        log.exception("the token table could not be changed from the last version's")
    flat.layout.tree = tree = tree or build(flat, text, not_values)
    return tree


def derived_tree(flat: FlatTree, text: str, not_values: frozenset[str]) -> DataTree | None:
    """The token table of ``flat`` changed from its last version's, or None (``build`` makes it)."""
    layout = flat.layout
    if layout is None or layout.edit is None or layout.previous is None:
        return None
    old: DataTree = layout.previous
    layout.previous = None  # taken: its lists become this version's
    if old.flat is not flat or getattr(old, "by_span", True) or old.not_values != not_values \
            or (not_values and flat.types[0] in not_values):
        return None
    (a, ta, ha, _), (b, tb, hb, _), (dn, dt, dh, _) = layout.edit
    end, token_end, hidden_end = b + dn, tb + dt, hb + dh  # the parts made afresh, in this version
    spans = flat.token_spans[ta:token_end]
    hidden_spans = flat.hidden_spans[ha:hidden_end]
    if any(stop <= start for start, stop in spans) or any(stop <= start for start, stop in hidden_spans) \
            or len(set(spans)) < len(spans):
        return None  # a span two tokens could share: numbered by span (``build``)
    added = _facts(flat, text, not_values, a, end, ta, spans, ha, hidden_spans)
    _splice(old, added, a, b, dn, dt)
    changed[0] += 1
    return old


class _Facts:
    """The token facts of the nodes made afresh, as ``DataTree`` holds them."""

    __slots__ = ("info", "var_nodes", "var_facts", "var_pairs", "token_ranges", "inside", "hidden_vars")

    def __init__(self, size: int) -> None:
        self.info: list[Optional[TokenInfo]] = [None] * size
        self.var_nodes: list[int] = []
        self.var_facts: list[tuple[str, int, bool]] = []
        self.var_pairs: list[tuple[int, str]] = []
        self.token_ranges: list[tuple[int, int]] = []
        self.inside: set[int] = set()
        self.hidden_vars: list[int] = []


def _facts(flat: FlatTree, text: str, not_values: frozenset[str], a: int, end: int, ta: int,
           spans: list[tuple[int, int]], ha: int, hidden_spans: list[tuple[int, int]]) -> _Facts:
    """``build``'s reading of the nodes ``a`` to ``end`` (their tokens from number ``ta``, their
    hidden ones from ``ha``), info indexed from ``a``."""
    types, kids, last = flat.types, flat.kids, flat.last
    out = _Facts(end - a)
    info = out.info
    muted = _muted(flat, not_values, a, end) if not_values else ()
    texts = _token_texts(text, spans)
    for number, i, code in zip(range(ta, ta + len(spans)), flat.tokens[ta:ta + len(spans)], texts):
        if types[i] == code or i in muted:
            info[i - a] = _KEYWORD_INFO
        else:
            ident = types[i] == "identifier"
            info[i - a] = (VARIABLE, number, code, ident)
            out.var_nodes.append(i)
            out.var_facts.append((code, number, ident))
            out.var_pairs.append((number, code))
        if kids[i]:
            out.token_ranges.append((i, last[i]))
            out.inside.update(range(i + 1, last[i] + 1))
    by_span = {span: number for number, span in enumerate(spans, ta)}
    for i, span in zip(flat.hidden[ha:ha + len(hidden_spans)], hidden_spans):
        number = by_span.get(span)
        if number is None:
            info[i - a] = (UNINDEXED, -1, "", False)
            continue
        code = texts[number - ta]
        keyword = types[i] == code or i in muted
        info[i - a] = (KEYWORD if keyword else VARIABLE, number, code, types[i] == "identifier")
        if not keyword:
            out.hidden_vars.append(i)
    out.hidden_vars.sort()
    return out


def _muted(flat: FlatTree, not_values: frozenset[str], a: int, end: int) -> set[int]:
    """``_tree._muted_nodes`` of the nodes ``a`` to ``end`` (a part's subtrees end inside it)."""
    muted: set[int] = set()
    types, last = flat.types, flat.last
    for i in range(a, end):
        if types[i] in not_values and i not in muted:
            muted.update(range(i, last[i] + 1))
    return muted


def _splice(tree: DataTree, added: _Facts, a: int, b: int, dn: int, dt: int) -> None:
    """Replace ``tree``'s facts of the old nodes ``a`` to ``b`` by ``added`` and move those after
    them by ``dn`` nodes and ``dt`` token numbers."""
    tail = tree.info[b:]
    if dt:
        tail = [facts if facts is None or facts[1] < 0 else (facts[0], facts[1] + dt, facts[2], facts[3])
                for facts in tail]
    tree.info[a:] = added.info + tail
    start, stop = bisect_left(tree.var_nodes, a), bisect_left(tree.var_nodes, b)
    _put(tree.var_nodes, added.var_nodes, start, stop, (lambda n: n + dn) if dn else None)
    _put(tree.var_facts, added.var_facts, start, stop, (lambda f: (f[0], f[1] + dt, f[2])) if dt else None)
    _put(tree.var_pairs, added.var_pairs, start, stop, (lambda p: (p[0] + dt, p[1])) if dt else None)
    start, stop = bisect_left(tree.token_ranges, (a, -1)), bisect_left(tree.token_ranges, (b, -1))
    _put(tree.token_ranges, added.token_ranges, start, stop, (lambda r: (r[0] + dn, r[1] + dn)) if dn else None)
    start, stop = bisect_left(tree.hidden_vars, a), bisect_left(tree.hidden_vars, b)
    _put(tree.hidden_vars, added.hidden_vars, start, stop, (lambda n: n + dn) if dn else None)
    tree.inside = {n for n in tree.inside if n < a} | added.inside | {n + dn for n in tree.inside if n >= b}


def _put(items: list, added: list, start: int, stop: int, move: Any) -> None:
    """``items[start:stop] = added``, each item after ``stop`` changed by ``move`` (None: as it is)."""
    if move is None:
        items[start:stop] = added
    else:
        items[start:] = added + [move(item) for item in items[stop:]]
