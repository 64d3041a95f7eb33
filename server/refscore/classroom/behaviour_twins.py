"""Students who fail in the same way: in one problem, the same wrong answers (the same inputs, the
same wrong outputs: every counter-example behaviour kept, or the first where only the rows are at
hand) and the same number of inputs agreed on. A signal beside the similarity
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


def same_failures(rows: Sequence[dict[str, Any]], names: dict[str, str],
                  wrong: dict[str, tuple[tuple[str, str], ...]] | None = None) -> list[SameFailure]:
    """The groups in ``rows`` (``names``: row id -> the student's name; ``wrong``: row id -> every
    kept counter-example as (input, output)), largest first."""
    wrong = wrong or {}
    groups: dict[tuple[str, Any, int, int], list[str]] = {}
    notes: dict[tuple[str, Any, int, int], str] = {}
    for row in rows:
        note, share = row.get("behaviour_note"), row.get("behaviour")
        if not isinstance(note, str) or not note.startswith(DIFFERS) or not isinstance(share, (int, float)):
            continue
        key = (str(row.get("problem") or ""), wrong.get(str(row.get("id")), note),
               int(row.get("behaviour_agreed") or 0), int(row.get("behaviour_inputs") or 0))
        notes.setdefault(key, note)
        who = names.get(str(row.get("id")), str(row.get("id")))
        if who not in groups.setdefault(key, []):
            groups[key].append(who)
    found = [SameFailure(key[0], notes[key], key[2], key[3], tuple(who)) for key, who in groups.items() if len(who) > 1]
    return sorted(found, key=lambda group: (-len(group.students), group.problem, group.note))
