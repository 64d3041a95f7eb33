"""Plain folders: a sub-folder per student (the student is the folder's name; every file in it,
at any depth, is theirs), or a file per student at the top (the student is the file's name
without its extension)."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Sequence

from .common import group, top
from .model import ClassInput, Student
from .safe_zip import Entry

LAYOUT = "plain"


def read(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students and files of a plain folder or archive."""

    def split(entry: Entry) -> tuple[Student, str, bool | None] | None:
        head, rest = top(entry.name)
        if rest:
            return Student(head), rest, None
        return Student(PurePosixPath(head).stem), head, None

    return group(entries, split, LAYOUT, source)
