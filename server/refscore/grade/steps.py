"""The named steps of a ``refscore grade`` run, in order (``run.execute`` calls them):

read (the submissions; the plug-in's ``start``) -> plan (blocks and parts: pass one) -> score
(the engine: pass two, the only engine-specific step) -> similarity -> reports -> the plug-in's
``end`` (grade books, feedback pages). Each step takes the job and what the steps before it gave.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable

from .. import __version__
from ..errors import InputFileError, UsageError
from ..files.sources import STDIN
from .assemble import Assembled, IncompleteRun, assemble
from .block_score import Staged
from .claim import Place
from .hooks import ClassroomRun
from .inputs import read_submissions, spool_stdin
from .items import GradeItem, ItemSet, earlier_version
from .job import DETAIL_LIMIT, PANES_LIMIT, GradeJob
from .local_engine import EngineRun
from .parts import PartStore
from .plan import BlockWork, Plan, PlannedBlock, Sources, plan_run
from .progress import Progress
from .rows import INTERRUPTED, INTERRUPTED_NOT_KEPT
from .starter import starter_for
from .targets import is_stream
from .terminal import echo_row, note


@dataclass
class Read:
    """Step 1's result: the submissions read into memory, the JSONL files, the plug-in's run."""

    items: ItemSet
    jsonl: list[Path]
    classroom: ClassroomRun | None


@dataclass
class Planned:
    """Step 2's result: the blocks, the parts that hold them, the engine's cluster (Ray)."""

    sources: Sources
    plan: Plan
    store: PartStore
    cluster: Any  # ``scale.cluster`` connection with ``--engine ray``, else None
    lines: int  # the inputs' lines (submissions read into memory count one each)
    panes: bool  # the HTML page shows each submission's code


def read(job: GradeJob, place: Place, say: bool) -> Read:
    """Step 1: the submissions (files, classes through the plug-in, mappings), the plug-in's
    checks before scoring (one line), ``--jsonl -`` spooled for the run."""
    items = read_submissions(job.inputs, own=place.own(job), classes=job.hooks.classes)
    classroom = job.hooks.start(items)  # e.g. --gradescope and several students: refused before scoring
    jsonl = [Path(p) for p in job.inputs.jsonl]
    if STDIN in job.inputs.jsonl:
        if say and sys.stdin.isatty():
            note("reading JSONL lines from standard input (end with Ctrl-D)")
        place.stream = Path(tempfile.mkdtemp(prefix="refscore-stdin-", dir=_spool_folder(job, place)))
        piped = spool_stdin(place.stream)
        jsonl = [piped if str(p) == STDIN else p for p in jsonl]
    return Read(items, jsonl, classroom)


def _spool_folder(job: GradeJob, place: Place) -> Path | None:
    """Where ``--jsonl -`` is kept for the run: beside the blocks spooled for Ray's workers
    (``WORK/input``, on storage every node sees), else the system's temporary folder."""
    if job.engine.kind != "ray":
        return None
    folder = place.work / "input"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def plan(job: GradeJob, got: Read, place: Place, say: bool,
         check_languages: Callable[[Iterable[str]], None] | None) -> Planned:
    """Step 2: the blocks and which of them earlier runs' parts already hold (pass one)."""
    sources = Sources(got.items.items, got.jsonl, job.inputs.language, job.engine.block_lines, job.inputs.fields)
    lines = sources.lines()
    cluster = _connect(job) if job.engine.kind == "ray" else None
    sources.remember = cluster is None and lines <= DETAIL_LIMIT  # pass two reads no file again
    # only the HTML page and the plug-in's pages (feedback) show the detail
    detail = lines <= DETAIL_LIMIT and ("html" in place.outputs or job.hooks.needs_details)
    # the code panes (and the explanations they show) for runs small enough to read that way
    panes = detail and (lines <= PANES_LIMIT or job.hooks.needs_details)
    work = BlockWork(replace(job.settings, explain=panes), job.inputs.language, detail, None,
                     _device_kind(job, cluster), job.inputs.fields, _sandbox_kind(job))
    store = PartStore(place.work / "parts", durable=not place.temporary)
    store.remove_stale_temporaries()  # a crash or a full disk left them; no other run writes here now
    planned = plan_run(sources, work, store, spool_dir=place.work / "input" if cluster is not None else None)
    if say:  # before a run that finds nothing stops: a note may say why (an unknown key)
        for line in [*got.items.notes, *planned.notes]:
            note(line)
    if not planned.items:
        raise InputFileError("no submissions found in the inputs given")
    if check_languages is not None:
        check_languages(sorted({i.language for i in got.items.items if i.language}))
    return Planned(sources, planned, store, cluster, lines, panes)


