"""Rust rules: the package's DFG_rust (compat; it finds next to nothing) and our own (native)."""

from __future__ import annotations

from ._kinds import (
    after_marker, all_children, assign, branch, by_field, by_position, define, each_loop, local_state, loop, rejoin,
    union_states,
)
from ._walker import Node, COMES, Rules, State, Walker, table

_IF = frozenset({"if_expression", "if_let_expression", "match_expression", "else"})

#: The package's rules: a function item "declares" its name from its parameter list and its body
#: is never walked; ``let`` is not handled at all.
RUST_COMPAT = Rules(handlers=table(
    {"function_item": define(by_position(1), by_position(2, min_kids=3))},
    dict.fromkeys(("assignment_expression", "compound_assignment_expr", "let_expression"),
                  assign(by_field("left"), by_field("right"))),
    dict.fromkeys(_IF, branch(_IF, flag_style=True, always_input=False)),
    {"for_expression": loop(after_marker("local_variable_declaration"))},
    {"for_each_statement": loop(each_loop(by_field("left"), by_field("right"), by_field("body")))},
    dict.fromkeys(("while_expression", "while_let_expression", "loop_expression"),
                  loop(all_children)),
))


def _walk_opt(w: Walker, n: Node | None, st: State) -> State:
    return st if n is None else w.walk(n, st)


def _if_expression(w: Walker, n: Node, st: State) -> State:
    """Condition first; then and else start from the state after it and join."""
    st = _walk_opt(w, w.field(n, "condition"), st)
    base = local_state(w, n, st)
    then = _walk_opt(w, w.field(n, "consequence"), dict(base))
    alternative = w.field(n, "alternative")
    other = base if alternative is None else w.walk(alternative, dict(base))
    return rejoin(st, base, union_states([then, other]))


def _match_expression(w: Walker, n: Node, st: State) -> State:
    """The scrutinee first; each arm starts from the state after it; the arms join."""
    st = _walk_opt(w, w.field(n, "value"), st)
    body = w.field(n, "body")
    arms = [k for k in w.kids(body) if w.types[k] == "match_arm"] if body is not None else []
    if not arms:
        return st
    base = local_state(w, n, st)
    return rejoin(st, base, union_states([w.walk(arm, dict(base)) for arm in arms]))


def _declare(w: Walker, target: Node | None, st: State) -> State:
    for idx, code in w.variables(target) if target is not None else ():
        w.out.append((code, idx, COMES, (), ()))
        st[code] = (idx,)
    return st


def _parameter(w: Walker, n: Node, st: State) -> State:
    """A function parameter declares the names of its pattern."""
    return _declare(w, w.field(n, "pattern"), st)


def _closure_parameters(w: Walker, n: Node, st: State) -> State:
    """``|a, b: T|``: each parameter name is declared."""
    for kid in w.kids(n):
        st = w.walk(kid, st) if w.types[kid] == "parameter" else _declare(w, kid, st)
    return st


RUST_NATIVE = Rules(handlers=table(
    dict.fromkeys(("let_declaration", "let_condition"),
                  define(by_field("pattern"), by_field("value"))),
    {"parameter": _parameter, "closure_parameters": _closure_parameters},
    dict.fromkeys(("assignment_expression", "compound_assignment_expr"),
                  assign(by_field("left"), by_field("right"))),
    {"if_expression": _if_expression, "match_expression": _match_expression},
    {"for_expression": loop(each_loop(by_field("pattern"), by_field("value"), by_field("body")))},
    dict.fromkeys(("while_expression", "loop_expression"), loop(all_children)),
))
