"""The roster's names, SIS ids and sections in a grade book (issue 42 item 4).

An LMS download names a student its own way (Canvas: ``okaforada``); the roster the teacher
gives (``--roster``, e.g. Canvas's gradebook export) names them as the LMS's grade book does
(``Okafor, Ada``) and holds the ``SIS User ID``, ``SIS Login ID`` and ``Section`` that Canvas's
import reads. Every grade book, feedback page and autograder result takes the roster's name; the
download's name is kept (``lms_name``) and, like the real name in either order, names the student
in the adjustments file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .model import Student
from .roster import RosterEntry, name_keys, roster_index

if TYPE_CHECKING:
    from .gradebook import Gradebook, StudentGrade


def apply_roster(book: "Gradebook", roster: Sequence[RosterEntry]) -> "Gradebook":
    """``book`` with each student the roster has named as the roster names them (in place)."""
    find = roster_index(roster)
    for student in book.students:
        entry = find(Student(student.name, student.student_id)) if roster else None
        if entry is None:
            continue
        if entry.name != student.name:
            student.lms_name, student.name = student.name, entry.name
        student.sis_user_id = entry.sis_user_id or student.sis_user_id
        student.sis_login_id = entry.sis_login_id or student.sis_login_id
        student.section = entry.section or student.section
    return book


def by_real_name(students: Sequence["StudentGrade"], written: str) -> "StudentGrade | None":
    """The one student whose name or download name is ``written`` in some order of its words
    (``Ada Okafor`` for ``Okafor, Ada``), case, accents and punctuation aside; None when no
    student or more than one is."""
    wanted = name_keys(written)
    found = [s for s in students if wanted & (name_keys(s.name) | (name_keys(s.lms_name) if s.lms_name else set()))]
    return found[0] if len(found) == 1 else None
