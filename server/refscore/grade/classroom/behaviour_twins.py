"""Students who fail in the same way: in one problem, the same first wrong answer (the same input,
the same wrong output) and the same number of inputs agreed on. A signal beside the similarity
(two students whose code looks different but breaks identically), never a verdict: a common
mistake is common."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

#: How a row's ``behaviour_note`` starts when the code got an input wrong (``Disagreement.line``).
DIFFERS = "differs on "


@dataclass(frozen=True)
class SameFailure:
    """Two or more students of ``problem`` whose behaviour failed the same way."""

    problem: str
    note: str  # the first counter-example, as the grade report writes it
    agreed: int
    inputs: int
    students: tuple[str, ...]


def same_failures(rows: Sequence[dict[str, Any]], names: dict[str, str]) -> list[SameFailure]:
    """The groups in ``rows`` (``names``: row id -> the student's name), largest first."""
    groups: dict[tuple[str, str, int, int], list[str]] = {}
    for row in rows:
        note, share = row.get("behaviour_note"), row.get("behaviour")
        if not isinstance(note, str) or not note.startswith(DIFFERS) or not isinstance(share, (int, float)):
            continue
        key = (str(row.get("problem") or ""), note, int(row.get("behaviour_agreed") or 0),
               int(row.get("behaviour_inputs") or 0))
        who = names.get(str(row.get("id")), str(row.get("id")))
        if who not in groups.setdefault(key, []):
            groups[key].append(who)
    found = [SameFailure(problem, note, agreed, inputs, tuple(who))
             for (problem, note, agreed, inputs), who in groups.items() if len(who) > 1]
    return sorted(found, key=lambda group: (-len(group.students), group.problem, group.note))
