"""Python rules (the package's DFG_python semantics)."""

from __future__ import annotations

from ._kinds import all_children, assign_lists, branch, by_field, define, loop, split_sides
from ._walker import Node, Rules, State, Walker, table


def _assignment(w: Walker, n: Node, st: State) -> State:
    """``a, b = x, y`` / ``a += x`` / the ``for x in y`` clause of a comprehension."""
    if w.types[n] == "for_in_clause":
        return assign_lists(w, [w.field(n, "left")], [w.kids(n)[-1]], st)
    right = w.field(n, "right")
    if right is None:
        return st
    lefts, rights = split_sides(w, w.field(n, "left"), right)
    return assign_lists(w, lefts, rights, st)


def _for_pass(w: Walker, n: Node, st: State, _pass: int) -> State:
    """One pass of ``for``: assign the target from the iterable, then the body if last is a block."""
    lefts, rights = split_sides(w, w.field(n, "left"), w.field(n, "right"))
    st = assign_lists(w, lefts, rights, st)
    last = w.kids(n)[-1]
    if w.types[last] == "block":
        st = w.walk(last, st)
    return st


PYTHON = Rules(
    handlers=table(
        {"default_parameter": define(by_field("name"), by_field("value"))},
        dict.fromkeys(("assignment", "augmented_assignment", "for_in_clause"), _assignment),
        {"if_statement": branch(frozenset({"elif_clause", "else_clause"}), flag_style=False,
                                always_input=False)},
        {"for_statement": loop(_for_pass)},
        {"while_statement": loop(all_children)},
    ),
    do_first=frozenset({"for_in_clause"}),
)
