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
