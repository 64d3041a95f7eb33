"""Where the grader meets the classroom: which inputs are classes, and grading one.

An input is a class (read by a layout reader instead of file by file) when it is a ``.zip``
archive (or a glob that matches only zip archives), when a layout is named (``--layout``, a mapping's ``layout`` key), or when it is a
folder whose names are recognised as an LMS layout (Moodle, Canvas, Gradescope, GitHub
Classroom); a plain folder stays as before (a file per submission, or ``--per-folder``) unless a
layout or a roster is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..grade.globs import glob_paths, has_magic
from ..grade.items import ItemSet
from .assign import ClassProblem, class_items
from .layouts import detect, read_class
from .roster import RosterEntry
from .tree import folder_names, is_archive


def is_class(path: str | Path, layout: str | None, folders: bool = False) -> bool:
    """True when ``path`` is read as a class (module docstring); ``folders``: every folder is
    (a roster was given: a plain folder is then a folder per student)."""
    path = Path(path)
    if is_archive(path) and path.is_file():
        return True
    if not path.is_dir():
        return False
    return folders or bool(layout) or detect(folder_names(path)) != "plain"


def split_classes(arguments: Sequence[str | Path], layout: str | None,
                  folders: bool = False) -> tuple[list[Path], list[str | Path]]:
    """(the classes among ``arguments``, the rest as given). A glob whose matches are all zip
    archives (``downloads/*.zip``) names each as a class."""
    classes: list[Path] = []
    rest: list[str | Path] = []
    for argument in arguments:
        text = str(argument)
        matches = glob_paths(text) if has_magic(text) and not Path(text).exists() else []
        if matches and all(is_archive(m) and Path(m).is_file() for m in matches):
            classes.extend(Path(m) for m in matches)
        elif is_class(argument, layout, folders):
            classes.append(Path(argument))
        else:
            rest.append(argument)
    return classes, rest


def grade_class(path: str | Path, layout: str | None, problems: Sequence[ClassProblem],
                roster: Sequence[RosterEntry] | None, skip: Sequence[str | Path] = ()) -> ItemSet:
    """The items of one class for ``problems``, with its report in ``classes``."""
    cls = read_class(path, layout or "auto", skip)
    items, report = class_items(cls, problems, roster)
    items.notes.extend(report.notes())
    items.classes.append(report.to_dict())
    return items
