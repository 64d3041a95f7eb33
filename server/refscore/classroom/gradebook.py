"""Points per student and problem: a run's rows, the rubric and the teacher's adjustments.

Each row is one submission; ``student``/``student_id`` (set by the classroom layouts) say whose
it is. Rows without them (plain folders, mapping files) are given to the shortest tail of their
id that tells the students of a problem apart: ``week3/python/alice.py`` is ``alice``, and
``week3/class/alice/main.py`` is ``alice`` when every file is called ``main.py``. Every student
gets every problem of the run: no submission, or one that could not be scored, earns 0 points
with the reason beside it. Nothing here scores anything: the gradebook is rebuilt from the rows
(and so from the cache) whenever the rubric or the adjustments change.

A row's points: a rubric case's (``case_of``: code that does not parse or run), else behaviour's
part (its agreement times the part, ``Scheme.parts``) plus resemblance's (the bands or linear
scale on the rubric's metric); then the late policy (``late``), then the adjustments. The
roster, where given, names the students (``roster.apply_roster``).

A rubric's cases of their own, read from a row: ``not_parsing``, the parser found a syntax error
(the row's ``parse_error``, the language's own parser's line where RefScore has one), or behaviour
ran and the candidate did not parse on any input (an ``IndentationError`` tree-sitter recovers
from); ``not_running``, behaviour ran and the candidate did not load or compile on any input (an
import of a module that is not there, a Java class that does not compile). Such a submission earns
the rubric's points for the case (default 0), never points for resembling the reference: code that
cannot run is not a solution however it looks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Iterable, Sequence

from ..grade.behaviour_cells import not_run_reason
from ..grade.rows import LABELS, NOT_PARSING
from ..vocabulary import metric_column, metric_value
from .adjustments import Adjustment
from .feedback_words import rule_words
from .late import days_late
from .roster import RosterEntry, apply_roster, by_real_name
from .rubric import BEHAVIOUR, Rubric, Scheme, shown_score

#: Before the first error of a submission that earned 0 because it could not be scored.
NOT_SCORED = "not scored: "


def named(problem: str) -> str:
    """``problem: `` before a problem's line, nothing for the one unnamed problem of a ``-r`` run."""
    return f"{problem}: " if problem else ""


@dataclass
class ProblemGrade:
    """One student's points on one problem."""

    problem: str
    max_points: float
    points: float = 0.0
    auto_points: float = 0.0  # the rubric's points, before adjustments
    score: float | None = None
    metric: str | None = None  # the score column the points came from
    rule: str = ""  # the band or scale that gave them
    thresholds: tuple[float, ...] = ()  # the scores that rule compares with (``Scheme.thresholds``)
    submission: str | None = None  # the row's id
    notes: list[str] = field(default_factory=list)
    adjustments: list[Adjustment] = field(default_factory=list)
    behaviour: float | None = None  # behaviour's agreement, where its part paid points
    behaviour_points: float = 0.0  # of ``behaviour_max``
    behaviour_max: float = 0.0
    style_max: float = 0.0  # the resemblance part (``max_points`` without behaviour's part)
    case: str | None = None  # a rubric case (``case_of``): its points replaced both parts
    late_days: float = 0.0
    late_points: float = 0.0  # taken off by the rubric's late policy

    def score_text(self, value: float | None = None) -> str:
        """The score the points came from (or ``value`` of that metric), three places or as many
        more as keep it on its side of the rule's thresholds (``rubric.shown_score``)."""
        score = self.score if value is None else value
        return "" if score is None else shown_score(score, self.thresholds)

    @property
    def style_points(self) -> float:
        """The resemblance part's points (the rubric's, before late and adjustments)."""
        return round(self.auto_points - self.behaviour_points, 2) if self.case is None else 0.0

    def how(self) -> str:
        """How the rubric gave the points, in words a student reads in a grade book's comment:
        ``behaviour 0.950: 7.6/8; RefScore 0.812, the points for a score of at least 0.6: 2/2``."""
        if self.case is not None:
            return f"{self.rule}: {self.auto_points:g} points"
        said = []
        if self.behaviour_max:
            shown = "not run" if self.behaviour is None else f"{self.behaviour:.3f}"
            said.append(f"{LABELS.get('behaviour', 'behaviour')} {shown}: {self.behaviour_points:g}/{self.behaviour_max:g}")
        if self.score is not None and self.metric is not None:
            text = f"{LABELS.get(self.metric, self.metric)} {self.score_text()}, {rule_words(self.rule)}"
            said.append(f"{text}: {self.style_points:g}/{self.style_max:g}" if self.behaviour_max else text)
        return "; ".join(said)

    def summary(self) -> str:
        """One line for a grade book's comment column."""
        how = self.how()
        text = f"{named(self.problem)}{self.points:g}/{self.max_points:g}" + (f" ({how})" if how else "")
        extra = [*self.notes, *(f"adjusted {a.shown()}{': ' + a.comment if a.comment else ''}" for a in self.adjustments)]
        return text + (f" [{'; '.join(extra)}]" if extra else "")