def score(job: GradeJob, planned: Planned, place: Place, say: bool) -> EngineRun:
    """Step 3: pass two on the job's engine, with progress on stderr."""
    mode = job.engine.progress
    progress = Progress(planned.lines, tty=None if mode == "auto" else mode == "bar",
                        enabled=mode != "none")
    progress.update(cached=planned.plan.from_before, skipped=planned.plan.blank_lines)
    try:
        run = _on_engine(job, planned, place.work, progress, say)
    finally:
        progress.close()
    planned.store.refresh()
    return run


def run_info(job: GradeJob, got: Read, planned: Planned, run: EngineRun, start: float) -> dict[str, Any]:
    """The reports' ``settings``: how the run was made."""
    settings = job.settings
    info = {"refscore_version": __version__, "engine": job.engine.kind, "metrics": list(settings.metrics),
            "weights": list(settings.weights), "codebleu_rule": settings.codebleu_rule,
            "scorer": settings.scorer_tag, "per_function": settings.per_function,
            "interrupted": run.interrupted, "scored_now": run.scored, "from_cache": planned.plan.from_before,
            "block_lines": job.engine.block_lines, "elapsed_s": round(time.perf_counter() - start, 3)}
    if got.items.classes:  # classes read: students, missing ones, unmatched files (the plug-in's)
        info["classes"] = got.items.classes
    return info


def similarity(job: GradeJob, items: list[GradeItem], outputs: dict[str, Path], info: dict[str, Any],
               say: bool, starters: dict[str | None, tuple[str, ...]]) -> dict[tuple[str, str | None], list[str]] | None:
    """Step 4 (``--similarity``): compare the students of each problem, write the similarity
    report; the grade report's ``similar_to`` cells (None without ``--similarity``).
    ``starters``: the mapping problems' own starter code (``ItemSet.starters``), before
    ``--starter``'s."""
    threshold = job.reports.similarity
    if threshold is None:
        return None
    from .similarity import NOTHING_TO_COMPARE, comparable_pairs, empty_problems, flagged_pairs, flags, nothing_in, \
        similarity_of
    from .similarity_report import write_similarity

    items = [item for item in items if not earlier_version(item)]  # never a student and their own earlier work
    problems = similarity_of(items, threshold, {**_starters(job, items), **starters})
    write_similarity(outputs["similarity_html"].parent, problems, threshold)
    count = flagged_pairs(problems)
    possible = comparable_pairs(problems)
    empty = empty_problems(problems) if possible else []
    info["similarity"] = {"threshold": threshold, "flagged_pairs": count, "possible_pairs": possible,
                          "nothing_to_compare": empty, "page": _page_link(outputs)}
    if say:
        found = (NOTHING_TO_COMPARE if not possible else
                 f"{count} pair(s) of submissions at or above {threshold:g}{nothing_in(empty)} "
                 "(a hint, not a verdict)")
        note(f"similarity: {found}: {outputs['similarity_html']}")
        if job.inputs.jsonl:
            note("similarity: --jsonl lines are not compared (only submission files and mapping problems)")
    return flags(problems)


def _page_link(outputs: dict[str, Path]) -> str:
    """The similarity page as the grade page links it: its path from the grade page's folder
    (``--csv a/grade.csv --html b/grade.html`` puts it in ``a/``), else its name."""
    page, html = outputs["similarity_html"], outputs.get("html")
    if html is None or is_stream(html):
        return page.name
    return Path(os.path.relpath(os.path.abspath(page), os.path.abspath(html.parent))).as_posix()


def _starters(job: GradeJob, items: list[GradeItem]) -> dict[str | None, tuple[str, ...]]:
    """``--starter``'s texts for each problem's language: their k-grams count for no one (on top of
    the starter rule the items were read with, which left the block headers a student filled in)."""
    if not job.inputs.starter:
        return {}
    out: dict[str | None, tuple[str, ...]] = {}
    for problem, language in dict.fromkeys((i.problem, i.language) for i in items if i.language):
        found = starter_for(job.inputs.starter, language)
        out[problem] = found.texts if found is not None else ()
    return out


def placeholders(sources: Sources, why: str) -> Callable[[PlannedBlock, set[int]], dict[int, dict[str, Any]]]:
    """``assemble``'s fill for an interrupted run: for each item no scored part holds, a row saying
    the run was interrupted (``why``: whether a rerun resumes), so the reports list every
    submission (the inputs are read again, in order, once per assembly pass)."""
    state: dict[str, Any] = {"scan": None, "last": -1}

    def fill(block: PlannedBlock, held: set[int]) -> dict[int, dict[str, Any]]:
        if state["scan"] is None or block.index <= state["last"]:
            state["scan"] = sources.scan()
        state["last"] = block.index
        for spec, items in state["scan"]:
            if spec.index == block.index:
                out = {}
                for offset, item in items:
                    if offset not in held:
                        staged = Staged(offset, item)
                        _, row, detail, _ = staged.entry(True)
                        row["errors"] = [*row["errors"], why] if item.scorable else row["errors"]
                        out[offset] = {"row": row, "detail": detail}
                return out
        return {}

    return fill


