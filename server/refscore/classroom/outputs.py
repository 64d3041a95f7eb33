"""The classroom outputs of a ``grade`` run: what was asked for (``ClassroomOutputs``) and writing
them from the assembled rows (``write_classroom``), after scoring and from the cache alike.

From the rows and the rubric: the points table, the Canvas and Moodle uploads, one feedback page
(HTML and Markdown) per student, Gradescope's ``results.json`` and GitHub Classroom's summary.
Nothing here scores: a changed rubric or adjustments file re-grades from the cached parts.

At the end of a run (``write_outputs``), rows that are not grades (an interrupted run, a problem
nothing could be graded for, no row with a score) get no grade book or feedback page, which would
hold zeros that look like points; the pseudonym key alone is kept, so that a rerun gives the same
pseudonyms. Ctrl-C while they are written writes them again whole (a second Ctrl-C stops), as
the reports are: a folder never holds one run's feedback pages beside an earlier run's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import UsageError
from ..safe_write import replace_file
from ..grade.targets import OutputFileError, is_stream
from ..grade.rows import GradeResult
from ..grade.classroom_choices import DEFAULT_REVEAL
from ..grade.terminal import note
from ..grade.writers import replace_report
from .adjustments import read_adjustments
from .anonymise import PseudonymKey, earlier_names_note, read_key, reveal_students, write_key
from .autograders import classroom_summary, gradescope_results
from .feedback import details_by_id, student_feedback
from .gradebook import Gradebook, build_gradebook, student_keys
from .roster import RosterEntry, apply_roster
from .rubric import Rubric, load_rubric  # noqa: F401 - load_rubric: the command line's, with ClassroomOutputs

if TYPE_CHECKING:
    from ..grade.assemble import Assembled
    from ..grade.parts import PartStore
    from ..grade.plan import Plan



@dataclass(frozen=True)
class ClassroomOutputs:
    """What a run writes besides the score reports (paths None: not asked for)."""

    rubric: Rubric | None = None
    adjustments: Path | None = None  # the teacher's file (default: the rubric's ``adjustments``)
    adjustments_folder: Path | None = None  # where a missing one may be created (None: its own folder)
    points: Path | None = None
    canvas: Path | None = None
    moodle: Path | None = None
    assignment: str = "RefScore"  # the Canvas column (``Week 3 (1234)`` matches an assignment)
    feedback: Path | None = None  # a folder: STUDENT.html and STUDENT.md per student
    reveal: str = DEFAULT_REVEAL
    gradescope: Path | None = None
    visibility: str = "visible"
    classroom: Path | None = None  # GitHub Classroom's summary JSON
    anonymise_key: Path | None = None  # --anonymise: the teacher's key file
    graders: Path | None = None  # --anonymise: the -o DIR graders are given (where no name may stay)
    title: str = "Feedback"
    roster: tuple[RosterEntry, ...] = ()  # --roster: the names, SIS ids and sections of the grade books

    @property
    def needs_details(self) -> bool:
        """Feedback pages need every submission's texts and full report."""
        return self.feedback is not None or self.gradescope is not None

    def check_items(self, items: Sequence[Any]) -> None:
        """Refuse, before anything is scored, a run these outputs cannot be written for:
        ``--gradescope`` writes one submission's results (``UsageError``, exit 2, no file written)."""
        if self.gradescope is None:
            return
        rows = [{"id": i.id, "problem": i.problem, "student": i.student, "student_id": i.student_id} for i in items]
        students = len({key for key, _, _ in student_keys(gradescope_rows(rows))})
        if students != 1:
            raise UsageError(f"--gradescope writes one submission's results (Gradescope runs the autograder once "
                             f"per submission); this run has {students} students. In run_autograder, read "
                             "/autograder/submission as the one submission: layout = \"gradescope\" on the "
                             "mapping's problems (or --layout gradescope)")

    def named_outputs(self) -> dict[str, Path]:
        """Option name -> file, for every file written besides the feedback pages (checked, like
        the reports, against the run's inputs and each other before anything is scored)."""
        named = {"points": self.points, "canvas": self.canvas, "moodle": self.moodle, "gradescope": self.gradescope,
                 "classroom-summary": self.classroom, "anonymise-key": self.anonymise_key}
        return {kind: path for kind, path in named.items() if path is not None}