@dataclass
class StudentGrade:
    """A student's points on every problem of the run."""

    key: str  # the identifier every report uses (the LMS id, else the name)
    name: str
    student_id: str | None
    problems: dict[str, ProblemGrade] = field(default_factory=dict)
    total_adjustments: list[Adjustment] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    lms_name: str | None = None  # the layout's name where the roster's differs (``okaforada``)
    sis_user_id: str | None = None  # the roster's (``roster.apply_roster``)
    sis_login_id: str | None = None
    section: str | None = None

    @property
    def max_total(self) -> float:
        return sum(p.max_points for p in self.problems.values())

    @property
    def total(self) -> float:
        points = sum(p.points for p in self.problems.values())
        for adjustment in self.total_adjustments:
            points = adjustment.apply(points)
        return round(max(0.0, points), 6)

    def feedback_line(self) -> str:
        """Every problem's summary, for a grade book's feedback column."""
        parts = [p.summary() for p in self.problems.values()]
        parts.extend(f"total adjusted {a.shown()}{': ' + a.comment if a.comment else ''}" for a in self.total_adjustments)
        return "; ".join(parts)


@dataclass
class Gradebook:
    """Every student's grades, in order of first appearance, and what did not fit."""

    rubric: Rubric
    problems: list[str]
    students: list[StudentGrade]
    notes: list[str] = field(default_factory=list)

    @property
    def max_total(self) -> float:
        return self.rubric.max_total(self.problems)


