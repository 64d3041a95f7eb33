"""What the layout readers share: an entry as a ``SubmittedFile``, students grouped in order."""

from __future__ import annotations

from typing import Callable, Sequence

from ..analysis.text import InputError, decode_source
from .model import ClassInput, Student, Submission, SubmittedFile
from .safe_zip import Entry

#: A layout's reading of one entry: (student, name inside the submission, late: None where the
#: layout has no late mark); None: not a student's file (a note says so); SKIP: left out on
#: purpose (the layout's own files).
SKIP = "skip"
Split = Callable[[Entry], "tuple[Student, str, bool | None] | str | None"]


def to_file(entry: Entry, name: str) -> SubmittedFile:
    """The entry as a file of a submission, its bytes decoded (binary, not UTF-8: an error)."""
    if entry.error is not None or entry.data is None:
        return SubmittedFile(name, entry.origin or entry.name, None, entry.error or "not read")
    try:
        return SubmittedFile(name, entry.origin, decode_source(entry.data, name=entry.origin))
    except InputError as error:
        return SubmittedFile(name, entry.origin, None, str(error))


def either_late(first: bool | None, second: bool | None) -> bool | None:
    """Two late marks of one student's files as one: late when either is, else not late when
    either says so, else None (the layout has no mark)."""
    if first or second:
        return True
    return None if first is None and second is None else False


def group(entries: Sequence[Entry], split: Split, layout: str, source: str) -> ClassInput:
    """Each student's files, in order of first appearance; entries ``split`` does not place and
    refused entries (a zip-slip name, a link) are error rows of their own or notes."""
    result = ClassInput(layout, source)
    order: dict[Student, list[SubmittedFile]] = {}
    late: dict[Student, bool | None] = {}
    stray: list[str] = []
    for entry in entries:
        if entry.refused:
            result.refused.append(to_file(entry, entry.name))  # a name that may not be used: a row of its own
            continue
        placed = split(entry)
        if placed == SKIP:
            continue
        if placed is None or isinstance(placed, str):
            if entry.error is not None:
                result.refused.append(to_file(entry, entry.name))
            else:
                stray.append(entry.origin or entry.name)
            continue
        student, name, is_late = placed
        order.setdefault(student, []).append(to_file(entry, name))
        late[student] = either_late(late.get(student), is_late)
    if stray:
        shown = ", ".join(stray[:10]) + (f" and {len(stray) - 10} more" if len(stray) > 10 else "")
        result.notes.append(f"{source}: {len(stray)} file(s) not in a student's submission of the {layout} "
                            f"layout, not graded: {shown}")
    for student, files in order.items():
        result.submissions.append(Submission(student, tuple(sorted(files, key=lambda f: f.name)),
                                             late=late[student], layout=layout))
    return result


def top(name: str) -> tuple[str, str]:
    """(first path component, the rest) of a '/'-separated name."""
    head, _, rest = name.partition("/")
    return head, rest
