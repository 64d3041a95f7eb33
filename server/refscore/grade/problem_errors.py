"""Problem-level errors: a problem of a mapping that nothing can be graded for.

Its reference cannot be read (a typo in the path, a file outside the mapping's folder), or no
submission of it was read at all (no file matched it, a glob matched nothing, every student's
file is in another language). Every row of such a problem is an error, and a grade book would
give each student zero points for it as if they had been graded: the run still writes its score reports (their rows say why),
but no grade book or feedback page, and it exits 3 with one line per problem naming it and the
path at fault. A run of one student's submission (Gradescope's autograder) is graded whatever
they handed in: a problem they have no file for earns 0 with the reason.
"""

from __future__ import annotations

from typing import Sequence

from .items import GradeItem

#: How a problem's items say its reference could not be read (``discover.items_for``, ``classroom.assign``).
REFERENCE_PREFIX = "reference: "


def problem_error(where: str, items: Sequence[GradeItem]) -> str | None:
    """The one line for the problem at ``where`` (``class.toml: problem 2 ('word_freq')``) whose
    items are ``items``, or None when some submission of it was read: one that is empty or nothing
    but the starter code is that student's error (zero points are theirs), not the problem's."""
    if any(item.scorable or item.candidate is not None for item in items):
        return None
    reference = next((item.error for item in items if item.error and item.error.startswith(REFERENCE_PREFIX)), None)
    if reference is not None:
        return f"{where}: {reference}: nothing can be graded for it"
    if not items:
        return f"{where}: no submissions found: nothing to grade for it"
    if len(items) == 1 and items[0].student:  # one student's submission (a Gradescope autograder run):
        return None  # their missing or empty file is their 0 points, not the teacher's error
    first = next((item.error for item in items if item.error), None) or "no candidate text"
    return f"{where}: none of its {len(items):,} submission(s) could be read (first: {first})"