@dataclass
class ClassroomResult:
    """What was written and whether the GitHub Classroom pass mark was reached."""

    book: Gradebook | None  # None: no rubric (only --anonymise)
    written: list[Path]
    notes: list[str]
    passed: bool | None = None  # None: no summary asked for
    pages: Path | None = None  # the feedback pages' folder (the summary counts the files in it in one line)


#: Latin letters that Unicode does not decompose into a base letter and an accent.
_UNDECOMPOSED = str.maketrans({"Ø": "O", "ø": "o", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "ß": "ss",
                               "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Þ": "Th", "þ": "th", "ı": "i"})


#: Names Windows keeps for devices, with any extension (``CON.html`` is the console there).
_WINDOWS_DEVICE = re.compile(r"(?i)con|prn|aux|nul|com[1-9]|lpt[1-9]")


def safe_name(text: str) -> str:
    """A file name for a student (ASCII letters, digits, ``-_.`` kept; never empty, hidden or a
    Windows device name: ``Con`` is ``Con_``); an accented letter keeps its base letter (``Émile``
    is ``Emile``, not ``mile``)."""
    import unicodedata

    plain = "".join(c for c in unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
                    if not unicodedata.combining(c))
    name = re.sub(r"[^\w.-]+", "_", plain, flags=re.ASCII).strip("._") or "student"
    head, dot, rest = name[:80].partition(".")  # CON.txt.html is the console too: the _ goes before the dot
    return f"{head}_{dot}{rest}" if _WINDOWS_DEVICE.fullmatch(head) else name[:80]


def feedback_stems(students: Sequence[Any]) -> dict[str, str]:
    """Each student's (``StudentGrade``) feedback file name without its extension, by key: their
    name (and id where it differs), made safe, unique even where case does not count."""
    names: set[str] = set()
    out = {}
    for student in students:
        name = safe_name(student.name if student.student_id in (None, student.name)
                         else f"{student.name}_{student.student_id}")
        while name.casefold() in names:  # Alice and alice: one file on a macOS or Windows disk
            name += "_"
        names.add(name.casefold())
        out[student.key] = name
    return out


