"""Which LMS layout a class is in, and reading it: ``read_class(path, layout)``.

Recognised (``layout="auto"``) in this order: Gradescope (a ``submission_metadata.yml``), Moodle
(``_assignsubmission_`` folders), Canvas (``name_12345_67890_file`` names), GitHub Classroom
(every file in a folder, the folders sharing an ``assignment-`` prefix), else plain. An archive
that wraps everything in one folder (``export/...``) is read inside it when the layout is
recognised there (or there are several folders in it). Gradescope's reader has a module of its
own (``gradescope.py``); the four small readers are here, one section each.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from typing import Callable, Sequence

from ..errors import InputFileError, UsageError
from . import gradescope
from .common import SKIP, group, top
from ..grade.classroom_choices import LAYOUTS
from .model import ClassInput, Student
from .safe_zip import Entry
from .tree import class_entries, latest_of_each_name

# --- Moodle's "Download all submissions": a folder per student and plugin,
# ``Full Name_12345_assignsubmission_file_/path/in/submission`` (older Moodle: the same prefix on
# each flat file name, ``Full Name_12345_assignsubmission_file_solution.py``). The number is the
# participant id. Online-text entries (``_assignsubmission_onlinetext_``) are left out with a note.

_MOODLE_FOLDER = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.*)$")


def moodle_matches(names: Sequence[str]) -> bool:
    """True when most top-level names carry Moodle's ``_assignsubmission_`` mark."""
    heads = [top(n)[0] for n in names]
    return bool(heads) and sum(bool(_MOODLE_FOLDER.match(h)) for h in heads) * 2 > len(heads)


