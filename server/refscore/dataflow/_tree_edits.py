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
from typing import Optional

from ..parsing.flat import FlatTree
from ..parsing.flat_edits import pairs_plus, plus, splice
from ._tree import DataTree, TokenInfo, _muted_nodes, _token_texts, build, read_hidden, read_tokens

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
    if old.flat is not flat or old.by_span or old.not_values != not_values \
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
    out = _Facts(end - a)
    muted = _muted_nodes(flat, not_values, a, end) if not_values else ()
    texts = _token_texts(text, spans)
    read_tokens(out, flat, a, range(ta, ta + len(spans)), flat.tokens[ta:ta + len(spans)], texts, muted)
    by_span = {span: number for number, span in enumerate(spans, ta)}
    read_hidden(out, flat, a, flat.hidden[ha:ha + len(hidden_spans)], hidden_spans, by_span, texts, ta, muted)
    return out


def _splice(tree: DataTree, added: _Facts, a: int, b: int, dn: int, dt: int) -> None:
    """Replace ``tree``'s facts of the old nodes ``a`` to ``b`` by ``added`` and move those after
    them by ``dn`` nodes and ``dt`` token numbers."""
    splice(tree.info, added.info, a, b, (lambda tail: [
        facts if facts is None or facts[1] < 0 else (facts[0], facts[1] + dt, facts[2], facts[3])
        for facts in tail]) if dt else None)
    start, stop = bisect_left(tree.var_nodes, a), bisect_left(tree.var_nodes, b)
    splice(tree.var_nodes, added.var_nodes, start, stop, plus(dn))
    splice(tree.var_facts, added.var_facts, start, stop,
           (lambda facts: [(code, n + dt, ident) for code, n, ident in facts]) if dt else None)
    splice(tree.var_pairs, added.var_pairs, start, stop,
           (lambda pairs: [(n + dt, code) for n, code in pairs]) if dt else None)
    start, stop = bisect_left(tree.token_ranges, (a, -1)), bisect_left(tree.token_ranges, (b, -1))
    splice(tree.token_ranges, added.token_ranges, start, stop, pairs_plus(dn))
    start, stop = bisect_left(tree.hidden_vars, a), bisect_left(tree.hidden_vars, b)
    splice(tree.hidden_vars, added.hidden_vars, start, stop, plus(dn))
    tree.inside = {n for n in tree.inside if n < a} | added.inside | {n + dn for n in tree.inside if n >= b}
