"""GitHub Classroom: a folder per student repository, named ``<assignment>-<username>``
(``gh classroom clone student-repos``, the Classroom Assistant). The student is the user name:
the folder name less the prefix every repository shares. Files of ``.git`` and ``.github`` and
other hidden ones are skipped."""

from __future__ import annotations

import os
from typing import Sequence

from .common import group, top
from .model import ClassInput, Student
from .safe_zip import Entry

LAYOUT = "github-classroom"


def shared_prefix(folders: Sequence[str]) -> str:
    """The ``assignment-`` prefix every folder shares ('' when fewer than two or none)."""
    if len(folders) < 2:
        return ""
    prefix = os.path.commonprefix(list(folders))
    cut = prefix.rfind("-")
    return prefix[:cut + 1] if cut > 0 else ""


def matches(names: Sequence[str]) -> bool:
    """True when every file is in a folder and the folders share an ``assignment-`` prefix."""
    if not names or any("/" not in n for n in names):
        return False
    folders = sorted({top(n)[0] for n in names})
    prefix = shared_prefix(folders)
    return bool(prefix) and all(len(f) > len(prefix) for f in folders)


def read(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students (user names) and files of a folder of student repositories."""
    prefix = shared_prefix(sorted({top(e.name)[0] for e in entries if "/" in e.name}))

    def split(entry: Entry) -> tuple[Student, str, bool | None] | None:
        head, rest = top(entry.name)
        if not rest or not head.startswith(prefix) or len(head) == len(prefix):
            return None
        user = head[len(prefix):]
        return Student(user, None, user), rest, None

    return group(entries, split, LAYOUT, source)
