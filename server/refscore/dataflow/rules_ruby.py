"""Ruby rules (the package's DFG_ruby semantics)."""

from __future__ import annotations

from ._kinds import all_children, assign_lists, branch, by_field, define, loop, split_sides
from ._walker import Node, Rules, State, Walker, table

_IF_TYPES = frozenset({"if", "elsif", "else", "unless", "when"})


def _assignment(w: Walker, n: Node, st: State) -> State:
    """``a, b = x, y`` and ``a += x`` (the latter: first child from last child)."""
    lefts, rights = split_sides(w, w.field(n, "left"), w.field(n, "right"))
    if w.types[n] == "operator_assignment":
        kids = w.kids(n)
        lefts, rights = [kids[0]], [kids[-1]]
    return assign_lists(w, lefts, rights, st)


def _for_pass(w: Walker, n: Node, st: State, _pass: int) -> State:
    """One pass of ``for x in y``: assign pattern from value, then the body."""
    st = assign_lists(w, [w.field(n, "pattern")], [w.field(n, "value")], st)
    return w.walk(w.field(n, "body"), st)


RUBY = Rules(handlers=table(
    {"keyword_parameter": define(by_field("name"), by_field("value"))},
    dict.fromkeys(("assignment", "operator_assignment"), _assignment),
    dict.fromkeys(_IF_TYPES, branch(_IF_TYPES, flag_style=False, always_input=False)),
    {"for": loop(_for_pass)},
    dict.fromkeys(("while_modifier", "until"), loop(all_children)),
))
