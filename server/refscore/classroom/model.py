"""The classroom data model: who handed in what, read from an LMS export.

Every layout reader (Moodle, Canvas, GitHub Classroom, plain in ``layouts``; ``gradescope``)
turns a zip archive or a folder into ``Submission`` objects; the grader turns each into one
``GradeItem`` (its ``student``, ``student_id`` and ``late`` fields become report columns of the
same names). Rubrics, grade-book exports, feedback pages and similarity read these fields, never
the layout's file names.

* ``Student.name`` is the name the LMS shows (Moodle "Ada Lovelace", Canvas "lovelaceada", a
  GitHub user name, a plain folder's name); ``Student.id`` the LMS's own id where the layout has
  one (Moodle participant id, Canvas user id, Gradescope SID or submission id), else None;
  ``Student.key`` is the one stable identifier (id, else name).
* ``Submission.files`` holds every file the student handed in for one problem, already read
  (``SubmittedFile.text``; never a path to read later), in name order; ``problem`` is the
  problem it was matched to (by file name or the mapping file), None while unmatched.
* ``late`` is the LMS's late mark (Canvas ``late`` in the file name, Gradescope's
  ``submission_metadata.yml`` after the due date); None where the layout has no such mark (a
  Moodle, GitHub Classroom or plain download, Gradescope metadata without ``:late:``): the
  report's column is then empty, never a "not late" the download does not say.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Student:
    """One student as the LMS names them."""

    name: str
    id: str | None = None  # the LMS's id where the layout has one
    login: str | None = None  # e-mail or user name where the layout has it (Gradescope, GitHub)

    @property
    def key(self) -> str:
        """The stable identifier: the LMS id, else the name."""
        return self.id or self.name


@dataclass(frozen=True)
class SubmittedFile:
    """One file a student handed in, read (text) or refused (error, never read)."""

    name: str  # path inside the student's submission, '/'-separated, as the LMS named it
    origin: str  # where it was read: a path, or "archive.zip!entry/name"
    text: str | None = None  # the file's text (a notebook: its JSON); None when ``error``
    error: str | None = None


@dataclass(frozen=True)
class Submission:
    """What one student handed in for one problem."""

    student: Student
    files: tuple[SubmittedFile, ...]
    problem: str | None = None  # None while not matched to a problem
    language: str | None = None  # the problem's language once matched
    late: bool | None = None
    layout: str = "plain"  # one of classroom_choices.LAYOUTS
    error: str | None = None  # why it cannot be scored (reported as its row's error)
    days_late: float | None = None  # how late, where the layout has the times (Gradescope's autograder)

    def with_problem(self, problem: str | None, files: tuple[SubmittedFile, ...],
                     language: str | None = None) -> "Submission":
        """The same student's submission to ``problem``, made of ``files``."""
        return replace(self, problem=problem, files=files, language=language)


@dataclass
class ClassInput:
    """A class read from one archive or folder: each student's files (problem not yet matched)
    and the entries that are error rows of their own (a zip-slip name, a link, ...)."""

    layout: str
    source: str  # the archive or folder, as given
    submissions: list[Submission] = field(default_factory=list)
    refused: list[SubmittedFile] = field(default_factory=list)  # entries never read, each an error row
    notes: list[str] = field(default_factory=list)