def read_moodle(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students and files of a Moodle download."""
    skipped: list[str] = []

    def split(entry: Entry) -> tuple[Student, str, bool | None] | str | None:
        head, rest = top(entry.name)
        found = _MOODLE_FOLDER.match(head)
        if found is None:
            return None
        name = rest or found["rest"]
        if found["plugin"] != "file" or not name:
            skipped.append(entry.name)
            return SKIP
        return Student(found["name"].strip(), found["id"]), name, None

    result = group(entries, split, "moodle", source)
    if skipped:
        result.notes.append(f"{source}: {len(skipped)} online-text entries left out (only files are graded)")
    return result


# --- Canvas's "Download Submissions": flat files named
# ``lastnamefirstname_12345_67890_original-name.py`` (user id, then submission/attachment id), with
# ``_late_`` after the name when Canvas marked the submission late
# (``lastnamefirstname_late_12345_67890_name.py``). Canvas adds ``-1``, ``-2`` to a file submitted
# again under the same name; problem matching ignores that suffix (``resubmissions.py``).

_CANVAS_FILE = re.compile(r"^(?P<name>[^_/]+?)(?P<late>_late)?_(?P<id>\d+)_(?P<sub>\d+)_(?P<file>.+)$",
                          re.IGNORECASE)


def canvas_matches(names: Sequence[str]) -> bool:
    """True when most names are flat files in Canvas's pattern."""
    return bool(names) and sum("/" not in n and bool(_CANVAS_FILE.match(n)) for n in names) * 2 > len(names)


def read_canvas(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students and files of a Canvas download."""

    def split(entry: Entry) -> tuple[Student, str, bool | None] | None:
        head, rest = top(entry.name)
        found = _CANVAS_FILE.match(head)
        if found is None or rest:
            return None
        return Student(found["name"], found["id"]), found["file"], bool(found["late"])

    return group(entries, split, "canvas", source)


# --- GitHub Classroom: a folder per student repository, named ``<assignment>-<username>``
# (``gh classroom clone student-repos``, the Classroom Assistant). The student is the user name:
# the folder name less the prefix every repository shares. Files of ``.git`` and ``.github`` and
# other hidden ones are skipped.

def shared_prefix(folders: Sequence[str]) -> str:
    """The ``assignment-`` prefix every folder shares ('' when fewer than two or none)."""
    if len(folders) < 2:
        return ""
    prefix = os.path.commonprefix(list(folders))
    cut = prefix.rfind("-")
    return prefix[:cut + 1] if cut > 0 else ""


def github_classroom_matches(names: Sequence[str]) -> bool:
    """True when every file is in a folder and the folders share an ``assignment-`` prefix."""
    if not names or any("/" not in n for n in names):
        return False
    folders = sorted({top(n)[0] for n in names})
    prefix = shared_prefix(folders)
    return bool(prefix) and all(len(f) > len(prefix) for f in folders)


def read_github_classroom(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students (user names) and files of a folder of student repositories."""
    prefix = shared_prefix(sorted({top(e.name)[0] for e in entries if "/" in e.name}))

    def split(entry: Entry) -> tuple[Student, str, bool | None] | None:
        head, rest = top(entry.name)
        if not rest or not head.startswith(prefix) or len(head) == len(prefix):
            return None
        user = head[len(prefix):]
        return Student(user, None, user), rest, None

    return group(entries, split, "github-classroom", source)


# --- Plain folders: a sub-folder per student (the student is the folder's name; every file in it,
# at any depth, is theirs), or a file per student at the top (the student is the file's name
# without its extension).

def read_plain(entries: Sequence[Entry], source: str) -> ClassInput:
    """The students and files of a plain folder or archive."""

    def split(entry: Entry) -> tuple[Student, str, bool | None] | None:
        head, rest = top(entry.name)
        if rest:
            return Student(head), rest, None
        return Student(PurePosixPath(head).stem), head, None

    return group(entries, split, "plain", source)


# --- Choosing and reading a layout

Reader = Callable[[Sequence[Entry], str], ClassInput]
READERS: dict[str, Reader] = {"moodle": read_moodle, "canvas": read_canvas, "gradescope": gradescope.read,
                              "github-classroom": read_github_classroom, "plain": read_plain}
_DETECT = (("gradescope", gradescope.matches), ("moodle", moodle_matches), ("canvas", canvas_matches),
           ("github-classroom", github_classroom_matches))


def detect(names: Sequence[str]) -> str:
    """The layout the entry names look like (``plain`` when none fits)."""
    for layout, fits in _DETECT:
        if fits(names):
            return layout
    return "plain"


def _unwrapped(entries: list[Entry]) -> list[Entry]:
    """Entries inside a single folder that wraps the whole class, when it is one."""
    names = [e.name for e in entries]
    heads = {top(n)[0] for n in names}
    if len(heads) != 1 or any("/" not in n for n in names):
        return entries
    head = next(iter(heads))
    inner = [Entry(top(e.name)[1], e.data, e.error, e.origin, e.refused) for e in entries]
    folders = {top(e.name)[0] for e in inner if "/" in e.name}
    if detect([e.name for e in inner]) != "plain" or len(folders) > 1:
        return _unwrapped(inner) if head else inner
    return entries


def read_class(path: str | Path, layout: str = "auto", skip: Sequence[str | Path] = ()) -> ClassInput:
    """The class at ``path`` (a zip archive or a folder) in ``layout`` (``auto``: recognised);
    ``skip``: the run's own reports, never read."""
    if layout != "auto" and layout not in LAYOUTS:
        raise UsageError(f"--layout {layout!r}: choose auto or one of {', '.join(LAYOUTS)}")
    entries, twice = latest_of_each_name(class_entries(path, skip), path)
    entries = _unwrapped(entries)
    names = [e.name for e in entries]
    found = detect(names)
    chosen = found if layout == "auto" else layout
    result = READERS[chosen](entries, str(path))
    result.notes.extend(twice)
    if not result.submissions and not result.refused:
        looks = f" (it looks like {found})" if found != chosen else ""
        raise InputFileError(f"{path}: no submission of the {chosen} layout found{looks}")
    return result
