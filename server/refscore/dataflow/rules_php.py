"""PHP rules (the package's DFG_php semantics)."""

from __future__ import annotations

from typing import Optional

from ._kinds import (
    after_marker, all_children, assign, branch, by_field, define, each_loop, increment, loop,
)
from ._walker import Node, Rules, Walker, table

_IF = frozenset({"if_statement", "else_clause"})


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
    dict.fromkeys(_IF, branch(_IF, flag_style=True, always_input=True)),
    {"for_statement": loop(after_marker("assignment_expression"))},
    {"foreach_statement": loop(each_loop(_foreach_var(1), _foreach_var(0), by_field("body")))},
    {"while_statement": loop(all_children)},
))
