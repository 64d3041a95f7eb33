"""CodeBLEU's data-flow rules, one table per rule set (``dataflow.RULE_SETS`` names them for the
registry). Each table maps node types to the handlers of ``_kinds`` that ``_walker.Walker`` runs
(compat tables: the ``codebleu`` package's DFG_* semantics; native ones: our own)."""

from __future__ import annotations

from typing import Optional

from ._kinds import (
    after_marker, all_children, assign, assign_lists, branch, by_field, by_position, define, each_loop, increment,
    local_state, loop, rejoin, split_sides, union_states,
)
from ._walker import COMES, Node, Rules, State, Walker, table

#: The branch node types of the C-like grammars (Go, Java and C#, JavaScript).
_C_IF = frozenset({"if_statement", "else"})


# Python (the package's DFG_python semantics).

def _python_assignment(w: Walker, n: Node, st: State) -> State:
    """``a, b = x, y`` / ``a += x`` / the ``for x in y`` clause of a comprehension."""
    if w.types[n] == "for_in_clause":
        return assign_lists(w, [w.field(n, "left")], [w.kids(n)[-1]], st)
    right = w.field(n, "right")
    if right is None:
        return st
    lefts, rights = split_sides(w, w.field(n, "left"), right)
    return assign_lists(w, lefts, rights, st)


def _python_for_pass(w: Walker, n: Node, st: State, _pass: int) -> State:
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
        dict.fromkeys(("assignment", "augmented_assignment", "for_in_clause"), _python_assignment),
        {"if_statement": branch(frozenset({"elif_clause", "else_clause"}), flag_style=False,
                                always_input=False)},
        {"for_statement": loop(_python_for_pass)},
        {"while_statement": loop(all_children)},
    ),
    do_first=frozenset({"for_in_clause"}),
)


# Java and C# (the package uses the C# rules for C and C++ too).

def _java_if() -> dict:
    return dict.fromkeys(_C_IF, branch(_C_IF, flag_style=True, always_input=False))


JAVA = Rules(handlers=table(
    {"variable_declarator": define(by_field("name"), by_field("value"))},
    {"assignment_expression": assign(by_field("left"), by_field("right"))},
    {"update_expression": increment},
    _java_if(),
    {"for_statement": loop(after_marker("local_variable_declaration"))},
    {"enhanced_for_statement": loop(each_loop(by_field("name"), by_field("value"), by_field("body")))},
    {"while_statement": loop(all_children)},
))

CSHARP = Rules(handlers=table(
    # name is the first child; the value is the second child only when there are exactly two
    {"variable_declarator": define(by_position(0), by_position(1, exact_kids=2))},
    {"assignment_expression": assign(by_field("left"), by_field("right"))},
    {"postfix_unary_expression": increment},
    _java_if(),
    {"for_statement": loop(after_marker("local_variable_declaration"))},
    {"for_each_statement": loop(each_loop(by_field("left"), by_field("right"), by_field("body")))},
    {"while_statement": loop(all_children)},
))


# JavaScript (the package's DFG_javascript semantics) and TypeScript (native only).

def _js_groups() -> list[dict]:
    return [
        {"variable_declarator": define(by_field("name"), by_field("value"))},
        dict.fromkeys(("assignment_pattern", "augmented_assignment_expression"),
                      assign(by_field("left"), by_field("right"))),
        {"update_expression": increment},
        dict.fromkeys(_C_IF, branch(_C_IF, flag_style=True, always_input=True)),
        {"for_statement": loop(after_marker("variable_declaration"))},
        {"while_statement": loop(all_children)},
    ]


JAVASCRIPT = Rules(handlers=table(*_js_groups()))

#: TypeScript's type syntax (annotations, type arguments, the type of ``x as T`` or ``x satisfies
#: T``) and JSX closing tags (``</li>`` repeats the opening tag): their names hold no value.
_TS_NOT_VALUES = frozenset({
    "type_annotation", "type_arguments", "type_parameters", "type_identifier", "nested_type_identifier",
    "generic_type", "predefined_type", "array_type", "tuple_type", "union_type", "intersection_type",
    "literal_type", "object_type", "function_type", "conditional_type", "lookup_type", "parenthesized_type",
    "readonly_type", "type_query", "index_type_query", "template_literal_type", "jsx_closing_element",
})

