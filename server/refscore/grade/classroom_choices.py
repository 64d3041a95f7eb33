"""The values the classroom options offer (``--layout``, ``--resubmissions``, ``--reveal``,
``--gradescope``, ``--gradescope-visibility``). Outside the ``classroom`` package so that the
command line's parser (``commands/grade.py``, built for every ``refscore`` run) imports no
classroom module; those load only when a run reads a class export or writes a classroom output."""

from __future__ import annotations

from pathlib import Path

#: The layouts ``--layout`` accepts (``auto``: recognised from the archive or folder).
LAYOUTS = ("moodle", "canvas", "gradescope", "github-classroom", "plain")
#: Which version of a Canvas file handed in again counts (``classroom.resubmissions``).
RESUBMISSION_POLICIES = ("latest", "best")
#: What a feedback page shows of the reference (``classroom.hints``).
REVEAL_MODES = ("reveal", "hints", "scores")
DEFAULT_REVEAL = "hints"
#: When students see Gradescope's results.json tests (``classroom.autograders``).
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
#: Where Gradescope's autograder reads its results.
GRADESCOPE_RESULTS = Path("/autograder/results/results.json")
