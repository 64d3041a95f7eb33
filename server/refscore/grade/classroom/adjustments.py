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
header only, so the teacher has a file to fill in.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputFileError
from ...safe_read import read_settings_text

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


def read_adjustments(path: Path) -> list[Adjustment]:
    """Every adjustment in ``path`` (created with the header when missing); InputFileError, one
    line naming the file and line, when a line cannot be read."""
    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(",".join(HEADER) + "\n", encoding="utf-8")
        except OSError as error:
            raise InputFileError(f"{path}: cannot create the adjustments file ({error.strerror or error})") from None
        return []
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
