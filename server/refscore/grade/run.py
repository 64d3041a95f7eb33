"""One path for every ``refscore grade`` run, whatever its size or engine:

inputs -> blocks (``plan``: pass one) -> an engine (``local_engine`` in this process or through
the daemon, ``ray_engine`` on a cluster: pass two) -> parts (``parts``) -> the reports
(``assemble``). An in-memory class of 30 files is the one-block case of the same path. The parts
are the one cache: a rerun of the same job scores only the items no part holds.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable

from .. import __version__
from ..errors import InputFileError, UsageError
from ..safe_write import check_folder, first_missing, remove_empty_folders
from ..files.sources import STDIN
from ..vocabulary import EXIT_INTERRUPTED
from .assemble import Assembled, IncompleteRun, assemble
from .classroom_end import withheld, write_outputs
from .inputs import read_submissions, spool_stdin
from .items import GradeItem
from .job import DETAIL_LIMIT, PANES_LIMIT, GradeJob
from .folder_lock import lock_folders
from .local_engine import EngineRun
from .parts import PartStore
from .placeholders import placeholders
from .plan import BlockWork, Plan, Sources, plan_run
from .progress import Progress
from .rows import INTERRUPTED, INTERRUPTED_NOT_KEPT
from .targets import STDOUT, OutputClashError, OutputFileError, check_outputs, is_stream, regular_targets, \
    write_target
from .run_end import finish, rerun_hint
from .terminal import echo_row, note


@dataclass
class Outcome:
    """How a run went: the assembled reports' statistics and counts."""

    assembled: Assembled
    outputs: dict[str, Path]
    scored_now: int
    from_before: int
    interrupted: bool
    classroom: Any = None  # ``classroom.outputs.ClassroomResult`` when the job asks for classroom outputs
    kept: bool = True  # whether the scored parts outlive the run (not with --no-cache or a stream only)
    work: Path | None = None  # the scored-parts folder
    problems: list[str] = field(default_factory=list)  # problem-level errors (``problem_errors``)
    withheld: bool = False  # grade books and feedback not written (interrupted, or a problem-level error)

    @property
    def stats(self) -> Any:
        return self.assembled.stats


def output_files(job: GradeJob) -> dict[str, Path]:
    """The reports asked for plus the row files beside the first report file: ``.jsonl`` for
    every run, ``.parquet`` when the job asks for it (``--parquet``; pyarrow's import alone costs
    more than grading a thousand CodeBLEU rows). A link the user named as a report is replaced by
    the file it names (the link stays); no other link is ever followed."""
    outputs = {kind: write_target(path) if kind in job.named else path for kind, path in job.report_paths.items()}
    files = regular_targets(outputs)  # the row files go beside a report file, never beside a stream
    if files:
        first = files[0]
        outputs["jsonl"] = first.with_suffix(".jsonl")
        if job.parquet:
            outputs["parquet"] = first.with_suffix(".parquet")
        if job.similarity is not None:
            from .similarity_report import report_paths

            outputs.update({f"similarity_{kind}": path for kind, path in report_paths(first.parent).items()})
    return outputs


def work_folder(job: GradeJob) -> tuple[Path, bool]:
    """The scored-parts folder and whether it is temporary (``--no-cache`` or nowhere to keep it).
    Beside the first report its own name is never resolved: a link planted there is refused."""
    if not job.no_cache and job.cache:
        return Path(job.cache).resolve(), False
    files = regular_targets(output_files(job))
    if not job.no_cache and files:
        first = files[0]
        return first.parent.resolve() / f"{first.stem}.parts", False
    return Path(tempfile.mkdtemp(prefix="refscore-grade-")), True


def _folders_to_make(outputs: dict[str, Path], folders: list[Path]) -> list[Path]:
    """The outermost folders of the reports and of ``folders`` (the parts folder, the feedback
    pages') that do not exist yet: a run that fails before it writes anything removes them again
    if they are still empty."""
    places = [Path(p).parent for p in outputs.values() if str(p) != STDOUT] + folders
    return [m for m in dict.fromkeys(first_missing(Path(os.path.abspath(p))) for p in places) if m is not None]


