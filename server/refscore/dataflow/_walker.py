"""The generic, table-driven dataflow walker (the rule kinds tables are made of: ``_kinds``).

A walk threads a *state* (variable text -> sorted tuple of the token numbers of its reaching
definitions) through the tree and appends edges ``(name, token, relation, parent_names,
parent_tokens)`` to one list, in the order the package generates them. The package sorts by token
at every node; all its sorts are stable and by the same key, so one stable sort at the end gives
the same order.

A step budget (``Walker.steps``, counted per loop walked) bounds pathological inputs: they give
no dataflow, like an input the package fails on.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field as dc_field
from functools import cached_property
from typing import Callable, Mapping, Optional

from ._tree import UNINDEXED, VARIABLE, Abort, DataTree, mentioned, variables

State = dict[str, tuple[int, ...]]
Edge = tuple[str, int, str, tuple[str, ...], tuple[int, ...]]
Node = int
Handler = Callable[["Walker", Node, State], State]
Getter = Callable[["Walker", Node], Optional[Node]]
PassFn = Callable[["Walker", Node, State, int], State]

COMES = "comesFrom"
COMPUTED = "computedFrom"


@dataclass(frozen=True)
class Rules:
    """One language's dataflow rules: node type -> handler, and types walked first.

    ``not_values`` are node types whose tokens never name a variable (TypeScript's types, a JSX
    closing tag): the tokens under them are read like keywords.
    """

    handlers: Mapping[str, Handler]
    do_first: frozenset[str] = dc_field(default_factory=frozenset)
    not_values: frozenset[str] = dc_field(default_factory=frozenset)

    @cached_property
    def handled_types(self) -> frozenset[str]:
        """The node types a rule handles (where a plain preorder walk must stop)."""
        return frozenset(self.handlers) | self.do_first


def stop_nodes(tree: DataTree, rules: Rules) -> tuple[list[int], set[int]]:
    """The nodes a plain walk must hand back to ``Walker.walk``, ascending: those a rule handles
    and the parents of ``do_first`` nodes (returned apart too: their children are reordered).
    Nodes inside a token are left out (a plain walk never enters a token)."""
    types, kids, info = tree.types, tree.kids, tree.info
    handled = rules.handled_types
    found = [i for i, t in enumerate(types) if t in handled and info[i] is None]
    first = rules.do_first
    reordered: set[int] = set()
    if first:
        for i in found:
            if types[i] in first and i:
                parent = i - 1
                while not kids[parent] or kids[parent][-1] < i:
                    parent -= 1
                reordered.add(parent)
        if reordered:
            found = sorted(reordered.union(found))
    inside = tree.inside
    if inside and found:
        found = [i for i in found if i not in inside]
    return found, reordered


def table(*groups: Mapping[str, Handler]) -> dict[str, Handler]:
    """Merge handler groups; an earlier group wins a type (the package's test order)."""
    merged: dict[str, Handler] = {}
    for group in reversed(groups):
        merged.update(group)
    return merged


class Walker:
    """One extraction: the edge list, the loop memo and the step budget."""

    __slots__ = ("handlers", "first", "tree", "types", "info", "children", "out", "memo",
                 "steps", "max_steps", "var_cache", "names", "stops", "reordered", "loop_depth")

    def __init__(self, rules: Rules, tree: DataTree, max_steps: int) -> None:
        self.handlers = rules.handlers
        self.first = rules.do_first
        self.tree = tree
        self.types = tree.types
        self.info = tree.info
        self.children = tree.kids
        self.out: list[Edge] = []
        self.memo: dict[tuple[int, tuple], tuple[list[Edge], tuple]] = {}
        self.steps = 0
        self.max_steps = max_steps
        self.loop_depth = 0  # loops being walked around the current node
        self.var_cache: dict[int, tuple[tuple[int, str], ...]] = {}
        self.names: dict[int, tuple[str, ...]] = {}
        self.stops, self.reordered = stop_nodes(tree, rules)

    def walk(self, n: Optional[Node], st: State) -> State:
        """Walk one node; the state passed in is owned (and may be changed) by the callee."""
        if n is None:
            raise Abort("walk of a missing node")
        facts = self.info[n]
        if facts is not None:
            kind, idx, code, ident = facts
            if kind == VARIABLE:
                parents = st.get(code)
                if parents is not None:
                    self.out.append((code, idx, COMES, (code,), parents))
                else:
                    if ident:
                        st[code] = (idx,)
                    self.out.append((code, idx, COMES, (), ()))
            elif kind == UNINDEXED:
                raise Abort("token inside a string token")
            return st
        types = self.types
        handler = self.handlers.get(types[n])
        if handler is not None:
            return handler(self, n, st)
        if n not in self.reordered and n not in self.tree.inside:
            return self.walk_plain(n, st)
        # a parent of ``do_first`` nodes, or a node inside a token: child by child
        self.steps += 1
        kids = self.children[n]
        first = self.first
        for kid in kids:
            if types[kid] in first:
                st = self.walk(kid, st)
        for kid in kids:
            if types[kid] not in first:
                st = self.walk(kid, st)
        return st

    def walk_plain(self, n: Node, st: State) -> State:
        """``walk`` of a node no rule handles, read as its preorder run: the variable tokens
        between the nodes rules handle (walked in turn), without visiting the nodes in between."""
        ends = self.tree.last
        last = ends[n]
        stops, var_nodes, var_facts = self.stops, self.tree.var_nodes, self.tree.var_facts
        out = self.out
        s = bisect_right(stops, n)
        v = bisect_left(var_nodes, n)
        while True:
            stop = stops[s] if s < len(stops) else last + 1
            limit = stop if stop <= last else last + 1
            upto = bisect_left(var_nodes, limit, v)
            for code, idx, ident in var_facts[v:upto]:  # ``walk`` of each token, inlined
                parents = st.get(code)
                if parents is not None:
                    out.append((code, idx, COMES, (code,), parents))
                else:
                    if ident:
                        st[code] = (idx,)
                    out.append((code, idx, COMES, (), ()))
            if stop > last:
                return st
            st = self.walk(stop, st)
            skip = ends[stop]
            s = bisect_right(stops, skip, s)
            v = bisect_right(var_nodes, skip, upto)

    def type(self, n: Node) -> str:
        """The node's type."""
        return self.types[n]

    def kids(self, n: Optional[Node]) -> list[Node]:
        """Children of a node (a string token's parts too)."""
        if n is None:
            raise Abort("children of a missing node")
        return self.children[n]

    def field(self, n: Optional[Node], name: str) -> Optional[Node]:
        """A named field of a node, or None."""
        if n is None:
            raise Abort(f"field {name!r} of a missing node")
        return self.tree.flat.field(n, name)

    def variables(self, n: Optional[Node]) -> tuple[tuple[int, str], ...]:
        """(number, text) of the variable tokens under n (cached per node)."""
        if n is None:
            raise Abort("variables of a missing node")
        found = self.var_cache.get(n)
        if found is None:
            found = self.var_cache[n] = variables(self.tree, n)
        return found

    def mentioned(self, n: Node) -> tuple[str, ...]:
        """The variable texts a walk of n can touch (cached per node)."""
        found = self.names.get(n)
        if found is None:
            found = self.names[n] = mentioned(self.tree, n)
        return found
