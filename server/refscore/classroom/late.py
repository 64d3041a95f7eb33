"""A rubric's late policy: points off a submission the LMS marked late.

::

    late = { per_day = "10%", cap = "30%", grace = 0 }

``per_day``: the points off per day late, a number of points or a share of the problem's points
(``"10%"``); ``cap``: the most a late submission loses (the same forms; default: everything);
``grace``: days late that cost nothing. An LMS marks a submission late without saying by how much
(Canvas's ``_late_`` file names, Gradescope's ``:late:``): such a mark counts as one day; where
the layout has the times (Gradescope's autograder: ``created_at`` and the due date), the row's
``days_late`` says how late, and every day begun counts (an hour late is one day). The
points come off each late problem's rubric points before the teacher's adjustments (an ``=8``
stands as written) and never below 0; the grade books, feedback pages and autograder results
read the points after it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rubric_error import RubricError

_LATE_KEYS = frozenset({"per_day", "cap", "grace"})
#: The days late a mark without a time stands for.
MARKED_DAYS = 1


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def points_or_share(value: Any, path: Path, where: str, key: str) -> tuple[float, bool]:
    """(amount, is a share) of a rubric value written as points (``2``) or a share (``"20%"``)."""
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            share = float(value.strip()[:-1]) / 100
        except ValueError:
            share = -1.0
        if not 0 <= share <= 1:
            raise RubricError(f"{path}: {where}: '{key}' {value!r} must be a share from '0%' to '100%'")
        return share, True
    if not _number(value) or value < 0:
        raise RubricError(f"{path}: {where}: '{key}' must be a number of points of at least 0 or a share such "
                          f"as '10%' (got {value!r})")
    return float(value), False


@dataclass(frozen=True)
class LatePolicy:
    """Points off per day late, the most off, and the days that cost nothing."""

    per_day: float
    per_day_share: bool
    cap: float | None = None  # None: no cap
    cap_share: bool = False
    grace: float = 0.0

    def points_off(self, days: float, max_points: float, earned: float) -> float:
        """What ``days`` late take off ``earned`` of a problem worth ``max_points`` (each day begun
        after the grace counts)."""
        counted = math.ceil(max(0.0, days - self.grace) - 1e-9)
        off = counted * (self.per_day * max_points if self.per_day_share else self.per_day)
        if self.cap is not None:
            off = min(off, self.cap * max_points if self.cap_share else self.cap)
        return round(min(off, earned), 2)

    def words(self) -> str:
        """``10% of the points per day late, at most 30%``."""
        def amount(value: float, share: bool) -> str:
            return f"{value * 100:g}% of the points" if share else f"{value:g} point{'s' * (value != 1)}"
        text = f"{amount(self.per_day, self.per_day_share)} per day late"
        if self.cap is not None:
            text += f", at most {amount(self.cap, self.cap_share)}"
        if self.grace:
            text += f", the first {self.grace:g} day{'s' * (self.grace != 1)} free"
        return text


def late_policy(value: Any, path: Path) -> LatePolicy:
    """The rubric's ``late`` table, checked."""
    if not isinstance(value, dict) or set(value) - _LATE_KEYS or "per_day" not in value:
        raise RubricError(f"{path}: 'late' must be a table such as {{ per_day = \"10%\", cap = \"30%\", grace = 0 }} "
                          "(per_day required; known: cap, grace, per_day)")
    per_day, per_day_share = points_or_share(value["per_day"], path, "late", "per_day")
    cap, cap_share = (None, False)
    if "cap" in value:
        cap, cap_share = points_or_share(value["cap"], path, "late", "cap")
    grace = value.get("grace", 0)
    if not _number(grace) or not 0 <= grace <= 366:
        raise RubricError(f"{path}: late: 'grace' must be a number of days from 0 to 366 (got {grace!r})")
    return LatePolicy(per_day, per_day_share, cap, cap_share, float(grace))


def days_late(late: Any, days: Any = None) -> float:
    """The days late of a row: its ``days_late`` where the layout had the times, else its
    ``late`` mark (``MARKED_DAYS``; none: 0)."""
    if _number(days) and days >= 0:
        return float(days)
    if late is True or (isinstance(late, str) and late.strip().lower() in ("true", "1", "yes")):
        return float(MARKED_DAYS)
    return 0.0
