"""The teacher's manual adjustments: a CSV file the teacher edits, read on every (re-)grade.

::

    student,problem,adjust,comment
    Ada Lovelace,running_max,+2,clear names; the loop is right
    12345,sum_even,=8,checked by hand
    Grace Hopper,,-1,late (applies to the total)

``student``: the name or id the reports show (under ``--anonymise``, the pseudonym);
``problem``: a problem's name, or empty for the total; ``adjust``: ``+N``/``-N`` added to the
rubric's points, ``=N`` the points instead of the rubric's (a problem's points never drop below
0). RefScore never writes to an existing adjustments file; a missing one is created with the
header only, so the teacher has a file to fill in: only inside its allowed folder (the rubric's
folder for the rubric's ``adjustments`` key and the default beside the rubric; for
``--adjustments FILE``, FILE's own folder, which must exist), its missing parents made only
inside that folder, and the file itself opened with ``O_CREAT|O_EXCL|O_NOFOLLOW``: a link at its
name (a dangling one included) is refused, never followed.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputFileError
from ..safe_read import read_settings_text

HEADER = ("student", "problem", "adjust", "comment")


@dataclass(frozen=True)
class Adjustment:
    """One line of the file."""

    student: str
    problem: str | None  # None: the total
    delta: float | None  # +N / -N
    value: float | None  # =N
    comment: str
    line: int

    def apply(self, points: float) -> float:
        """``points`` after this adjustment."""
        return self.value if self.value is not None else points + (self.delta or 0.0)

    def shown(self) -> str:
        return f"={self.value:g}" if self.value is not None else f"{self.delta:+g}"


def read_adjustments(path: Path, folder: Path | None = None) -> list[Adjustment]:
    """Every adjustment in ``path`` (created with the header when missing, see ``create_empty``;
    ``folder``: where it may be created, default its own folder); InputFileError, one line naming
    the file and line, when a line cannot be read."""
    if not os.path.lexists(path):
        create_empty(path, path.parent if folder is None else folder)
        return []
    if path.is_symlink() and not path.exists():
        raise InputFileError(f"{path}: the adjustments file is a link to nothing ({os.readlink(path)}); "
                             "not followed: remove it or name a file")
    try:
        text = read_settings_text(path, "the adjustments file")
    except (OSError, UnicodeDecodeError) as error:
        raise InputFileError(f"{path}: cannot read the adjustments file ({error})") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [h for h in ("student", "adjust") if h not in (reader.fieldnames or [])]
    if missing:
        raise InputFileError(f"{path}: the adjustments file needs the columns {', '.join(HEADER)} "
                             f"(missing {', '.join(missing)})")
    out = []
    for number, row in enumerate(reader, 2):
        student = (row.get("student") or "").strip()
        adjust = (row.get("adjust") or "").strip()
        if not student and not adjust:
            continue
        if not student:
            raise InputFileError(f"{path}: line {number}: no student")
        delta, value = _parse(adjust, path, number)
        problem = (row.get("problem") or "").strip() or None
        out.append(Adjustment(student, problem, delta, value, (row.get("comment") or "").strip(), number))
    return out


def create_empty(path: Path, folder: Path) -> None:
    """Write the header to a new file ``path``, inside ``folder`` only: the parents missing below
    ``folder`` are made (none above it), the file with ``O_CREAT|O_EXCL|O_NOFOLLOW``."""
    def refuse(why: str) -> InputFileError:
        return InputFileError(f"{path}: cannot create the adjustments file ({why})")

    try:
        root = folder.resolve(strict=True)
    except OSError:
        raise refuse(f"its folder {folder} does not exist; it is created only inside an existing folder") from None
    try:
        relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(folder))
    except ValueError:
        raise refuse(f"it is outside {folder}, the only folder it may be created in") from None
    if ".." in relative.parts:
        raise refuse(f"it is outside {folder}, the only folder it may be created in")
    where = root
    try:
        for part in relative.parts[:-1]:
            where = where / part
            if not os.path.lexists(where):
                where.mkdir()
            if where.is_symlink() or not where.is_dir():
                raise refuse(f"{where} is a link or not a folder; not followed")
        descriptor = os.open(where / relative.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        raise refuse("a link or a file appeared at its name; not followed") from None
    except OSError as error:
        raise refuse(error.strerror or str(error)) from None
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(",".join(HEADER) + "\n")


def _parse(text: str, path: Path, line: int) -> tuple[float | None, float | None]:
    try:
        if text.startswith("="):
            value = float(text[1:])
            if math.isfinite(value) and value >= 0:
                return None, value
        elif text[:1] in "+-" and text[1:]:
            delta = float(text)
            if math.isfinite(delta):
                return delta, None
    except ValueError:
        pass
    raise InputFileError(f"{path}: line {line}: adjust {text!r} must be +N, -N or =N")
