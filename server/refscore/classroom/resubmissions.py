"""Canvas resubmissions: a file handed in again under the same name is stored as ``name-1.py``,
``name-2.py`` (the higher the number, the later). They are versions of one file, never parts to
join (joined, the student was graded on two copies of their work, and the starter code came out
of one of them only).

A student's files for a problem are grouped by name less the ``-N``; version ``k`` of the
submission is, for each group, its latest file at or before the ``k``-th number seen (files
``a.py``, ``a-1.py`` and ``b.py``: version 1 is ``a.py`` and ``b.py``, version 2 ``a-1.py`` and
``b.py``). By default the latest version is graded (``latest``); with ``best`` (a mapping's
``resubmissions = "best"``, or ``--resubmissions best``) every version is scored, each its own
report row (``resubmission`` says which), and the grade book and feedback take the version that
earns the most points (as they take the best of several rows of one student). Other layouts have
no such names: their files stay as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable, Sequence

from ..grade.classroom_choices import RESUBMISSION_POLICIES
from ..grade.items import LATEST_MARK, RESUBMISSION_FIELD as FIELD, GradeItem
from .model import Submission, SubmittedFile

POLICIES = RESUBMISSION_POLICIES
LATEST, BEST = POLICIES
#: The layout whose file names carry resubmissions.
LAYOUT = "canvas"
#: Report fields of a version's row under ``best``: the id the versions share, and which one it is.
OF_FIELD = "resubmission_of"

_AGAIN = re.compile(r"^(?P<stem>.+?)-(?P<number>\d+)$")


@dataclass(frozen=True)
class Version:
    """One version of a student's submission to a problem: its files and, where there are
    several versions, which it is (``2 of 3: word_freq-1.py``)."""

    files: tuple[SubmittedFile, ...]
    label: str | None = None
    latest: bool = True


def name_and_number(file: SubmittedFile) -> tuple[str, int]:
    """(the file's name less Canvas's ``-N``, case ignored; N, 0 for the first upload)."""
    path = PurePosixPath(file.name)
    found = _AGAIN.match(path.stem)
    stem, number = (found["stem"], int(found["number"])) if found else (path.stem, 0)
    return str(path.with_name(stem + path.suffix)).casefold(), number


def versions(submission: Submission, files: Sequence[SubmittedFile]) -> list[Version]:
    """The versions of ``files`` (a student's files for one problem), oldest first; one version
    of every file outside the Canvas layout or without a resubmission."""
    if submission.layout != LAYOUT or len(files) < 2:
        return [Version(tuple(files))]
    groups: dict[str, list[tuple[int, SubmittedFile]]] = {}
    for file in files:
        name, number = name_and_number(file)
        groups.setdefault(name, []).append((number, file))
    if all(len(group) == 1 for group in groups.values()):
        return [Version(tuple(files))]
    numbers = sorted({number for group in groups.values() for number, _ in group if len(group) > 1})
    out = []
    for index, upto in enumerate(numbers, 1):
        chosen, named = [], []
        for group in groups.values():
            ordered = sorted(group, key=lambda pair: (pair[0], pair[1].origin))
            at = [(number, file) for number, file in ordered if number <= upto] or [ordered[0]]
            chosen.append(at[-1][1])
            if len(group) > 1 and at[-1][0] == upto:  # the file handed in again that this version names
                named.append(at[-1][1].name)
        picked = tuple(sorted(chosen, key=lambda f: f.name))
        out.append(Version(picked, f"{index} of {len(numbers)}: {', '.join(sorted(named))}", index == len(numbers)))
    return out


def resubmission_note(source: str, policy: str, earlier: dict[str, list[str]]) -> str | None:
    """The class's one note: who handed a file in again and what is graded (``earlier``: student
    -> the names of the files the latest version does not hold)."""
    if not earlier:
        return None
    listed = "; ".join(f"{student}: {', '.join(names)}" for student, names in list(earlier.items())[:10])
    more = f" and {len(earlier) - 10} more" if len(earlier) > 10 else ""
    what = ("every version is scored and the one that earns the most points counts (earlier versions: " if policy == BEST
            else "the latest version is graded, never joined with the earlier ones (not graded: ")
    return f"{source}: {len(earlier)} student(s) handed a file in again (Canvas's -1, -2 names): {what}{listed}{more})"


def versioned_items(submission: Submission, policy: str, files: Sequence[SubmittedFile],
                    make: Callable[[list[SubmittedFile]], GradeItem]) -> tuple[list[GradeItem], list[str]]:
    """The items ``make`` gives for the graded version(s) of ``files`` under ``policy`` (``best``:
    one per version, each id ending in ``[2 of 2: word_freq-1.py]``; the grade book takes the
    one that earns the most points, as it does of several rows of one student), and the names of
    the files the latest version does not hold."""
    found = versions(submission, files)
    last = found[-1]
    earlier = [f.name for f in files if f not in last.files]
    if policy != BEST or len(found) == 1:
        return [make(list(last.files))], earlier
    items = []
    for version in found:
        item = make(list(version.files))
        shared = item.id
        item.id = f"{shared} [{version.label}]"
        item.extra = {**item.extra, OF_FIELD: shared,
                      FIELD: f"{version.label}{LATEST_MARK if version.latest else ''}"}
        items.append(item)
    return items, earlier

