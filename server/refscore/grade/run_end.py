"""What ``refscore grade`` says when a run ends, and its exit code: the summary, the notes, and
the one line of a run that did not finish (Ctrl-C or SIGTERM), of a problem nothing could be
graded for, or of a run where no submission could be scored.

A run that stopped before every submission was scored, or that has a problem-level error, wrote
no grade book or feedback page (``steps.classroom_end``): those would hold zeros that look like grades.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..bidi import printable
from ..errors import EXIT_BELOW_THRESHOLD, EXIT_INPUT, EXIT_OK
from ..vocabulary import EXIT_INTERRUPTED
from .stream_stats import RowStats, counted
from .terminal import note, print_summary, print_threshold

if TYPE_CHECKING:  # pragma: no cover
    from .job import GradeJob
    from .run import Outcome

#: What a rerun does, with the scored parts kept (a cache) or not (``--no-cache``).
RERUN = "rerun the same command to finish"
RERUN_FROM_NOTHING = "nothing was kept without a cache: a rerun scores everything again"


def rerun_hint(kept: bool) -> str:
    return RERUN if kept else RERUN_FROM_NOTHING


def finish(job: GradeJob, outcome: Outcome) -> int:
    """Say how the run went (stderr and the summary stream); its exit code."""
    stats = outcome.stats
    if outcome.interrupted and stats.unfinished:
        print(interrupted_line(stats, outcome), file=sys.stderr)
        return EXIT_INTERRUPTED
    headline = outcome.assembled.headline_note()
    if headline:
        note(headline)
    if outcome.assembled.behaviour_note:  # once for the run, not on every row
        note(outcome.assembled.behaviour_note)
    if not job.reports.quiet:
        written = outcome.classroom
        print_summary(stats, outcome.outputs, outcome.from_before, written.written if written else (),
                      written.pages if written else None)
    if outcome.interrupted:  # Ctrl-C while the reports were written: they are whole
        print("refscore: interrupted while writing the reports: every submission is scored and the reports "
              "were written whole", file=sys.stderr)
        return EXIT_INTERRUPTED
    if outcome.problems:
        withheld = "; no grade book or feedback written" if outcome.withheld else ""
        for line in outcome.problems:
            print(f"refscore: {printable(line)}{withheld}", file=sys.stderr)
        return EXIT_INPUT
    if stats.rows and not outcome.assembled.numbered:
        if outcome.assembled.first_error or not outcome.assembled.behaviour_note:
            print(f"refscore: no submission could be scored: all {stats.rows} rows are errors "
                  f"(the reports say why; first: {printable(outcome.assembled.first_error)})", file=sys.stderr)
        else:  # --metrics behaviour alone, and it ran for none
            print(f"refscore: no submission could be scored: {printable(outcome.assembled.behaviour_note)}",
                  file=sys.stderr)
        return EXIT_INPUT
    passed = outcome.classroom.passed if outcome.classroom is not None else None
    threshold = job.reports.threshold
    if threshold is None:
        return EXIT_BELOW_THRESHOLD if passed is False else EXIT_OK
    reached = print_threshold(threshold, outcome.assembled.failures,
                              outcome.assembled.first_failures, outcome.outputs)
    return EXIT_OK if reached and passed is not False else EXIT_BELOW_THRESHOLD


def interrupted_line(stats: RowStats, outcome: Outcome) -> str:
    """The one line of a run stopped before every submission was scored: how many rows have a
    score (rows that are errors, such as a student who handed nothing in, are not "scored"), that
    no grade book or feedback page was written, and how to resume."""
    scored = max((column.n for column in stats.columns.values()), default=0)
    errors = stats.rows - stats.unfinished - scored
    said = f"{scored:,} of {counted(stats.rows)} scored" + (f" ({errors:,} more are error rows)" if errors else "")
    written = ", the reports mark the rest" if outcome.outputs else ""
    withheld = "; no grade book or feedback written" if outcome.withheld else ""
    kept = f" from the scored parts kept in {outcome.work}" if outcome.kept else ""
    return f"refscore: interrupted: {said}{written}{withheld}; {rerun_hint(outcome.kept)}{kept}"
