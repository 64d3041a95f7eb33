"""Grade-book CSV files an LMS imports, and a generic points table, from a ``Gradebook``.

* Canvas (Grades -> Import): ``Student, ID, SIS User ID, SIS Login ID, Section`` then one
  column for the assignment, named ``ASSIGNMENT`` (Canvas matches an existing assignment by the
  name with its id, ``Week 3 (1234)``; another name makes a new column), and a ``Points
  Possible`` row as Canvas's own export has. ``ID`` is the Canvas user id (from the Canvas
  download's file names); the SIS columns come from the roster where it has them.
* Moodle (Assignment -> Upload grading worksheet): ``Identifier`` (``Participant N``, the id in
  Moodle's download folder names), ``Full name``, ``Grade``, ``Maximum Grade``, ``Feedback
  comments``.
* Points: one row per student, a column per problem, the days late the LMS marked and the
  points the rubric's late policy took off (``late``; empty where not late), the total, the
  maximum and the notes.

Every cell that a spreadsheet would read as a formula gets a leading ``'`` (``writers.neutralise``).
"""

from __future__ import annotations

import csv
import io
from typing import Any, Sequence

from ..grade.writers import neutralise
from .gradebook import Gradebook, StudentGrade, named

CANVAS_HEAD = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: points.csv's column for the one unnamed problem of a ``-r`` run.
UNNAMED_COLUMN = "points"
MOODLE_HEAD = ("Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return neutralise(str(value))


def _csv(rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return buffer.getvalue()


def _extra(student: StudentGrade, key: str) -> Any:
    """A roster field (``sis_user_id``, ``sis_login_id``, ``section``) from the student's rows."""
    return next((r.get(key) for r in student.rows if r.get(key)), None)


def canvas_csv(book: Gradebook, assignment: str) -> str:
    """The Canvas gradebook import file."""
    rows: list[list[Any]] = [[*CANVAS_HEAD, assignment], ["    Points Possible", "", "", "", "", book.max_total]]
    for student in book.students:
        rows.append([student.name, student.student_id or "", student.sis_user_id or _extra(student, "sis_user_id"),
                     student.sis_login_id or _extra(student, "sis_login_id"),
                     student.section or _extra(student, "section"), student.total])
    return _csv(rows)


def moodle_identifier(student: StudentGrade) -> str:
    """Moodle's worksheet identifier: ``Participant N`` for a Moodle id, else the key as it is."""
    ident = student.student_id
    return f"Participant {ident}" if ident and ident.isdigit() else student.key


def moodle_csv(book: Gradebook) -> str:
    """The Moodle grading worksheet to upload."""
    rows: list[list[Any]] = [list(MOODLE_HEAD)]
    for student in book.students:
        rows.append([moodle_identifier(student), student.name, student.total, book.max_total,
                     student.feedback_line()])
    return _csv(rows)


#: points.csv's own columns, before and after the problems'.
POINTS_HEAD, POINTS_TAIL = ("student", "student_id"), ("late_days", "late_points", "total", "max_total", "notes")


def problem_column(problem: str) -> str:
    """A problem's points.csv column: its name, ``total (problem)`` where the name is one of the
    table's own columns (a mapping names a problem after ``refs/total.py`` by default)."""
    if not problem:
        return UNNAMED_COLUMN
    return f"{problem} (problem)" if problem in (*POINTS_HEAD, *POINTS_TAIL) else problem


def points_csv(book: Gradebook) -> str:
    """One row per student: points per problem, total, maximum, notes."""
    header = [problem_column(p) for p in book.problems]
    rows: list[list[Any]] = [[*POINTS_HEAD, *header, *POINTS_TAIL]]
    for student in book.students:
        notes = [f"{named(p.problem)}{n}" for p in student.problems.values() for n in p.notes]
        notes += [f"{named(p.problem)}adjusted {a.shown()}" for p in student.problems.values() for a in p.adjustments]
        notes += [f"total adjusted {a.shown()}" for a in student.total_adjustments]
        days = max((p.late_days for p in student.problems.values()), default=0.0)
        off = round(sum(p.late_points for p in student.problems.values()), 6)
        rows.append([student.name, student.student_id or "", *(student.problems[p].points for p in book.problems),
                     float(days) if days else None, off if days else None, student.total, book.max_total,
                     "; ".join(notes)])
    return _csv(rows)
