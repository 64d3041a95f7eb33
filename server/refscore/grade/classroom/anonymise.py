"""``--anonymise``: every student is a stable pseudonym in every report a grader sees.

The submissions are renamed as soon as they are read, before anything is scored or cached, so
the reports, the feedback pages, the points table, the similarity report and the scored-parts
cache hold pseudonyms only: the id becomes ``PROBLEM/S-7F3A2C`` and the source and student
fields the pseudonym. The teacher's key file (CSV: ``pseudonym,student,student_id``) maps them
back; it is read on every run, so a student keeps their pseudonym across re-grades, and new
students get a new random one. It is written outside the graders' report folder, beside the
LMS uploads that need the real names (``lms_csv`` through ``reveal_students``).
"""

from __future__ import annotations

import csv
import io
import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from ...errors import InputFileError
from ..items import GradeItem
from .gradebook import Gradebook, StudentGrade, student_keys

KEY_HEADER = ("pseudonym", "student", "student_id")


@dataclass
class PseudonymKey:
    """Pseudonym <-> student, as the key file holds it."""

    by_student: dict[str, str] = field(default_factory=dict)  # student key -> pseudonym
    people: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # pseudonym -> (name, id)

    def pseudonym(self, key: str, name: str, ident: str | None) -> str:
        """The student's pseudonym (a new one for a student the key does not know)."""
        known = self.by_student.get(key)
        if known is not None:
            return known
        while True:
            made = f"S-{secrets.token_hex(3).upper()}"
            if made not in self.people:
                break
        self.by_student[key] = made
        self.people[made] = (name, ident)
        return made


def read_key(path: Path) -> PseudonymKey:
    """The key file at ``path`` (empty when it does not exist yet)."""
    key = PseudonymKey()
    if not path.exists():
        return key
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputFileError(f"{path}: cannot read the pseudonym key ({error})") from None
    reader = csv.DictReader(io.StringIO(text))
    if not set(KEY_HEADER) <= set(reader.fieldnames or []):
        raise InputFileError(f"{path}: not a pseudonym key (expected the columns {', '.join(KEY_HEADER)})")
    for row in reader:
        pseudonym, name, ident = row["pseudonym"].strip(), row["student"], row["student_id"] or None
        if pseudonym:
            key.people[pseudonym] = (name, ident)
            key.by_student[ident or name] = pseudonym
    return key


def write_key(path: Path, key: PseudonymKey) -> None:
    """Write the key file (atomically; readable by its owner only)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(KEY_HEADER)
    for pseudonym, (name, ident) in sorted(key.people.items()):
        writer.writerow([pseudonym, name, ident or ""])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(buffer.getvalue())
    os.replace(tmp, path)


def anonymise_items(items: Sequence[GradeItem], key: PseudonymKey) -> list[GradeItem]:
    """The items with every trace of the student's name replaced by their pseudonym."""
    rows = [{"id": i.id, "problem": i.problem, "student": getattr(i, "student", None),
             "student_id": getattr(i, "student_id", None)} for i in items]
    out = []
    for item, (student, name, ident) in zip(items, student_keys(rows)):
        pseudonym = key.pseudonym(student, name, ident)
        changes: dict[str, object] = {"id": f"{item.problem}/{pseudonym}" if item.problem else pseudonym,
                                      "source": pseudonym}
        if hasattr(item, "student"):
            changes.update(student=pseudonym, student_id=None)
        out.append(replace(item, **changes))  # type: ignore[arg-type]
    return out


def reveal_students(book: Gradebook, key: PseudonymKey) -> Gradebook:
    """The grade book with real names and ids again (for the teacher's LMS uploads only)."""
    students = []
    for student in book.students:
        name, ident = key.people.get(student.key, (student.name, student.student_id))
        students.append(StudentGrade(ident or name, name, ident, student.problems, student.total_adjustments,
                                     student.rows))
    return Gradebook(book.rubric, book.problems, students, list(book.notes))
