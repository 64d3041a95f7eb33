"""Behaviour in the grade reports: its columns besides the score, and the run's one note.

A row of a run with ``behaviour`` in ``--metrics`` has the agreement (``behaviour``), the inputs
run (``behaviour_inputs``), those agreed on (``behaviour_agreed``) and ``behaviour_note``: the
first counter-example in one line (``differs on clamp(5, 0, 3): expected 3, got 2``), nothing
when the candidate agreed everywhere, or why behaviour did not run (``not run: ...``). When it
ran for no submission, all for the same reason (no sandbox on this machine, a language it cannot
run), the run says so once (``RunBehaviour.note``): the terminal, the JSON report's settings and
the HTML page's header.
"""

from __future__ import annotations

import json
from typing import Any

from ..behaviour.result import BehaviourResult

#: behaviour's columns besides its score and signature (``rows.COLUMNS``).
BEHAVIOUR_COLUMNS = ("behaviour_inputs", "behaviour_agreed", "behaviour_note")
#: How a row's ``behaviour_note`` starts when behaviour did not run for it.
NOT_RUN = "not run: "
#: The longest text of one input, expected or actual value in a note (the JSON report's
#: ``report.behaviour`` and the HTML detail have the first counter-examples whole).
MAX_SHOWN = 160


def one_line(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` on one line: as a JSON string when it has line breaks or other control
    characters (program mode's standard inputs and outputs), cut to ``limit`` characters."""
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        text = json.dumps(text, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def behaviour_cells(result: BehaviourResult | None) -> dict[str, Any]:
    """The row's ``BEHAVIOUR_COLUMNS`` (none when behaviour was not asked for)."""
    if result is None:
        return {}
    if not result.ran:
        return {"behaviour_note": NOT_RUN + one_line(result.not_run or "no reason given", 400)}
    note = result.disagreements[0].line(one_line) if result.disagreements else None
    return {"behaviour_inputs": result.inputs, "behaviour_agreed": result.agreed, "behaviour_note": note}


def not_run_reason(row: dict[str, Any]) -> str | None:
    """Why behaviour did not run for a row (None when it ran, or was not asked for)."""
    note = row.get("behaviour_note")
    if row.get("behaviour") is None and isinstance(note, str) and note.startswith(NOT_RUN):
        return note[len(NOT_RUN):]
    return None


class RunBehaviour:
    """Pass one's count of the rows behaviour ran for and why it did not run for the others."""

    def __init__(self) -> None:
        self.ran = 0
        self.reasons: dict[str, int] = {}

    def add(self, row: dict[str, Any]) -> None:
        if row.get("behaviour") is not None:
            self.ran += 1
            return
        reason = not_run_reason(row)
        if reason is not None:
            self.reasons[reason] = self.reasons.get(reason, 0) + 1

    @property
    def note(self) -> str | None:
        """``behaviour not run: <why>`` when it ran for no row, for one reason (None otherwise)."""
        if self.ran or len(self.reasons) != 1:
            return None
        return f"behaviour not run: {next(iter(self.reasons))}"