def reports(job: GradeJob, got: Read, planned: Planned, run: EngineRun, place: Place, info: dict[str, Any],
            similar: dict[tuple[str, str | None], list[str]] | None, echo: bool, say: bool) -> Assembled:
    """Step 5: the reports from the parts; Ctrl-C while they are written writes them again
    whole (a second Ctrl-C stops without them)."""
    outputs, classroom = place.outputs, got.classroom
    page = classroom.page(info, outputs.get("html")) if classroom is not None else None

    def write() -> Assembled:
        why = INTERRUPTED_NOT_KEPT if place.temporary else INTERRUPTED
        fill = placeholders(planned.sources, why) if run.interrupted else None
        try:
            return assemble(planned.plan.blocks, planned.store, outputs, info, job.reports.title,
                            job.reports.rank_by, job.reports.threshold, echo_row if echo else None, fill,
                            planned.plan.work.detail, similar, keep=classroom is not None and classroom.writes,
                            held=run.details, panes=planned.panes, students=page)
        except IncompleteRun as error:  # parts vanished under us (another run cleaning up?)
            raise UsageError(f"{error}; rerun the same command to finish") from None

    try:
        return write()
    except KeyboardInterrupt:  # Ctrl-C while the reports are written (long for a block run)
        if say:
            note("interrupted while writing the reports: writing them from the scored parts "
                 "(Ctrl-C again to stop without reports)")
        run.interrupted = info["interrupted"] = True
        return write()  # every output is replaced whole: a half-written one never stays


def withheld(done: Assembled, problem_errors: list[str]) -> bool:
    """Whether the run's rows are not grades: not every submission was reached, a problem had
    nothing to grade, or no row has a score (no grade book or feedback page from those)."""
    return bool(done.stats.unfinished or problem_errors or not done.numbered)


def classroom_end(got: Read, planned: Planned, run: EngineRun, done: Assembled, start: float,
                  say: bool) -> tuple[Any, bool]:
    """Step 6: the plug-in's outputs after the reports; (what it wrote, whether they were held
    back: rows that are not grades)."""
    classroom = got.classroom
    if classroom is None or not classroom.writes:
        return None, False
    held_back = withheld(done, got.items.problem_errors)
    written, stopped = classroom.end(done, held_back, time.perf_counter() - start, say, planned.store,
                                     planned.plan)
    run.interrupted = run.interrupted or stopped
    return written, held_back


def _connect(job: GradeJob) -> Any:
    from ..scale.cluster import connect

    return connect(job.engine.ray_address)


def _device_kind(job: GradeJob, cluster: Any) -> str:
    """Where CodeBERTScore runs: ``cuda`` (half precision) or ``cpu`` (part of the parts' key)."""
    if "codebertscore" not in job.settings.metrics:
        return "cpu"
    if cluster is not None:
        from .ray_engine import device_kind

        return device_kind(cluster, job.settings)
    from ..embed.device import select_device

    return "cuda" if select_device(job.settings.device).startswith("cuda") else "cpu"


def _sandbox_kind(job: GradeJob) -> str | None:
    """Where behaviour runs candidates (part of the parts' key, as it decides the behaviour
    column): ``bwrap``, ``none`` (``--unsandboxed``) or ``unavailable``; None without behaviour. A
    run scored where no sandbox was is scored again where one is."""
    if "behaviour" not in job.settings.metrics:
        return None
    from ..behaviour.sandbox import SandboxUnavailable, find_sandbox

    try:
        return find_sandbox(job.settings.unsandboxed).kind
    except SandboxUnavailable:
        return "unavailable"


def _on_engine(job: GradeJob, planned: Planned, work: Path, progress: Progress, say: bool) -> EngineRun:
    """Pass two on the job's engine."""
    if planned.cluster is not None:
        from .ray_engine import run_ray

        return run_ray(planned.plan, work, planned.cluster, progress, job.engine.actors, job.engine.actors_per_gpu)
    from ..engines import open_scorer
    from .local_engine import run_local

    scorer = open_scorer("daemon_or_local" if job.engine.kind == "daemon" else "local", autostart=True)
    try:
        return run_local(planned.plan, planned.sources, planned.store, scorer, progress)
    finally:
        scorer.close()
        if say:
            for line in getattr(scorer, "notes", ()):
                note(line)
