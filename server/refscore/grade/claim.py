"""A run's first step: its outputs and folders, checked and locked before anything is read
(``claimed``), and cleaned up however the run ends: folders it made and left empty are removed
after an error, a temporary parts folder and a spooled standard input always."""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import UsageError
from ..safe_write import check_folder, first_missing, remove_empty_folders
from .folder_lock import lock_folders
from .job import GradeJob
from .targets import STDOUT, OutputClashError, OutputFileError, check_outputs, regular_targets, write_target


@dataclass
class Place:
    """Where a run writes: the reports and row files, the plug-in's outputs, the parts folder."""

    outputs: dict[str, Path]
    extra: dict[str, Path]  # the plug-in's (``hooks.GradeHooks.outputs``)
    folders: list[Path]  # the plug-in's folders (feedback pages)
    work: Path  # the scored-parts folder
    temporary: bool  # removed at the end (``--no-cache``, or nowhere to keep it)
    stream: Path | None = None  # --jsonl -: the folder standard input is spooled to for the run

    def own(self, job: GradeJob) -> list[Path]:
        """Everything this run writes or reads besides the submissions: never graded."""
        return [*self.outputs.values(), *self.extra.values(), *self.folders, self.work,
                *([Path(job.inputs.behaviour_inputs)] if job.inputs.behaviour_inputs else [])]


def output_files(job: GradeJob) -> dict[str, Path]:
    """The reports asked for plus the row files beside the first report file: ``.jsonl`` for
    every run, ``.parquet`` when the job asks for it (``--parquet``; pyarrow's import alone costs
    more than grading a thousand CodeBLEU rows). A link the user named as a report is replaced by
    the file it names (the link stays); no other link is ever followed."""
    reports = job.reports
    outputs = {kind: write_target(path) if kind in reports.named else path for kind, path in job.report_paths.items()}
    files = regular_targets(outputs)  # the row files go beside a report file, never beside a stream
    if files:
        first = files[0]
        outputs["jsonl"] = first.with_suffix(".jsonl")
        if reports.parquet:
            outputs["parquet"] = first.with_suffix(".parquet")
        if reports.similarity is not None:
            from .similarity_report import report_paths

            outputs.update({f"similarity_{kind}": path for kind, path in report_paths(first.parent).items()})
    return outputs


def work_folder(job: GradeJob) -> tuple[Path, bool]:
    """The scored-parts folder and whether it is temporary (``--no-cache`` or nowhere to keep it).
    Beside the first report its own name is never resolved: a link planted there is refused."""
    if not job.cache.off and job.cache.folder:
        return Path(job.cache.folder).resolve(), False
    files = regular_targets(output_files(job))
    if not job.cache.off and files:
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


@contextmanager
def claimed(job: GradeJob) -> Iterator[Place]:
    """The run's outputs checked against its inputs and each other, their folders locked (one
    run at a time writes them, ``folder_lock``) until the block ends. Ctrl-C leaves the parts
    folder named on the exception (``kept_in``) for the one last line."""
    outputs = output_files(job)
    if job.reports.similarity is not None and "similarity_html" not in outputs:
        raise UsageError("--similarity writes similarity.html, .json and .csv beside the reports: give -o DIR "
                         "(or a --csv/--json/--html FILE that is not a stream)")
    work, temporary = work_folder(job)
    extra, folders = job.hooks.outputs(), job.hooks.folders()
    # the folders this run writes besides its reports' (locked with them)
    writes = [*([] if temporary else [work]), *folders]
    made = _folders_to_make({**outputs, **extra}, writes)
    try:
        check_outputs({**outputs, **extra}, job.inputs.named_files(), job.reports.named | set(extra))
        if not temporary:
            cache = job.cache.folder
            _check_work_folder(work, f"--cache {cache}" if cache else f"the scored-parts folder {work}", outputs)
        locks = lock_folders([*(p.parent for p in regular_targets({**outputs, **extra})), *writes])
    except Exception:
        _remove_made(made)
        if temporary:
            shutil.rmtree(work, ignore_errors=True)
        raise
    place = Place(outputs, extra, folders, work, temporary)
    try:
        yield place
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
        if place.stream is not None:
            shutil.rmtree(place.stream, ignore_errors=True)
