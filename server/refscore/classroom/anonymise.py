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
import re
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Sequence

from ..errors import InputFileError
from ..safe_read import read_settings_text
from ..safe_write import replace_file
from ..grade.items import ItemSet
from ..grade.writers import FORMULA_STARTS
from .gradebook import Gradebook, StudentGrade, student_keys

KEY_HEADER = ("pseudonym", "student", "student_id")


def key_cell(text: str) -> str:
    """A key file cell a spreadsheet reads as text: one that would be a formula (``=1+2``, as a
    student may name their folder) gets a leading ``'``, as every report CSV's does; so does one
    that starts with ``'`` itself, so that ``key_text`` reads every name back exactly."""
    return "'" + text if text[:1] in FORMULA_STARTS or text[:1] == "'" else text


def key_text(cell: str) -> str:
    """The name or id ``key_cell`` wrote (a key written before it, raw, reads as it is)."""
    return cell[1:] if cell[:1] == "'" and (cell[1:2] in FORMULA_STARTS or cell[1:2] == "'") else cell


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
        text = read_settings_text(path, "the pseudonym key")
    except (OSError, UnicodeDecodeError) as error:
        raise InputFileError(f"{path}: cannot read the pseudonym key ({error})") from None
    reader = csv.DictReader(io.StringIO(text))
    if not set(KEY_HEADER) <= set(reader.fieldnames or []):
        raise InputFileError(f"{path}: not a pseudonym key (expected the columns {', '.join(KEY_HEADER)})")
    for row in reader:
        pseudonym, name = row["pseudonym"].strip(), key_text(row["student"] or "")
        ident = key_text(row["student_id"] or "") or None
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
        writer.writerow([pseudonym, key_cell(name), key_cell(ident or "")])
    replace_file(path, buffer.getvalue(), mode=0o600)  # never through a link, not even at the temporary name


def earlier_names_note(key: PseudonymKey, graders: Path | None, feedback: Path | None, written: Sequence[Path],
                       parts: Sequence[Path], parts_folder: Path) -> str | None:
    """The note of an anonymised run whose graders' folder still holds files an earlier run wrote
    there that name a student of ``key`` (the Canvas and Moodle uploads, feedback pages, scored
    parts), which this run did not replace; None when there is none."""
    words = {str(w): p for p, person in key.people.items() for w in person if w}
    pattern = Scrubber(words).pattern
    if pattern is None:
        return None

    def names(path: Path) -> bool:
        try:
            return pattern.search(path.read_bytes().decode("utf-8", "replace")) is not None
        except OSError:
            return False

    uploads = [graders / n for n in ("canvas.csv", "moodle.csv")] if graders is not None else []
    left = [str(p) for p in uploads if p.is_file() and p not in written and names(p)]
    if feedback is not None and feedback.is_dir():
        pages = [p for p in feedback.iterdir() if p.suffix in (".html", ".md") and p not in written and names(p)]
        left += [f"{len(pages)} feedback page(s) in {feedback}"] if pages else []
    named = [p for p in parts if names(p)]
    left += [f"{len(named)} scored part(s) in {parts_folder}"] if named else []
    if not left:
        return None
    return (f"--anonymise: files an earlier run left{f' in {graders}' if graders else ''} name students, and this "
            f"run did not replace them: {', '.join(left)}; remove them before graders see it")


class Scrubber:
    """Replaces each real name and id of a run's students by their pseudonym in free text (file
    names in messages, notes, a refused archive entry's name)."""

    def __init__(self, names: dict[str, str]) -> None:
        words = sorted((n for n in names if len(n) >= 2), key=len, reverse=True)
        self.names = names
        self.pattern = re.compile("(?<![A-Za-z0-9])(" + "|".join(re.escape(w) for w in words) + ")(?![A-Za-z0-9])") \
            if words else None

    def __call__(self, text: Any) -> Any:
        if isinstance(text, str) and self.pattern is not None:
            return self.pattern.sub(lambda m: self.names[m.group(1)], text)
        if isinstance(text, list):
            return [self(v) for v in text]
        if isinstance(text, dict):
            return {k: self(v) for k, v in text.items()}
        return text


