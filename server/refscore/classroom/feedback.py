"""Feedback for one student, as the facts both renderers (``feedback_html``, ``feedback_md``) show.

Per problem: the points and how the rubric gave them, the scores, the teacher's adjustments, the
student's code with its token heat (CodeBERTScore similarity to the reference, when computed),
the remarks (``hints.remarks``) at the teacher's ``--reveal`` level, and what behaviour found: the
inputs the student's code got wrong (``counter_examples``; the reference's outcome beside them as
the rubric's ``show_expected`` says). Only ``reveal`` carries
the reference's text; under ``hints`` and ``scores`` nothing of the reference's code is kept
here (token tooltips name the similarity only, never the reference token it matched).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..behaviour.result import BehaviourResult
from ..grade.heatmap import Heat, token_heat
from ..grade.rows import NOT_PARSING, GradeResult
from .gradebook import NOT_SCORED, ProblemGrade, StudentGrade
from .feedback_words import Part, behaviour_words, counter_example
from .hints import Remark, remarks

#: The scores a feedback page shows, when computed (labels from ``rows.LABELS``).
SHOWN_SCORES = ("refscore", "codebleu", "codebleu_native", "codebertscore_f1")


@dataclass
class ProblemFeedback:
    """What a student is shown about one problem."""

    grade: ProblemGrade
    scores: dict[str, float] = field(default_factory=dict)
    code: str | None = None  # the student's scored code (None: scores mode, or no submission)
    heat: list[Heat] = field(default_factory=list)
    remarks: list[Remark] = field(default_factory=list)
    references: list[tuple[str, str]] = field(default_factory=list)  # (name, text): reveal mode only
    messages: list[str] = field(default_factory=list)  # errors of the submission (those no note says)
    warnings: list[str] = field(default_factory=list)  # warnings of the scored submission
    cells: tuple[tuple[int, int, int], ...] | None = None  # a notebook's code cells (``notebook.Cells``)
    behaviour: str | None = None  # the behaviour headline (``feedback_words.behaviour_words``)
    counter_examples: list[list[Part]] = field(default_factory=list)  # inputs the code got wrong, in words

    def score_text(self, column: str, value: float) -> str:
        """A shown score: the one the points came from as the grade notes show it (never rounded
        onto a band it missed), the others to three places."""
        return self.grade.score_text(value) if column == self.grade.metric else f"{value:.3f}"


@dataclass
class StudentFeedback:
    """One student's page."""

    student: StudentGrade
    title: str
    mode: str
    max_total: float
    problems: list[ProblemFeedback]


def student_feedback(student: StudentGrade, details: Mapping[str, GradeResult], mode: str, title: str,
                     max_total: float, show_expected: bool = True) -> StudentFeedback:
    """The feedback of ``student``; ``details``: row id -> the scored result (texts and report);
    ``show_expected``: each counter-example says what the reference does too."""
    problems = []
    for grade in student.problems.values():
        view = ProblemFeedback(grade)
        row = next((r for r in student.rows if str(r.get("id")) == grade.submission), None)
        if row is not None:
            view.scores = {c: float(row[c]) for c in SHOWN_SCORES if isinstance(row.get(c), (int, float))}
            said = {note[len(NOT_SCORED):] for note in grade.notes if note.startswith(NOT_SCORED)}
            parsing = any(note.startswith(NOT_PARSING) for note in grade.notes)  # said once, by the note
            view.messages = [m for m in row.get("errors", []) if m not in said]
            view.warnings = [m for m in row.get("warnings", []) if not (parsing and str(m).startswith(NOT_PARSING))]
        result = details.get(grade.submission or "")
        if result is not None and mode != "scores" and result.item.candidate is not None:
            _fill(view, result, mode)
            behaviour = result.report.behaviour if result.report is not None else None
            if behaviour is not None:
                _behaviour(view, behaviour, show_expected)
        problems.append(view)
    return StudentFeedback(student, title, mode, max_total, problems)


def _fill(view: ProblemFeedback, result: GradeResult, mode: str) -> None:
    item, report = result.item, result.report
    view.code = item.candidate
    view.cells = item.cells
    bert = report.codebertscore if report is not None else None
    if bert is not None and bert.candidate_tokens:  # the student never sees the reference's tokens
        view.heat = token_heat(bert.candidate_tokens, item.candidate or "", matches=False)
    if report is not None and item.references and item.language:
        from ..scoring.differences import find_differences

        try:
            found = find_differences(item.candidate or "", item.references, report, item.language)
        except Exception as error:  # noqa: BLE001 - the page still has the scores and the code
            view.messages.append(f"differences could not be found: {type(error).__name__}")
        else:
            view.remarks = remarks(found.differences, item.references, item.language, mode, _where(item),
                                   item.candidate or "")
    if mode == "reveal":
        names = list(item.reference_names) or [f"reference {i + 1}" for i in range(len(item.references))]
        view.references = [(names[i] if i < len(names) else f"reference {i + 1}", text)
                           for i, text in enumerate(item.references)]


def _behaviour(view: ProblemFeedback, result: BehaviourResult, show_expected: bool) -> None:
    """The behaviour headline and each kept counter-example, in words (nothing where it did not run:
    that is the teacher's to read in the grade report, not the student's)."""
    if not result.ran:
        return
    view.behaviour = behaviour_words(result)
    view.counter_examples = [counter_example(d, show_expected) for d in result.disagreements]


def _where(item: Any) -> Callable[[int], str] | None:
    """How a line of a notebook's scored text is named (cell and line), else None."""
    cells = getattr(item, "cells", None)
    if not cells:
        return None
    from ..grade.notebook import locate

    def name(line: int) -> str:
        place = locate(cells, line)
        return f"cell {place[0]}, line {place[1]}" if place else f"line {line + 1}"

    return name


#: What a page says instead of the code when a submission has none (the row's error says which).
EMPTY_FILE = "Your submission is empty: there is no code to show."
ONLY_STARTER = "Your submission holds nothing but the starter code you were given: there is no code of yours to show."


def empty_code_note(view: ProblemFeedback) -> str | None:
    """The sentence shown in place of blank code: empty, or nothing but the starter code (as the
    submission's error says); None when there is code to show or no code at all."""
    if view.code is None or view.code.strip():
        return None
    said = " ".join([*view.grade.notes, *view.messages])
    return ONLY_STARTER if "nothing but the starter code" in said else EMPTY_FILE


def details_by_id(details: Sequence[tuple[GradeResult, dict[str, Any]]]) -> dict[str, GradeResult]:
    """Row id -> result, from ``Assembled.details``."""
    return {str(row["id"]): result for result, row in details}
