"""From a class to the grader's items: each student's files matched to problems, the starter
code taken out, the roster checked.

A file belongs to a problem when

1. it matches one of the problem's ``files`` patterns (mapping key; ``--pattern`` on the command
   line; matched against the file's name, or its path inside the submission when the pattern has
   a ``/``, case ignored); else
2. its name without the extension (Canvas's ``-1`` suffix ignored), or a folder it is in, is the
   problem's name or a reference's name (case, spaces, ``-`` and ``_`` ignored); else
3. the class has one problem and the file is in that problem's language (a notebook counts as
   Python).

Several files of one student for one problem are joined in name order (a Canvas file handed in
again, ``name-1.py``, is a version of ``name.py``, never joined: ``resubmissions``). A file no
problem takes is listed as unmatched (report and stderr); a student with no file for a problem
gets an error row for it (what they handed in is named), and so does a file in another language
(its row shows that language).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from functools import partial
from pathlib import PurePosixPath
from typing import Any, Sequence

from .. import languages
from ..errors import InputFileError
from ..grade.hooks import ClassProblem
from ..grade.items import GradeItem, ItemSet
from ..grade.rows import HANDED_NOTHING_IN
from .model import ClassInput, Student, Submission, SubmittedFile
from ..grade.notebook import Cells, code_of, is_notebook, shift
from .roster import RosterEntry, match_roster, squashed
from .resubmissions import resubmission_note, versioned_items
from ..grade.starter import Starter, starter_free_references, starter_free_text


def problem_names(problem: ClassProblem) -> set[str]:
    """The squashed names a file may carry to belong to ``problem``."""
    found = {squashed(PurePosixPath(r).stem) for r in problem.problem.reference_names}
    if problem.name:
        found.add(squashed(problem.name))
    return {n for n in found if n}


@dataclass
class ClassReport:
    """What the report says about a class besides its rows."""

    source: str
    layout: str
    students: int = 0
    missing_students: list[str] = field(default_factory=list)
    not_on_roster: list[str] = field(default_factory=list)
    unmatched_files: list[str] = field(default_factory=list)
    refused: int = 0
    roster: int | None = None  # how many students the roster names (None: no roster)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "layout": self.layout, "students": self.students,
                "roster_students": self.roster, "missing_students": self.missing_students,
                "not_on_roster": self.not_on_roster, "unmatched_files": self.unmatched_files,
                "refused_entries": self.refused}

    def notes(self) -> list[str]:
        """The stderr lines."""
        out = [f"{self.source}: {headcount(self.to_dict())}"] if self.roster is not None else []
        if self.missing_students:
            out.append(f"{self.source}: {len(self.missing_students)} student(s) on the roster handed nothing in: "
                       + ", ".join(self.missing_students))
        if self.not_on_roster:
            out.append(f"{self.source}: not on the roster (graded): " + ", ".join(self.not_on_roster))
        if self.unmatched_files:
            out.append(f"{self.source}: {len(self.unmatched_files)} file(s) matched no problem (not graded): "
                       + ", ".join(self.unmatched_files[:20]) + (" ..." if len(self.unmatched_files) > 20 else ""))
        return out


def headcount(info: dict[str, Any]) -> str:
    """``4 students handed something in (3 of the 5 on the roster, 1 not on it)``: who a class's
    rows come from (``ClassReport.to_dict``'s ``info``; the HTML page's class section and the
    terminal note alike), never a bare "4 students" that could be read as the roster's."""
    students = int(info.get("students") or 0)
    said = f"{students:,} student{'s' * (students != 1)} handed something in"
    roster = info.get("roster_students")
    if roster is None:
        return said
    strangers = len(info.get("not_on_roster") or ())
    handed = int(roster) - len(info.get("missing_students") or ())
    return (f"{said} ({handed:,} of the {int(roster):,} on the roster"
            + (f", {strangers:,} not on it)" if strangers else ")"))