def anonymise_items(items: ItemSet, key: PseudonymKey) -> None:
    """Replace, in place, every trace of a student's name in ``items`` by their pseudonym: the
    students' own items get new ids, sources and student fields; every other text (errors, notes,
    the class reports, refused entries' names) is scrubbed of the names and ids."""
    rows = [{"id": i.id, "problem": i.problem, "student": i.student, "student_id": i.student_id} for i in items.items]
    classroom = any(r["student"] or r["student_id"] for r in rows)
    names: dict[str, str] = {}
    chosen: list[str | None] = []
    for row, (student, name, ident) in zip(rows, student_keys(rows)):
        if classroom and not (row["student"] or row["student_id"]):
            chosen.append(None)  # a refused entry or a file of no student: scrubbed, not a student
            continue
        pseudonym = key.pseudonym(student, name, ident)
        chosen.append(pseudonym)
        for word in (name, ident, student, *( [row["student"]] if row["student"] else [])):
            if word:
                names[str(word)] = pseudonym
    scrub = Scrubber(names)
    out = []
    for item, pseudonym in zip(items.items, chosen):
        if pseudonym is None:
            out.append(replace(item, id=scrub(item.id), source=scrub(item.source), error=scrub(item.error)))
            continue
        out.append(replace(item, id=f"{item.problem}/{pseudonym}" if item.problem else pseudonym, source=pseudonym,
                           student=pseudonym, student_id=None, error=scrub(item.error)))
    items.items = out
    withheld = {origin: shown for info in items.classes
                for origin, shown in withheld_names(info.get("unmatched_files") or (), scrub).items()}
    items.notes = [scrub(_replaced(n, withheld)) for n in items.notes]
    items.classes = [scrub({**c, "unmatched_files": [withheld[f] for f in c.get("unmatched_files") or ()]})
                     for c in items.classes]


#: A pseudonym in scrubbed text.
_PSEUDONYM = re.compile(r"S-[0-9A-F]{6}")
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,8}")


def withheld_names(origins: Sequence[str], scrub: Scrubber) -> dict[str, str]:
    """Per file a student handed in that matched no problem, how an anonymised report shows it:
    its name is the student's own choice (``dana_notes.txt``, ``by maria.txt``: a first name the
    pseudonym does not cover), so only the path down to the student's pseudonym, a number and the
    file's extension are kept (``class/S-7F3A2C/[file 1, name withheld].txt``)."""
    out: dict[str, str] = {}
    counts: dict[str, int] = {}
    for origin in origins:
        text = scrub(origin)
        found = list(_PSEUDONYM.finditer(text))
        head = text[:found[-1].end()] if found else text[:max(text.find("!"), 0)] or "(no student)"
        counts[head] = counts.get(head, 0) + 1
        suffix = PurePosixPath(text.replace("\\", "/")).suffix
        kept = suffix if _SUFFIX.fullmatch(suffix) else ""
        out[origin] = f"{head}/[file {counts[head]}, name withheld]{kept}"
    return out


def _replaced(text: str, replacements: dict[str, str]) -> str:
    """``text`` with each key of ``replacements`` (longest first) replaced by its value."""
    for old in sorted(replacements, key=len, reverse=True):
        text = text.replace(old, replacements[old])
    return text


def reveal_students(book: Gradebook, key: PseudonymKey) -> Gradebook:
    """The grade book with real names and ids again (for the teacher's LMS uploads only)."""
    students = []
    for student in book.students:
        name, ident = key.people.get(student.key, (student.name, student.student_id))
        students.append(StudentGrade(ident or name, name, ident, student.problems, student.total_adjustments,
                                     student.rows))
    return Gradebook(book.rubric, book.problems, students, list(book.notes))
