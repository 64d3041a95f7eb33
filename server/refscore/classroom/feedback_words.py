"""The plain words of a student's feedback: the rubric's rule, and each counter-example their code
got wrong ("for ``merge_intervals([[1, 2], [2, 3]])`` your function returns ``[[1, 2], [2, 3]]``").

A sentence is a list of ``Part``: text, or a value to set as code (``True``); the HTML and the
Markdown page each set code their own way, so a value is never escaped twice or left raw.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from ..behaviour.result import BehaviourResult, Disagreement

#: One piece of a sentence: (text, whether it is code: an input or a value).
Part = tuple[str, bool]
#: The longest value a counter-example shows (the grade report's JSON has the whole one).
MAX_VALUE = 200
#: Reasons that say no more than the values do.
_PLAIN_REASONS = frozenset({"different result", "different output", "raised", "did not raise", "timeout",
                            "missing function"})
_BAND = re.compile(r"^(>=|>)\s*(\S+)$")
_LINEAR = re.compile(r"^linear (\S+)\.\.(\S+)$")


def rule_words(rule: str) -> str:
    """A rubric rule in words: ``>= 0.85`` is "the points for a score of at least 0.85", ``> 0``
    "the points for a score above 0", ``below 0.3`` "a score below 0.3 earns none", ``linear
    0.1..0.9`` says how the points grow; any other text is kept as it is."""
    band = _BAND.match(rule.strip())
    if band:
        return f"the points for a score {'of at least' if band[1] == '>=' else 'above'} {band[2]}"
    if rule.startswith("below "):
        return f"a score below {rule[6:]} earns none"
    linear = _LINEAR.match(rule.strip())
    if linear:
        return f"points in proportion to the score: none at {linear[1]} or below, all at {linear[2]} or above"
    return rule


def points_words(grade: Any) -> list[str]:
    """How the rubric gave a problem's points (``gradebook.ProblemGrade``), one sentence a part:
    behaviour's, resemblance's (its score and rule in words), a rubric case's, the late penalty."""
    from ..grade.rows import LABELS

    out = []
    if getattr(grade, "case", None) is not None:
        out.append(f"{grade.rule}: {grade.auto_points:g} of {grade.max_points:g} points.")
        return out
    behaviour_max = getattr(grade, "behaviour_max", 0.0)
    if behaviour_max:
        said = "not run" if grade.behaviour is None else f"agreement {grade.behaviour:.3f}"
        out.append(f"Doing what the reference does ({said}): {grade.behaviour_points:g} of {behaviour_max:g} points.")
    if grade.score is not None and grade.metric is not None:
        label = LABELS.get(grade.metric, grade.metric)
        rule = f", {rule_words(grade.rule)}" if grade.rule else ""
        if behaviour_max:
            out.append(f"Resemblance to the reference ({label} {grade.score_text()}{rule}): "
                       f"{grade.style_points:g} of {grade.style_max:g} points.")
        else:
            out.append(f"{label} {grade.score_text()}{rule}: {grade.auto_points:g} of {grade.max_points:g} points.")
    return out


def _cut(text: str) -> str:
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 1] + "\u2026"


def _outcome(value: str, program: bool) -> list[Part]:
    """What code did on an input: ``returns [1]``, ``raises ValueError``, ``prints 'x'``."""
    if value.startswith("raises "):
        return [("raises ", False), (_cut(value[7:]), True)]
    if value == "timeout":
        return [("does not finish in time", False)]
    if value.startswith("prints "):
        return [("prints ", False), (_cut(value[7:]), True)]
    return [("prints " if program else "returns ", False), (_cut(value), True)]


def counter_example(item: Disagreement, show_expected: bool) -> list[Part]:
    """One input the student's code got wrong, as a sentence; ``show_expected``: the reference's
    outcome is said too (the rubric's ``show_expected``)."""
    program = item.function is None
    who = "your program" if program else "your function"
    shown = item.input[6:] if program and item.input.startswith("stdin ") else item.input  # ``stdin '3\n'``
    parts: list[Part] = [("with the standard input " if program else "for ", False), (_cut(shown), True), (" ", False)]
    if item.reason == "missing function":
        parts += [(f"{who} is missing: the name ", False), (item.function or "?", True), (" is not defined", False)]
    elif item.actual == item.reason and item.reason not in _PLAIN_REASONS:  # it never ran: a load or compile error
        parts += [(f"{who} does not run: {_cut(item.reason)}", False)]
    else:
        parts += [(f"{who} ", False), *_outcome(item.actual, program)]
    if show_expected:
        parts += [("; the reference ", False), *_outcome(item.expected, program)]
    if item.reason not in _PLAIN_REASONS and item.reason != item.actual:
        parts.append((f" ({item.reason})", False))
    return parts


def behaviour_words(result: BehaviourResult) -> str:
    """The headline: on how many inputs the code did what the reference does."""
    what = "program" if result.mode == "program" else "code"
    if result.agrees_everywhere:
        return f"Your {what} did what the reference does on all {result.inputs:,} inputs it was run on."
    return (f"Your {what} did what the reference does on {result.agreed:,} of {result.inputs:,} inputs; "
            f"{'the first ones it got wrong' if result.inputs - result.agreed > len(result.disagreements) else 'those it got wrong'}:")


def plain_text(parts: Sequence[Part]) -> str:
    """A sentence with its code as it reads (for tests and one-line notes)."""
    return "".join(text for text, _ in parts)
