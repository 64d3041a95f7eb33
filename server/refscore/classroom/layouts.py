"""Which LMS layout a class is in, and reading it: ``read_class(path, layout)``.

Recognised (``layout="auto"``) in this order: Gradescope (a ``submission_metadata.yml``), Moodle
(``_assignsubmission_`` folders), Canvas (``name_12345_67890_file`` names), GitHub Classroom
(every file in a folder, the folders sharing an ``assignment-`` prefix), else plain. An archive
that wraps everything in one folder (``export/...``) is read inside it when the layout is
recognised there (or there are several folders in it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from ..errors import InputFileError, UsageError
from . import canvas, github_classroom, gradescope, moodle, plain
from .common import top
from ..grade.classroom_choices import LAYOUTS
from .model import ClassInput
from .safe_zip import Entry
from .tree import class_entries, latest_of_each_name

Reader = Callable[[Sequence[Entry], str], ClassInput]
READERS: dict[str, Reader] = {"moodle": moodle.read, "canvas": canvas.read, "gradescope": gradescope.read,
                              "github-classroom": github_classroom.read, "plain": plain.read}
_DETECT = (("gradescope", gradescope.matches), ("moodle", moodle.matches), ("canvas", canvas.matches),
           ("github-classroom", github_classroom.matches))


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