#: TypeScript: the JavaScript rules, plus typed parameters (``a: T = v``) as declarations; the
#: names in types and closing tags are not variables.
TYPESCRIPT = Rules(handlers=table(
    dict.fromkeys(("required_parameter", "optional_parameter"),
                  define(by_field("pattern"), by_field("value"))),
    *_js_groups(),
), not_values=_TS_NOT_VALUES)


# Go (the package's DFG_go semantics).

GO = Rules(handlers=table(
    {"var_spec": define(by_field("name"), by_field("value"))},
    {"assignment_statement": assign(by_field("left"), by_field("right"))},
    {"inc_statement": increment},
    dict.fromkeys(_C_IF, branch(_C_IF, flag_style=True, always_input=True)),
    {"for_statement": loop(after_marker("for_clause", "update"))},
))


# Ruby (the package's DFG_ruby semantics).

_RUBY_IF = frozenset({"if", "elsif", "else", "unless", "when"})


def _ruby_assignment(w: Walker, n: Node, st: State) -> State:
    """``a, b = x, y`` and ``a += x`` (the latter: first child from last child)."""
    lefts, rights = split_sides(w, w.field(n, "left"), w.field(n, "right"))
    if w.types[n] == "operator_assignment":
        kids = w.kids(n)
        lefts, rights = [kids[0]], [kids[-1]]
    return assign_lists(w, lefts, rights, st)


def _ruby_for_pass(w: Walker, n: Node, st: State, _pass: int) -> State:
    """One pass of ``for x in y``: assign pattern from value, then the body."""
    st = assign_lists(w, [w.field(n, "pattern")], [w.field(n, "value")], st)
    return w.walk(w.field(n, "body"), st)


RUBY = Rules(handlers=table(
    {"keyword_parameter": define(by_field("name"), by_field("value"))},
    dict.fromkeys(("assignment", "operator_assignment"), _ruby_assignment),
    dict.fromkeys(_RUBY_IF, branch(_RUBY_IF, flag_style=False, always_input=False)),
    {"for": loop(_ruby_for_pass)},
    dict.fromkeys(("while_modifier", "until"), loop(all_children)),
))


# PHP (the package's DFG_php semantics).

_PHP_IF = frozenset({"if_statement", "else_clause"})


def _foreach_var(pos: int):
    """Getter: the first (pos 0) or second (pos 1) ``variable_name`` child of a foreach."""
    def get(w: Walker, n: Node) -> Optional[Node]:
        found = [k for k in w.kids(n) if w.types[k] == "variable_name"]
        return found[pos] if len(found) > pos else None
    return get


PHP = Rules(handlers=table(
    {"simple_parameter": define(by_field("name"), by_field("default_value"))},
    dict.fromkeys(("assignment_expression", "augmented_assignment_expression"),
                  assign(by_field("left"), by_field("right"))),
    {"update_expression": increment},
    dict.fromkeys(_PHP_IF, branch(_PHP_IF, flag_style=True, always_input=True)),
    {"for_statement": loop(after_marker("assignment_expression"))},
    {"foreach_statement": loop(each_loop(_foreach_var(1), _foreach_var(0), by_field("body")))},
    {"while_statement": loop(all_children)},
))


# Rust: the package's DFG_rust (compat; it finds next to nothing) and our own (native).

_RUST_IF = frozenset({"if_expression", "if_let_expression", "match_expression", "else"})

#: The package's rules: a function item "declares" its name from its parameter list and its body
#: is never walked; ``let`` is not handled at all.
RUST_COMPAT = Rules(handlers=table(
    {"function_item": define(by_position(1), by_position(2, min_kids=3))},
    dict.fromkeys(("assignment_expression", "compound_assignment_expr", "let_expression"),
                  assign(by_field("left"), by_field("right"))),
    dict.fromkeys(_RUST_IF, branch(_RUST_IF, flag_style=True, always_input=False)),
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
