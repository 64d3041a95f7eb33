"""JavaScript rules (the package's DFG_javascript semantics) and TypeScript (native only)."""

from __future__ import annotations

from ._kinds import after_marker, all_children, assign, branch, by_field, define, increment, loop
from ._walker import Rules, table

_IF = frozenset({"if_statement", "else"})


def _js_groups() -> list[dict]:
    return [
        {"variable_declarator": define(by_field("name"), by_field("value"))},
        dict.fromkeys(("assignment_pattern", "augmented_assignment_expression"),
                      assign(by_field("left"), by_field("right"))),
        {"update_expression": increment},
        dict.fromkeys(_IF, branch(_IF, flag_style=True, always_input=True)),
        {"for_statement": loop(after_marker("variable_declaration"))},
        {"while_statement": loop(all_children)},
    ]


JAVASCRIPT = Rules(handlers=table(*_js_groups()))

#: TypeScript: the JavaScript rules, plus typed parameters (``a: T = v``) as declarations.
TYPESCRIPT = Rules(handlers=table(
    dict.fromkeys(("required_parameter", "optional_parameter"),
                  define(by_field("pattern"), by_field("value"))),
    *_js_groups(),
))
