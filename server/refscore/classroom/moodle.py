"""Moodle's "Download all submissions": a folder per student and plugin,
``Full Name_12345_assignsubmission_file_/path/in/submission`` (older Moodle: the same prefix on
each flat file name, ``Full Name_12345_assignsubmission_file_solution.py``). The number is the
participant id. Online-text entries (``_assignsubmission_onlinetext_``) are left out with a note."""

from __future__ import annotations

import re
from typing import Sequence

from .common import SKIP, group, top
from .model import ClassInput, Student
from .safe_zip import Entry

LAYOUT = "moodle"
_FOLDER = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.*)$")


def matches(names: Sequence[str]) -> bool:
    """True when most top-level names carry Moodle's ``_assignsubmission_`` mark."""
    heads = [top(n)[0] for n in names]
    return bool(heads) and sum(bool(_FOLDER.match(h)) for h in heads) * 2 > len(heads)


def read(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students and files of a Moodle download."""
    skipped: list[str] = []

    def split(entry: Entry) -> tuple[Student, str, bool | None] | str | None:
        head, rest = top(entry.name)
        found = _FOLDER.match(head)
        if found is None:
            return None
        name = rest or found["rest"]
        if found["plugin"] != "file" or not name:
            skipped.append(entry.name)
            return SKIP
        return Student(found["name"].strip(), found["id"]), name, None

    result = group(entries, split, LAYOUT, source)
    if skipped:
        result.notes.append(f"{source}: {len(skipped)} online-text entries left out (only files are graded)")
    return result
