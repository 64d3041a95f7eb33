"""Canvas's "Download Submissions": flat files named
``lastnamefirstname_12345_67890_original-name.py`` (user id, then submission/attachment id), with
``_late_`` after the name when Canvas marked the submission late
(``lastnamefirstname_late_12345_67890_name.py``). Canvas adds ``-1``, ``-2`` to a file submitted
again under the same name; problem matching ignores that suffix."""

from __future__ import annotations

import re
from typing import Sequence

from .common import group, top
from .model import ClassInput, Student
from .safe_zip import Entry

LAYOUT = "canvas"
_FILE = re.compile(r"^(?P<name>[^_/]+?)(?P<late>_late)?_(?P<id>\d+)_(?P<sub>\d+)_(?P<file>.+)$", re.IGNORECASE)


def matches(names: Sequence[str]) -> bool:
    """True when most names are flat files in Canvas's pattern."""
    return bool(names) and sum("/" not in n and bool(_FILE.match(n)) for n in names) * 2 > len(names)


def read(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students and files of a Canvas download."""

    def split(entry: Entry) -> tuple[Student, str, bool | None] | None:
        head, rest = top(entry.name)
        found = _FILE.match(head)
        if found is None or rest:
            return None
        return Student(found["name"], found["id"]), found["file"], bool(found["late"])

    return group(entries, split, LAYOUT, source)