def file_language(name: str) -> str | None:
    """The language a file's name says (a notebook: Python), None when it says none."""
    if is_notebook(name):
        return "python"
    try:
        return languages.for_path(name).name
    except languages.UnknownLanguageError:
        return None


_CANVAS_AGAIN = re.compile(r"-\d+$")


def _stem_keys(file: SubmittedFile) -> set[str]:
    path = PurePosixPath(file.name)
    keys = {squashed(path.stem), squashed(_CANVAS_AGAIN.sub("", path.stem))}
    keys.update(squashed(part) for part in path.parts[:-1])
    return keys


def _by_pattern(file: SubmittedFile, patterns: Sequence[str]) -> bool:
    target = file.name.lower()
    base = PurePosixPath(file.name).name.lower()
    return any(fnmatch.fnmatchcase(target if "/" in p else base, p.lower()) for p in patterns)


def assign(submission: Submission, problems: Sequence[ClassProblem]) -> tuple[dict[int, list[SubmittedFile]],
                                                                              list[SubmittedFile]]:
    """(problem index -> the student's files for it, files no problem takes)."""
    taken: dict[int, list[SubmittedFile]] = {i: [] for i in range(len(problems))}
    left: list[SubmittedFile] = []
    for file in submission.files:
        owner = next((i for i, p in enumerate(problems) if p.patterns and _by_pattern(file, p.patterns)), None)
        if owner is None:
            keys = _stem_keys(file)
            owner = next((i for i, p in enumerate(problems) if not p.patterns and keys & problem_names(p)), None)
        if owner is None and len(problems) == 1 and not problems[0].patterns and \
                problems[0].takes(file_language(file.name)):
            owner = 0
        if owner is None:
            left.append(file)
        else:
            taken[owner].append(file)
    return taken, left


def _label(student: Student) -> str:
    return f"{student.name} ({student.id})" if student.id and student.id != student.name else student.name


def class_items(cls: ClassInput, problems: Sequence[ClassProblem],
                roster: Sequence[RosterEntry] | None = None) -> tuple[ItemSet, ClassReport]:
    """One item per student and problem, error rows for refused entries and missing students."""
    result = ItemSet(notes=list(cls.notes))
    report = ClassReport(cls.source, cls.layout, len(cls.submissions), refused=len(cls.refused))
    for file in cls.refused:
        result.items.append(GradeItem(id=file.name, candidate=None, references=(), language=None,
                                      source=file.origin, error=file.error))
    again: dict[str, dict[str, list[str]]] = {}  # policy -> student -> files the graded version leaves out
    for submission in cls.submissions:
        taken, left = assign(submission, problems)
        report.unmatched_files.extend(f.origin for f in left)
        for index, problem in enumerate(problems):
            items, earlier = versioned_items(submission, problem.resubmissions, taken[index],
                                             partial(_item, submission, problem, left=left))
            result.items.extend(items)
            if earlier:
                again.setdefault(problem.resubmissions, {}).setdefault(_label(submission.student), []).extend(earlier)
    result.notes.extend(n for policy, who in again.items() if (n := resubmission_note(cls.source, policy, who)))
    if roster is not None:
        _check_roster(cls, problems, roster, result, report)
    return result, report




def _base_item(student: Student, problem: ClassProblem, late: bool | None,
               days_late: float | None = None) -> GradeItem:
    prefix = f"{problem.name}/" if problem.name else ""
    refs, all_starter = problem.problem.references, None
    if problem.starter is not None:
        refs, all_starter = starter_free_references(problem.problem.reference_names, refs, problem.starter)
    item = GradeItem(id=prefix + _label(student), candidate=None, references=refs,
                     language=problem.problem.language, context=problem.problem.context, problem=problem.name,
                     reference_names=problem.problem.reference_names,
                     reference_cells=problem.problem.reference_cells, student=student.name,
                     student_id=student.id, late=late, inputs=problem.problem.inputs)
    if days_late is not None:  # the layout says how late (``late.days_late`` reads it)
        item.extra["days_late"] = round(days_late, 4)
    if problem.problem.error:
        item.error = f"reference: {problem.problem.error}"
    elif all_starter:
        item.error = all_starter
    return item


