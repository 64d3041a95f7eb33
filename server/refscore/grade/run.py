"""One path for every ``refscore grade`` run, whatever its size or engine, as named steps:

claim (outputs checked, folders locked: ``claim``) -> read -> plan (blocks: pass one) -> score
(an engine: ``local_engine`` in this process or through the daemon, ``ray_engine`` on a cluster:
pass two) -> similarity -> reports (``assemble``) -> the plug-in's end (``hooks``: the classroom's
grade books and feedback pages). Only ``score`` depends on the engine, so every feature runs the
same on each. An in-memory class of 30 files is the one-block case of the same path. The parts are
the one cache: a rerun of the same job scores only the items no part holds.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..vocabulary import EXIT_INTERRUPTED
from . import steps
from .assemble import Assembled
from .claim import claimed
from .job import GradeJob
from .run_end import finish, rerun_hint
from .similarity_step import similarity


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
        similar = similarity(job, got.items.items, place.outputs, info, say, got.items.starters)
        done = steps.reports(job, got, planned, run, place, info, similar, echo, say)
        written, held_back = steps.classroom_end(got, planned, run, done, start, say)
    return Outcome(done, place.outputs, run.scored, planned.plan.from_before, run.interrupted, written,
                   not place.temporary, place.work, got.items.problem_errors, held_back)
