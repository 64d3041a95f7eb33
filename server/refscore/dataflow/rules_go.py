"""Go rules (the package's DFG_go semantics)."""

from __future__ import annotations

from ._walker import Node, Rules, State, Walker, assign, branch, by_field, define, increment, loop, table

_IF = frozenset({"if_statement", "else"})


def _for_pass(w: Walker, n: Node, st: State, pass_no: int) -> State:
    """First pass: every child; second: the clause's update, then the children after it."""
    kids = w.kids(n)
    if pass_no == 0:
        for kid in kids:
            st = w.walk(kid, st)
        return st
    seen = False
    for kid in kids:
        if seen:
            st = w.walk(kid, st)
        elif w.types[kid] == "for_clause":
            update = w.field(kid, "update")
            if update is not None:
                st = w.walk(update, st)
            seen = True
    return st


GO = Rules(handlers=table(
    {"var_spec": define(by_field("name"), by_field("value"))},
    {"assignment_statement": assign(by_field("left"), by_field("right"))},
    {"inc_statement": increment},
    dict.fromkeys(_IF, branch(_IF, flag_style=True, always_input=True)),
    {"for_statement": loop(_for_pass)},
))
