"""A roster: the students a class should have (``--roster FILE``).

A CSV file with a header (a name column: ``name``, ``student``, ``full name`` or ``student name``;
an id column: ``id``, ``student_id``, ``sis user id``, ``user id``, ``login``, ``username``,
``email`` or ``sid``; either may be missing), or a text file of one name per line. A submission
is the student's when the ids agree, else (when one side has no id) when the names agree after
case, accents, spaces and punctuation are dropped, in either order of the words (Canvas writes
"lovelaceada" for "Ada Lovelace"); two students of one name are told apart by their ids. Roster students with no submission are listed as missing (and get an error row per
problem); submissions of students not on the roster are listed too (and graded).

The LMS's own exports read as rosters: Canvas's gradebook export (``Student, ID, SIS User ID,
SIS Login ID, Section``; its ``Points Possible`` row and the test student are no students), and
Moodle's grading worksheet (``Identifier`` = ``Participant 12345``, the id of Moodle's download
folder names). A roster's name (``Okafor, Ada``), SIS ids and section are what every grade book
and feedback page shows (``gradebook``), and adjustments may name the student by it.

In a grade book (``apply_roster``, issue 42 item 4): an LMS download names a student its own way
(Canvas: ``okaforada``); the roster the teacher gives (``--roster``, e.g. Canvas's gradebook
export) names them as the LMS's grade book does (``Okafor, Ada``) and holds the ``SIS User ID``,
``SIS Login ID`` and ``Section`` that Canvas's import reads. Every grade book, feedback page and
autograder result takes the roster's name; the download's name is kept (``lms_name``) and, like
the real name in either order, names the student in the adjustments file (``by_real_name``).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from ..errors import InputFileError
from ..files.sources import read_source
from .model import Student

if TYPE_CHECKING:
    from .gradebook import Gradebook, StudentGrade

_NAME_COLUMNS = ("name", "student", "full name", "student name", "fullname")
_ID_COLUMNS = ("id", "identifier", "student_id", "student id", "sis user id", "user id", "sid", "login", "username",
               "email", "email address", "sis login id", "github", "github username")
#: Canvas's gradebook export rows that are no students: its points row and its test student.
_NOT_STUDENTS = frozenset({"points possible", "student, test", "test student"})
#: Moodle's worksheet identifier, ``Participant 12345``: the id is the number.
_PARTICIPANT = re.compile(r"^participant\s+(\d+)$", re.IGNORECASE)


def squashed(text: str) -> str:
    """Lower case letters and digits only, accents dropped."""
    plain = unicodedata.normalize("NFKD", text)
    return "".join(c for c in plain.lower() if c.isalnum() and not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def name_keys(name: str) -> frozenset[str]:
    """The forms a name may take in an LMS layout ("Ada Lovelace": adalovelace, lovelaceada)."""
    words = name.replace(",", " ").split()
    keys = {squashed(name)}
    if len(words) > 1:
        keys.add(squashed(words[-1] + "".join(words[:-1])))
        if "," in name:  # "Lovelace, Ada"
            last, _, first = name.partition(",")
            keys.add(squashed(first + last))
    return frozenset(k for k in keys if k)


@dataclass(frozen=True)
class RosterEntry:
    """One expected student."""

    name: str
    ids: tuple[str, ...] = ()
    sis_user_id: str | None = None  # Canvas's columns, where the roster has them
    sis_login_id: str | None = None
    section: str | None = None

    def owns(self, student: Student) -> bool:
        """True when ``student`` (from a layout) is this roster entry."""
        mine = {squashed(i) for i in self.ids if i}
        theirs = {squashed(i) for i in (student.id, student.login) if i}
        if mine & theirs:
            return True
        if mine and theirs:  # both sides have ids and none agrees: another student of the same name
            return False
        return bool(name_keys(self.name) & (name_keys(student.name) | theirs))

    @property
    def label(self) -> str:
        return f"{self.name} ({self.ids[0]})" if self.ids else self.name


def load_roster(path: str | Path) -> list[RosterEntry]:
    """The roster at ``path`` (InputFileError, one line, when it cannot be read or is empty)."""
    text = read_source(path)
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InputFileError(f"{path}: the roster is empty")
    header = [cell.strip().lower() for cell in next(csv.reader([lines[0]]))]
    names = [i for i, h in enumerate(header) if h in _NAME_COLUMNS]
    ids = sorted((i for i, h in enumerate(header) if h in _ID_COLUMNS), key=lambda i: _ID_COLUMNS.index(header[i]))
    if not names and not ids:
        return [RosterEntry(line.strip()) for line in lines]
    extra = {key: header.index(key) for key in ("sis user id", "sis login id", "section") if key in header}
    out = []
    for row in csv.reader(io.StringIO("\n".join(lines[1:]))):
        cells = [c.strip() for c in row]
        name = next((cells[i] for i in names if i < len(cells) and cells[i]), "")
        if name.lower() in _NOT_STUDENTS:
            continue
        found = tuple(_plain_id(cells[i]) for i in ids if i < len(cells) and cells[i])
        more = {key.replace(" ", "_"): cells[i] for key, i in extra.items() if i < len(cells) and cells[i]}
        if name or found:
            out.append(RosterEntry(name or found[0], found, **more))
    if not out:
        raise InputFileError(f"{path}: the roster lists no student")
    return out


def _plain_id(cell: str) -> str:
    """An id as the layouts give it: Moodle's ``Participant 12345`` is ``12345``."""
    found = _PARTICIPANT.match(cell)
    return found[1] if found else cell


def roster_index(roster: Sequence[RosterEntry]) -> Callable[[Student], RosterEntry | None]:
    """A lookup of the roster entry that is a student (``RosterEntry.owns``, ids agreeing first),
    through an index of ids and name forms built once (a 1,000-student class in milliseconds)."""
    by_id: dict[str, RosterEntry] = {}
    by_name: dict[str, list[RosterEntry]] = {}
    for entry in roster:
        for key in _ids(entry.ids):
            by_id.setdefault(key, entry)
        for key in name_keys(entry.name):
            by_name.setdefault(key, []).append(entry)

    def find(student: Student) -> RosterEntry | None:
        ids = _ids((student.id, student.login))
        found = next((by_id[key] for key in sorted(ids) if key in by_id), None)
        if found is not None:
            return found
        forms = name_keys(student.name) | ids
        return next((e for key in sorted(forms) for e in by_name.get(key, ()) if e.owns(student)), None)

    return find


def _ids(values: "tuple[str | None, ...]") -> frozenset[str]:
    return frozenset(squashed(v) for v in values if v)


def match_roster(roster: Sequence[RosterEntry], students: Sequence[Student]) -> tuple[list[RosterEntry], list[Student]]:
    """(roster entries no student is, students no roster entry is), by ``RosterEntry.owns``'s
    rule, through an index of ids and name forms (a 1,000-student class in milliseconds)."""
    by_key: dict[str, list[int]] = {}
    keys = []
    for index, student in enumerate(students):
        ids = _ids((student.id, student.login))
        keys.append(ids)
        for key in ids | name_keys(student.name):
            by_key.setdefault(key, []).append(index)
    owned: set[int] = set()
    missing = []
    for entry in roster:
        mine = _ids(entry.ids)
        found = {i for key in mine for i in by_key.get(key, []) if key in keys[i]}
        if not found:
            found = {i for key in name_keys(entry.name) for i in by_key.get(key, [])
                     if not (mine and keys[i] and not mine & keys[i])}
        if found:
            owned |= found
        else:
            missing.append(entry)
    return missing, [s for i, s in enumerate(students) if i not in owned]


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
