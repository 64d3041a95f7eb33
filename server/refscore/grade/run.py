"""One path for every ``refscore grade`` run, whatever its size or engine, as named steps:

claim (outputs checked, folders locked: ``claim``) -> read -> plan (blocks: pass one) -> score
(an engine: ``local_engine`` in this process or through the daemon, ``ray_engine`` on a cluster:
pass two) -> similarity -> reports (``assemble``) -> the plug-in's end (``hooks``: the classroom's
grade books and feedback pages). Only ``score`` depends on the engine, so every feature runs the
same on each. An in-memory class of 30 files is the one-block case of the same path. The parts are
the one cache: a rerun of the same job scores only the items no part holds.

When a run ends (``finish``) it says the summary, the notes, and the one line of a run that did
not finish (Ctrl-C or SIGTERM), of a problem nothing could be graded for, or of a run where no
submission could be scored; then its exit code. A run that stopped before every submission was
scored, or that has a problem-level error, wrote no grade book or feedback page
(``steps.classroom_end``): those would hold zeros that look like grades.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..bidi import printable
from ..errors import EXIT_BELOW_THRESHOLD, EXIT_INPUT, EXIT_OK
from ..vocabulary import EXIT_INTERRUPTED
from . import steps
from .assemble import Assembled
from .claim import claimed
from .job import GradeJob
from .stream_stats import RowStats, counted
from .terminal import note, print_summary, print_threshold


@dataclass
class Outcome:
    """How a run went: the assembled reports' statistics and counts."""

    assembled: Assembled
    outputs: dict[str, Path]
    scored_now: int
    from_before: int
    interrupted: bool
    classroom: Any = None  # what the plug-in's end wrote (``written``, ``passed``, ``pages``), if anything
    kept: bool = True  # whether the scored parts outlive the run (not with --no-cache or a stream only)
    work: Path | None = None  # the scored-parts folder
    problems: list[str] = field(default_factory=list)  # problem-level errors (``problem_errors``)
    withheld: bool = False  # grade books and feedback not written (interrupted, or a problem-level error)

    @property
    def stats(self) -> Any:
        return self.assembled.stats


def run_job(job: GradeJob, check_languages: Callable[[Iterable[str]], None] | None = None) -> int:
    """Grade, write the reports, say how it went; the exit code. ``check_languages``: called with
    the run's languages before anything is scored (the command's ``--layer`` check)."""
    try:
        outcome = execute(job, check_languages=check_languages, echo=not job.report_paths, say=True)
    except KeyboardInterrupt as stop:  # before the run could say how far it got (setting up, assembling)
        kept = getattr(stop, "kept_in", None)
        where = f" from the scored parts kept in {kept}" if kept is not None else ""
        print(f"refscore: interrupted; {rerun_hint(not job.cache.off)}{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return finish(job, outcome)


def execute(job: GradeJob, *, check_languages: Callable[[Iterable[str]], None] | None = None,
            echo: bool = False, say: bool = False) -> Outcome:
    """The whole run without its summary lines (``dataset.grade_dataset`` calls it too)."""
    start = time.perf_counter()
    with claimed(job) as place:
        got = steps.read(job, place, say)
        planned = steps.plan(job, got, place, say, check_languages)
        run = steps.score(job, planned, place, say)
        info = steps.run_info(job, got, planned, run, start)
        similar = steps.similarity(job, got.items.items, place.outputs, info, say, got.items.starters)
        done = steps.reports(job, got, planned, run, place, info, similar, echo, say)
        written, held_back = steps.classroom_end(got, planned, run, done, start, say)
    return Outcome(done, place.outputs, run.scored, planned.plan.from_before, run.interrupted, written,
                   not place.temporary, place.work, got.items.problem_errors, held_back)


#: What a rerun does, with the scored parts kept (a cache) or not (``--no-cache``).
RERUN = "rerun the same command to finish"
RERUN_FROM_NOTHING = "nothing was kept without a cache: a rerun scores everything again"


def rerun_hint(kept: bool) -> str:
    """What a rerun does: finish from the kept parts, or score everything again."""
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