def student_keys(rows: Sequence[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    """(key, name, id) of each row's student (see the module docstring)."""
    out: list[tuple[str, str, str | None] | None] = [None] * len(rows)
    by_problem: dict[Any, list[int]] = {}
    for index, row in enumerate(rows):
        name, ident = row.get("student"), row.get("student_id")
        if name or ident:
            out[index] = (str(ident or name), str(name or ident), str(ident) if ident else None)
        else:
            by_problem.setdefault(row.get("problem"), []).append(index)
    for problem, indexes in by_problem.items():
        tails = [_tail_parts(rows[i], problem) for i in indexes]
        depth = 1
        while depth < max((len(t) for t in tails), default=1) and \
                len({tuple(t[-depth:]) for t in tails}) < len(tails):
            depth += 1
        for i, tail in zip(indexes, tails):
            key = "/".join(tail[-depth:]) if depth > 1 else tail[-1]
            out[i] = (key, key, None)
    return [entry for entry in out if entry is not None]


def _tail_parts(row: dict[str, Any], problem: Any) -> list[str]:
    """The id's path parts less the problem prefix, the last one without its extension."""
    text = str(row.get("id") or "")
    if problem and text.startswith(f"{problem}/"):
        text = text[len(str(problem)) + 1:]
    parts = [p for p in PurePosixPath(text.replace("\\", "/")).parts if p not in ("", ".", "..")] or [text or "?"]
    last = PurePosixPath(parts[-1])
    parts[-1] = last.stem if last.suffix and last.stem else parts[-1]
    return parts


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def build_gradebook(rows: Sequence[dict[str, Any]], rubric: Rubric, adjustments: Iterable[Adjustment] = (),
                    roster: Sequence[RosterEntry] = (), anonymised: bool = False) -> Gradebook:
    """The grade book of a run's ``rows`` (in input order) under ``rubric``; ``roster``: the
    names, SIS ids and sections the students get (``roster.apply_roster``); ``anonymised``: the notes
    never repeat a name the adjustments file gives (the graders read them)."""
    problems: list[str] = []
    for row in rows:
        name = str(row.get("problem") or "")
        if name not in problems:
            problems.append(name)
    book = Gradebook(rubric, problems, [])
    unknown = sorted(set(rubric.problems) - set(problems))
    if unknown:
        book.notes.append(f"the rubric names problem(s) this run does not have: {', '.join(unknown)}")
    students: dict[str, StudentGrade] = {}
    classroom = any(r.get("student") or r.get("student_id") for r in rows)
    loose = 0
    for row, (key, name, ident) in zip(rows, student_keys(rows)):
        if classroom and not (row.get("student") or row.get("student_id")):
            loose += 1  # a refused archive entry or a file of no student: in the reports, not a student
            continue
        student = students.get(key)
        if student is None:
            student = students[key] = StudentGrade(key, name, ident)
            book.students.append(student)
        student.rows.append(row)
    if loose:
        book.notes.append(f"{loose} row(s) belong to no student (refused entries, unmatched files): "
                          "in the reports, not in the grade books")
    problems[:] = [p for p in problems if any(p == str(r.get("problem") or "") for s in book.students for r in s.rows)]
    for problem in problems:
        scheme = rubric.scheme(problem)
        own = [r for r in rows if str(r.get("problem") or "") == problem]
        ran = any(_finite(metric_value(r, scheme.metric)) for r in own)
        behaved = any(_finite(r.get(BEHAVIOUR)) for r in own)
        which = f"problem {problem!r}: " if problem else ""
        if not ran and scheme.fallback and scheme.parts(behaved)[1]:  # one note for the problem, not one per student
            book.notes.append(f"{which}no submission has {LABELS.get(scheme.metric, scheme.metric)}; "
                              f"points from {LABELS.get(scheme.fallback, scheme.fallback)}")
        book.notes.extend(f"{which}{line}" for line in _behaviour_notes(scheme, behaved, own))
        for student in book.students:
            mine = [r for r in student.rows if str(r.get("problem") or "") == problem]
            student.problems[problem] = _grade(problem, mine, rubric, ran, behaved)
    apply_roster(book, roster)
    _adjust(book, list(adjustments), anonymised)
    return book


def _behaviour_notes(scheme: Scheme, behaved: bool, rows: list[dict[str, Any]]) -> list[str]:
    """What the run says once per problem about where its points came from."""
    behaviour_max, _ = scheme.parts(behaved)
    if behaved or scheme.metric == BEHAVIOUR:
        return []
    reasons = sorted({r for r in (not_run_reason(row) for row in rows) if r})
    why = f" ({'; '.join(reasons[:3])})" if reasons else " (not in --metrics)"
    if behaviour_max:
        return [f"behaviour ran for no submission{why}: its {behaviour_max:g} points are 0 for every student"]
    if not reasons:  # a run without behaviour, by choice: nothing to say
        return []
    return [f"behaviour ran for no submission{why}: every point comes from resemblance to the reference"]


def _grade(problem: str, rows: list[dict[str, Any]], rubric: Rubric, ran: bool = True,
           behaved: bool = False) -> ProblemGrade:
    """The points of one student's ``rows`` for ``problem`` (the best of several); ``ran``: some
    submission of the run has the rubric's metric (else the fallback is no news per student);
    ``behaved``: behaviour ran for some submission of the problem (``Scheme.parts``)."""
    scheme = rubric.scheme(problem)
    grade = ProblemGrade(problem, scheme.points)
    if not rows:
        grade.notes.append("no submission")
        return grade
    best: ProblemGrade | None = None
    for row in rows:
        candidate = _row_grade(problem, row, scheme, ran, behaved)
        _late(candidate, row, rubric)
        if best is None or candidate.points > best.points:
            best = candidate
    assert best is not None
    if len(rows) > 1:
        best.notes.append(f"best of {len(rows)} submissions")
    return best


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


def _row_grade(problem: str, row: dict[str, Any], scheme: Scheme, ran: bool, behaved: bool) -> ProblemGrade:
    """One row's points: a rubric case's, else behaviour's part plus resemblance's part."""
    candidate = ProblemGrade(problem, scheme.points, submission=str(row.get("id")))
    if row.get("errors"):
        candidate.notes.append(f"{NOT_SCORED}{row['errors'][0]}")
        return candidate
    case = case_of(row)
    if case is not None:
        candidate.case, candidate.rule = case[0], f"{case[1]} (the rubric's {case[0]})"
        candidate.auto_points = candidate.points = scheme.case_points(case[0])
        candidate.notes.append(f"{case[1]}: the rubric's {case[0]} points, none for resemblance")
        return candidate
    behaviour_max, style_max = scheme.parts(behaved)
    candidate.behaviour_max, candidate.style_max = behaviour_max, style_max
    if behaviour_max:
        agreement = row.get(BEHAVIOUR)
        if _finite(agreement):
            candidate.behaviour = float(agreement)
            candidate.behaviour_points = round(float(agreement) * behaviour_max, 2)
        else:
            why = not_run_reason(row) or "no behaviour score"
            candidate.notes.append(f"behaviour not run ({why}): 0 of its {behaviour_max:g} points")
    metric, value = scheme.metric, metric_value(row, scheme.metric)
    if not _finite(value) and scheme.fallback and _finite(metric_value(row, scheme.fallback)):
        if ran:
            candidate.notes.append(f"{LABELS.get(metric, metric)} not computed; points from "
                                   f"{LABELS.get(scheme.fallback, scheme.fallback)}")
        metric, value = scheme.fallback, metric_value(row, scheme.fallback)
    style = 0.0
    if _finite(value):
        candidate.score, candidate.metric = float(value), metric_column(row, metric)
        style, candidate.rule = scheme.style_points(float(value), style_max)
        candidate.thresholds = scheme.thresholds
    elif style_max:
        candidate.notes.append(f"no {LABELS.get(metric, metric)} score")
    candidate.auto_points = candidate.points = round(candidate.behaviour_points + style, 2)
    return candidate


def _late(grade: ProblemGrade, row: dict[str, Any], rubric: Rubric) -> None:
    """The rubric's late policy on a late row's points (``late``)."""
    days = days_late(row.get("late"), row.get("days_late"))
    if not days or rubric.late is None:
        if days:
            grade.late_days = days
        return
    grade.late_days = days
    grade.late_points = rubric.late.points_off(days, grade.max_points, grade.points)
    grade.points = round(grade.points - grade.late_points, 6)
    shown = round(days, 2)
    grade.notes.append(f"late {shown:g} day{'s' * (shown != 1)} ({rubric.late.words()}): -{grade.late_points:g}")


def _adjust(book: Gradebook, adjustments: list[Adjustment], anonymised: bool = False) -> None:
    index: dict[str, StudentGrade] = {}
    for student in book.students:
        for name in (student.key, student.name, student.student_id, student.lms_name, student.sis_user_id,
                     student.sis_login_id):
            if name:
                index.setdefault(name, student)
    for adjustment in adjustments:
        student = index.get(adjustment.student) or by_real_name(book.students, adjustment.student)
        if student is None:
            who = "of the pseudonym it gives (under --anonymise, adjustments name pseudonyms)" if anonymised \
                else repr(adjustment.student)
            book.notes.append(f"adjustments line {adjustment.line}: no student {who} in this run")
            continue
        if adjustment.problem is None:
            student.total_adjustments.append(adjustment)
            continue
        grade = student.problems.get(adjustment.problem)
        if grade is None:
            book.notes.append(f"adjustments line {adjustment.line}: no problem {adjustment.problem!r} in this run")
            continue
        grade.adjustments.append(adjustment)
        grade.points = round(max(0.0, adjustment.apply(grade.points)), 6)
