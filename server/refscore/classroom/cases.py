"""A rubric's cases of their own, read from a row: code that does not parse or does not run.

* ``not_parsing``: the parser found a syntax error (the row's ``parse_error``, the language's
  own parser's line where RefScore has one), or behaviour ran and the candidate did not parse
  on any input (an ``IndentationError`` tree-sitter recovers from);
* ``not_running``: behaviour ran and the candidate did not load or compile on any input (an
  import of a module that is not there, a Java class that does not compile).

Such a submission earns the rubric's points for the case (default 0), never points for
resembling the reference: code that cannot run is not a solution however it looks.
"""

from __future__ import annotations

import re
from typing import Any

from ..grade.rows import NOT_PARSING

NOT_PARSING_CASE, NOT_RUNNING_CASE = "not_parsing", "not_running"
#: How behaviour says a candidate could not run at all (``behaviour_cells``' note, its last value).
_CANNOT_RUN = re.compile(r", got (does not (parse|load|compile)\b.*)$")


def case_of(row: dict[str, Any]) -> tuple[str, str] | None:
    """(case, why in words) of a scored row, None when it parses and runs (or nothing says)."""
    if row.get("parse_error"):
        return NOT_PARSING_CASE, f"{NOT_PARSING}{row['parse_error']}"
    note, agreement = row.get("behaviour_note"), row.get("behaviour")
    if not isinstance(note, str) or agreement != 0 or isinstance(agreement, bool):
        return None
    found = _CANNOT_RUN.search(note)
    if found is None:
        return None
    why = found[1]
    return (NOT_PARSING_CASE if found[2] == "parse" else NOT_RUNNING_CASE), why