def write_classroom(out: ClassroomOutputs, rows: Sequence[dict[str, Any]],
                    details: Sequence[tuple[GradeResult, dict[str, Any]]], key: PseudonymKey | None,
                    elapsed: float | None = None) -> ClassroomResult:
    """Write every classroom output ``out`` asks for; ``key``: the run's pseudonyms (anonymised)."""
    from . import lms_csv
    from .feedback_html import feedback_html
    from .feedback_md import feedback_markdown

    if out.rubric is None:  # --anonymise alone: the reports are pseudonymised, the key is kept
        if key is not None and out.anonymise_key is not None:
            write_key(out.anonymise_key, key)
            return ClassroomResult(None, [out.anonymise_key], [])
        return ClassroomResult(None, [], [])
    adjustments = read_adjustments(out.adjustments, out.adjustments_folder) if out.adjustments is not None else []
    if out.gradescope is not None:
        rows = gradescope_rows(rows)
    book = build_gradebook(rows, out.rubric, adjustments, out.roster if key is None else (), key is not None)
    teacher = apply_roster(reveal_students(book, key), out.roster) if key is not None else book
    written: list[Path] = []

    def put(path: Path, text: str, private: bool = False) -> None:
        try:
            if private and not is_stream(path):  # real names beside pseudonyms: the owner's only, as the key
                replace_file(path, text, mode=0o600)
            else:
                replace_report(path, lambda fh: fh.write(text))
        except OSError as error:  # a folder in the way, no permission, a full disk: one line, exit 3
            raise OutputFileError(f"{path}: cannot write it ({error.strerror or error})") from None
        written.append(path)

    if out.points is not None:
        put(out.points, lms_csv.points_csv(book))
    if out.canvas is not None:
        put(out.canvas, lms_csv.canvas_csv(teacher, out.assignment), private=key is not None)
    if out.moodle is not None:
        put(out.moodle, lms_csv.moodle_csv(teacher), private=key is not None)
    pages = {}
    if out.needs_details:
        found = details_by_id(details)
        pages = {s.key: student_feedback(s, found, out.reveal, out.title, book.max_total,
                                         getattr(book.rubric, "show_expected", True)) for s in book.students}
    if out.feedback is not None:
        stems = feedback_stems(book.students)
        for student in book.students:
            name = stems[student.key]
            put(out.feedback / f"{name}.html", feedback_html(pages[student.key]))
            put(out.feedback / f"{name}.md", feedback_markdown(pages[student.key]))
    if out.gradescope is not None:
        if len(book.students) != 1:
            raise UsageError(f"--gradescope writes one submission's results (Gradescope runs the autograder once "
                             f"per submission); this run has {len(book.students)} students")
        data = gradescope_results(book, pages[book.students[0].key], out.visibility, elapsed)
        put(out.gradescope, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    passed = None
    if out.classroom is not None:
        summary, passed = classroom_summary(book)
        put(out.classroom, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    if key is not None and out.anonymise_key is not None:
        write_key(out.anonymise_key, key)
        written.append(out.anonymise_key)
    return ClassroomResult(book, written, list(book.notes), passed)


def gradescope_rows(rows: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """A Gradescope run's rows: one file per problem and no student is its one submission."""
    problems = [r.get("problem") for r in rows]
    if len(set(problems)) == len(problems) and not any(r.get("student") or r.get("student_id") for r in rows):
        return [{**r, "student": "submission"} for r in rows]
    return rows


def load_key(out: ClassroomOutputs) -> PseudonymKey | None:
    """The run's pseudonym key (``--anonymise``), else None."""
    return read_key(out.anonymise_key) if out.anonymise_key is not None else None


def write_outputs(classroom: ClassroomOutputs, done: Assembled, key: Any, elapsed: float, say: bool,
                  store: PartStore, plan: Plan, held_back: bool) -> tuple[Any, bool]:
    """Write what ``classroom`` asks for at the end of a run, or the key alone when
    ``held_back``; (the ``ClassroomResult``, whether Ctrl-C came while writing)."""
    if held_back:
        return key_only(classroom, key), False
    stopped = False
    try:
        written = write_classroom(classroom, done.rows or [], done.details, key, elapsed)
    except KeyboardInterrupt:
        if say:
            note("interrupted while writing the grade books and feedback pages: writing them whole "
                 "(Ctrl-C again to stop)")
        stopped = True
        written = write_classroom(classroom, done.rows or [], done.details, key, elapsed)
    if say:
        for line in written.notes:
            note(line)
        if key is not None:
            _note_earlier_names(classroom, key, written.written, store, plan)
    return written, stopped


def key_only(classroom: ClassroomOutputs, key: Any) -> ClassroomResult:
    """The classroom outputs of a run whose rows are not grades: the pseudonym key alone."""
    if key is None or classroom.anonymise_key is None:
        return ClassroomResult(None, [], [])
    write_key(classroom.anonymise_key, key)
    return ClassroomResult(None, [classroom.anonymise_key], [])


def _note_earlier_names(classroom: ClassroomOutputs, key: Any, written: list[Any], store: PartStore,
                        plan: Plan) -> None:
    """``--anonymise``: name the files an earlier run left in the graders' folder with real names."""
    stale = store.other_parts((block.index, block.key) for block in plan.blocks)
    line = earlier_names_note(key, classroom.graders, classroom.feedback, written, stale, store.folder)
    if line:
        note(line)
