"""Go rules (the package's DFG_go semantics)."""

from __future__ import annotations

from ._kinds import after_marker, assign, branch, by_field, define, increment, loop
from ._walker import Rules, table

_IF = frozenset({"if_statement", "else"})


GO = Rules(handlers=table(
    {"var_spec": define(by_field("name"), by_field("value"))},
    {"assignment_statement": assign(by_field("left"), by_field("right"))},
    {"inc_statement": increment},
    dict.fromkeys(_IF, branch(_IF, flag_style=True, always_input=True)),
    {"for_statement": loop(after_marker("for_clause", "update"))},
))
