"""Java and C# rules; the package uses the C# rules for C and C++ too."""

from __future__ import annotations

from ._kinds import (
    after_marker, all_children, assign, branch, by_field, by_position, define, each_loop, increment, loop,
)
from ._walker import Rules, table

_IF = frozenset({"if_statement", "else"})


def _if() -> dict:
    return dict.fromkeys(_IF, branch(_IF, flag_style=True, always_input=False))


JAVA = Rules(handlers=table(
    {"variable_declarator": define(by_field("name"), by_field("value"))},
    {"assignment_expression": assign(by_field("left"), by_field("right"))},
    {"update_expression": increment},
    _if(),
    {"for_statement": loop(after_marker("local_variable_declaration"))},
    {"enhanced_for_statement": loop(each_loop(by_field("name"), by_field("value"), by_field("body")))},
    {"while_statement": loop(all_children)},
))

CSHARP = Rules(handlers=table(
    # name is the first child; the value is the second child only when there are exactly two
    {"variable_declarator": define(by_position(0), by_position(1, exact_kids=2))},
    {"assignment_expression": assign(by_field("left"), by_field("right"))},
    {"postfix_unary_expression": increment},
    _if(),
    {"for_statement": loop(after_marker("local_variable_declaration"))},
    {"for_each_statement": loop(each_loop(by_field("left"), by_field("right"), by_field("body")))},
    {"while_statement": loop(all_children)},
))