def _item(submission: Submission, problem: ClassProblem, files: list[SubmittedFile],
          left: list[SubmittedFile]) -> GradeItem:
    item = _base_item(submission.student, problem, submission.late, submission.days_late)
    item.source = "; ".join(f.origin for f in files) or None
    if item.error:
        return item
    if not files:
        other = [f for f in left if file_language(f.name)]
        wrong = next((f for f in other if not problem.takes(file_language(f.name))), None)
        if wrong is not None and len(other) == 1 and len(left) == len(other):
            item.language, item.source = file_language(wrong.name), wrong.origin
            item.error = f"{wrong.origin}: wrong language ({item.language}; the reference is {problem.problem.language})"
        else:
            handed = ", ".join(f.name for f in submission.files) or "nothing"
            item.error = f"no file for problem {problem.name or 'the reference'} (handed in: {handed})"
        return item
    _read(item, files, problem)
    return item


def _read(item: GradeItem, files: list[SubmittedFile], problem: ClassProblem) -> None:
    pieces: list[tuple[str, Cells | None]] = []
    for file in files:
        language = file_language(file.name)
        if file.error or file.text is None:
            item.error = file.error or f"{file.origin}: not read"
            return
        if language is not None and not problem.takes(language):
            item.language = language
            item.error = f"{file.origin}: wrong language ({language}; the reference is {problem.problem.language})"
            return
        try:
            text, found, _ = code_of(file.text, file.origin)
        except InputFileError as error:
            item.error = str(error)
            return
        pieces.append((text, found))
    item.candidate, cells = joined(pieces)
    item.cells = cells or None
    handed = bool(item.candidate.strip())  # an empty file is "empty", never "nothing but the starter code"
    if problem.starter is not None:
        item.candidate = starter_free_text(item.candidate, problem.starter, keep_lines=True)  # lines stay put
    if not item.candidate.strip():
        why = "nothing but the starter code" if problem.starter is not None and handed else "empty submission"
        item.error = f"{item.source}: {why} (nothing to score)"


def joined(pieces: Sequence[tuple[str, Cells | None]]) -> tuple[str, Cells]:
    """Several files' texts as one, in order, a blank line between files; their notebook cell
    maps shifted to where each file now starts."""
    if len(pieces) == 1:
        return pieces[0][0], pieces[0][1] or ()
    texts, cells, line = [], (), 0
    for text, found in pieces:
        body = text.rstrip("\n") + "\n"
        if found:
            cells = cells + shift(found, line)
        texts.append(body)
        line += body.count("\n") + 1  # the blank line that joins files
    return "\n".join(texts), cells


def submission_text(submission: Submission, starter: Starter | None = None) -> str:
    """The text a submission is scored on: its readable files' code (a notebook's code cells)
    joined in name order, less the starter code (``starter_free_text``). For the similarity
    report and anything else that compares students' work."""
    pieces = []
    for file in submission.files:
        if file.text is None:
            continue
        try:
            text, found, _ = code_of(file.text, file.origin)
        except InputFileError:
            continue
        pieces.append((text, found))
    text = joined(pieces)[0] if pieces else ""
    return starter_free_text(text, starter) if starter is not None else text


def _check_roster(cls: ClassInput, problems: Sequence[ClassProblem], roster: Sequence[RosterEntry],
                  result: ItemSet, report: ClassReport) -> None:
    missing, strangers = match_roster(roster, [s.student for s in cls.submissions])
    report.roster = len(roster)
    for entry in missing:
        report.missing_students.append(entry.label)
        for problem in problems:
            item = _base_item(Student(entry.name, entry.ids[0] if entry.ids else None), problem, None)
            item.error = item.error or f"{entry.label}: {HANDED_NOTHING_IN}"
            result.items.append(item)
    report.not_on_roster = [_label(s) for s in strangers]