def _remove_made(made: list[Path]) -> None:
    for folder in made:
        remove_empty_folders(folder)


def _check_work_folder(work: Path, shown: str, outputs: dict[str, Path]) -> None:
    """The folder that keeps scored parts between runs: one line (exit 3) when it cannot be one,
    exit 2 when a report is written there."""
    from ..safe_read import kind_of

    for kind, path in outputs.items():
        if str(path) != STDOUT and os.path.realpath(path) == str(work):
            raise OutputClashError(f"{shown}: the {kind.upper()} report is written there too; give each its own "
                                   "file or folder")
    if shown.endswith(" -") or (work.exists() and not work.is_dir()):
        what = "standard output" if shown.endswith(" -") else \
            ("a file" if work.is_file() else kind_of(os.stat(work).st_mode) or "not a folder")
        raise OutputFileError(f"{shown}: is {what}; grading keeps its scored parts in a folder "
                              "(name a new or existing folder)")
    for folder in (work, work / "parts", work / "input"):
        check_folder(folder, shown if folder == work else f"{shown}: its folder")


def run_job(job: GradeJob, check_languages: Callable[[Iterable[str]], None] | None = None) -> int:
    """Grade, write the reports, say how it went; the exit code. ``check_languages``: called with
    the run's languages before anything is scored (the command's ``--layer`` check)."""
    try:
        outcome = execute(job, check_languages=check_languages, echo=not job.report_paths, say=True)
    except KeyboardInterrupt as stop:  # before the run could say how far it got (setting up, assembling)
        kept = getattr(stop, "kept_in", None)
        where = f" from the scored parts kept in {kept}" if kept is not None else ""
        print(f"refscore: interrupted; {rerun_hint(not job.no_cache)}{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return finish(job, outcome)


def execute(job: GradeJob, *, check_languages: Callable[[Iterable[str]], None] | None = None,
            echo: bool = False, say: bool = False, actors: int | None = None, actors_per_gpu: int = 1) -> Outcome:
    """The whole run without its summary lines (``dataset.grade_dataset`` calls it too)."""
    start = time.perf_counter()
    outputs = output_files(job)
    if job.similarity is not None and "similarity_html" not in outputs:
        raise UsageError("--similarity writes similarity.html, .json and .csv beside the reports: give -o DIR "
                         "(or a --csv/--json/--html FILE that is not a stream)")
    work, temporary = work_folder(job)
    classroom = job.classroom
    extra = classroom.named_outputs() if classroom is not None else {}
    # the folders this run writes besides its reports' (locked with them, ``folder_lock``)
    folders = [*([] if temporary else [work]), *([classroom.feedback] if classroom and classroom.feedback else [])]
    made = _folders_to_make({**outputs, **extra}, folders)
    try:
        check_outputs({**outputs, **extra}, [*job.inputs.named_files(), *([job.idf_file] if job.idf_file else []),
                                             *([job.inputs_file] if job.inputs_file else [])],
                      job.named | set(extra))
        if not temporary:
            _check_work_folder(work, f"--cache {job.cache}" if job.cache else f"the scored-parts folder {work}",
                               outputs)
        # one run at a time writes these folders (``folder_lock``), from here to its last output
        locks = lock_folders([*(p.parent for p in regular_targets({**outputs, **extra})), *folders])
    except Exception:
        _remove_made(made)
        raise
    stream = None  # --jsonl -: the folder standard input is kept in for the run
    try:
        own = [*outputs.values(), *extra.values(), *([classroom.feedback] if classroom and classroom.feedback else []),
               work, *([Path(job.inputs_file)] if job.inputs_file else [])]
        items = read_submissions(job.inputs, own=own)
        if classroom is not None:
            classroom.check_items(items.items)  # e.g. --gradescope and several students: refused before scoring
        key = None
        if classroom is not None and classroom.anonymise_key is not None:
            from .classroom.anonymise import anonymise_items
            from .classroom.outputs import load_key

            key = load_key(classroom)
            anonymise_items(items, key)
        jsonl = [Path(p) for p in job.inputs.jsonl]
        if STDIN in job.inputs.jsonl:
            if say and sys.stdin.isatty():
                note("reading JSONL lines from standard input (end with Ctrl-D)")
            stream = Path(tempfile.mkdtemp(prefix="refscore-stdin-"))
            piped = spool_stdin(stream)
            jsonl = [piped if str(p) == STDIN else p for p in jsonl]
        sources = Sources(items.items, jsonl, job.inputs.language, job.block_lines, job.inputs.fields)
        lines = sources.lines()
        cluster = _connect(job) if job.engine == "ray" else None
        sources.remember = cluster is None and lines <= DETAIL_LIMIT  # pass two reads no file again
        # only the HTML page and the feedback pages show the detail
        detail = lines <= DETAIL_LIMIT and ("html" in outputs or bool(classroom and classroom.needs_details))
        # the code panes (and the explanations they show) for runs small enough to read that way
        panes = detail and (lines <= PANES_LIMIT or bool(classroom and classroom.needs_details))
        work_data = BlockWork(replace(job.settings, explain=panes), job.inputs.language, detail, None,
                              _device_kind(job, cluster), job.inputs.fields, _sandbox_kind(job))
        store = PartStore(work / "parts", durable=not temporary)
        store.remove_stale_temporaries()  # a crash or a full disk left them; no other run writes here now
        plan = plan_run(sources, work_data, store, spool_dir=work / "input" if cluster is not None else None)
        if say:  # before a run that finds nothing stops: a note may say why (an unknown key)
            for line in [*items.notes, *plan.notes]:
                note(line)
        if not plan.items:
            raise InputFileError("no submissions found in the inputs given")
        if check_languages is not None:
            check_languages(sorted({i.language for i in items.items if i.language}))
        mode = "none" if job.progress == "none" else job.progress
        progress = Progress(lines, tty=None if mode == "auto" else mode == "bar", enabled=mode != "none")
        progress.update(cached=plan.from_before, skipped=plan.blank_lines)
        try:
            run = _score(job, plan, sources, store, work, cluster, progress, actors, actors_per_gpu, say)
        finally:
            progress.close()
        store.refresh()
        info = {"refscore_version": __version__, "engine": job.engine, "metrics": list(job.settings.metrics),
                "weights": list(job.settings.weights), "codebleu_rule": job.settings.codebleu_rule,
                "scorer": job.settings.scorer_tag, "per_function": job.settings.per_function,
                "interrupted": run.interrupted, "scored_now": run.scored, "from_cache": plan.from_before,
                "block_lines": job.block_lines, "elapsed_s": round(time.perf_counter() - start, 3)}
        if items.classes:  # classroom inputs: students, missing ones, unmatched files (``classroom.assign``)
            info["classes"] = items.classes
        similar = _similarity(job, items.items, outputs, info, say, items.starters)

        from .classroom.teacher_html import teacher_table

        def write_reports() -> Assembled:
            why = INTERRUPTED_NOT_KEPT if temporary else INTERRUPTED
            fill = placeholders(sources, why) if run.interrupted else None
            try:
                return assemble(plan.blocks, store, outputs, info, job.title, job.rank_by, job.threshold,
                                echo_row if echo else None, fill, plan.work.detail, similar,
                                keep=classroom is not None, held=run.details, panes=panes,
                                students=teacher_table(classroom, outputs.get("html"), info))
            except IncompleteRun as error:  # parts vanished under us (another run cleaning up?)
                raise UsageError(f"{error}; rerun the same command to finish") from None

        try:
            done = write_reports()
        except KeyboardInterrupt:  # Ctrl-C while the reports are written (long for a block run)
            if say:
                note("interrupted while writing the reports: writing them from the scored parts "
                     "(Ctrl-C again to stop without reports)")
            run.interrupted = info["interrupted"] = True
            done = write_reports()  # every output is replaced whole: a half-written one never stays
        written, held_back = None, classroom is not None and withheld(done, items.problem_errors)
        if classroom is not None:  # no grade book or feedback page from rows that are not grades
            written, stopped = write_outputs(classroom, done, key, time.perf_counter() - start, say, store, plan,
                                             held_back)
            run.interrupted = run.interrupted or stopped
    except KeyboardInterrupt as stop:
        stop.kept_in = None if temporary else work  # type: ignore[attr-defined]  # for the one last line
        raise
    except Exception:
        locks.release()
        _remove_made(made)  # e.g. no input found: no empty output folders left behind
        raise
    finally:
        locks.release()
        if temporary:
            shutil.rmtree(work, ignore_errors=True)
        if stream is not None:
            shutil.rmtree(stream, ignore_errors=True)
    return Outcome(done, outputs, run.scored, plan.from_before, run.interrupted, written, not temporary, work,
                   items.problem_errors, held_back)


def _similarity(job: GradeJob, items: list[GradeItem], outputs: dict[str, Path], info: dict[str, Any],
                say: bool, starters: dict[str | None, tuple[str, ...]]) -> dict[tuple[str, str | None], list[str]] | None:
    """``--similarity``: compare the students of each problem, write the similarity report, and
    give the grade report's ``similar_to`` cells (None without ``--similarity``); ``starters``: the
    mapping problems' own starter code (``ItemSet.starters``), before ``--starter``'s."""
    if job.similarity is None:
        return None
    from .similarity import NOTHING_TO_COMPARE, comparable_pairs, empty_problems, flagged_pairs, flags, nothing_in, \
        similarity_of
    from .classroom.resubmissions import earlier_version
    from .similarity_report import write_similarity

    items = [item for item in items if not earlier_version(item)]  # never a student and their own earlier work
    problems = similarity_of(items, job.similarity, {**_starters(job, items), **starters})
    write_similarity(outputs["similarity_html"].parent, problems, job.similarity)
    count = flagged_pairs(problems)
    possible = comparable_pairs(problems)
    empty = empty_problems(problems) if possible else []
    info["similarity"] = {"threshold": job.similarity, "flagged_pairs": count, "possible_pairs": possible,
                          "nothing_to_compare": empty, "page": _page_link(outputs)}
    if say:
        found = (NOTHING_TO_COMPARE if not possible else
                 f"{count} pair(s) of submissions at or above {job.similarity:g}{nothing_in(empty)} "
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
    from .classroom.assign import starter_for

    out: dict[str | None, tuple[str, ...]] = {}
    for problem, language in dict.fromkeys((i.problem, i.language) for i in items if i.language):
        found = starter_for(job.inputs.starter, language)
        out[problem] = found.texts if found is not None else ()
    return out


def _connect(job: GradeJob) -> Any:
    from ..scale.cluster import connect

    return connect(job.ray_address)


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


def _score(job: GradeJob, plan: Plan, sources: Sources, store: PartStore, work: Path, cluster: Any,
           progress: Progress, actors: int | None, actors_per_gpu: int, say: bool) -> EngineRun:
    """Pass two on the job's engine."""
    if cluster is not None:
        from .ray_engine import run_ray

        return run_ray(plan, work, cluster, progress, actors, actors_per_gpu)
    from ..engines import open_scorer
    from .local_engine import run_local

    scorer = open_scorer("daemon_or_local" if job.engine == "daemon" else "local", autostart=True)
    try:
        return run_local(plan, sources, store, scorer, progress)
    finally:
        scorer.close()
        if say:
            for line in getattr(scorer, "notes", ()):
                note(line)
