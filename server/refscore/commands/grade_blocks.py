"""``refscore grade`` block by block: ``--engine ray``, and large JSONL/Parquet inputs locally.

Used when the engine is Ray, when ``--block-lines`` is given, or when the ``--jsonl`` inputs
hold more than ``STREAM_THRESHOLD`` lines (and nothing else is graded): rows stream through the
scorer into part files and from them into the reports, so memory does not grow with the input.
The HTML report is then the summary kind (statistics, histograms, lowest and highest items).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import EXIT_OK, InputFileError
from ..grade.assemble import Assembled, IncompleteRun, assemble
from ..grade.block_run import BlockJob, BlockRun, count_lines, run_local
from ..grade.blocks import DEFAULT_BLOCK_LINES
from ..grade.progress import Progress
from ..grade.rows import LABELS
from ..grade.runner import GradeSettings, scorer_tag
from ..grade.targets import STDOUT, is_stdout, regular_targets, write_target
from .bert_options import idf_setting
from .options import UsageError, default_fail_metric

#: Above this many input lines, the local engine grades block by block (bounded memory).
STREAM_THRESHOLD = 20_000
EXIT_INTERRUPTED = 130


def wanted(args: argparse.Namespace) -> bool:
    """Whether this command line is graded block by block (UsageError when it cannot be)."""
    only_jsonl = bool(args.jsonl) and not (args.submissions or args.mapping or args.reference)
    if args.engine == "ray" or args.block_lines is not None:
        why = "--engine ray" if args.engine == "ray" else "--block-lines"
        if not only_jsonl:
            raise UsageError(f"{why} grades --jsonl inputs (JSONL, JSONL.gz or Parquet) only")
        if args.per_function:
            raise UsageError(f"--per-function cannot be used with {why}")
        if args.block_lines is not None and args.block_lines < 1:
            raise UsageError("--block-lines must be at least 1")
        return True
    if not only_jsonl or args.per_function:
        return False
    return sum(count_lines(Path(p)) for p in args.jsonl) > STREAM_THRESHOLD


def _outputs(args: argparse.Namespace, reports: dict[str, Path]) -> dict[str, Path]:
    """The usual reports plus the row files (``.jsonl`` and ``.parquet`` beside the first)."""
    outputs = dict(reports)
    files = regular_targets(reports)  # the row files go beside a report file, never beside a stream
    if files:
        first = write_target(files[0])
        outputs["jsonl"] = first.with_suffix(".jsonl")
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            print("refscore: note: no Parquet file without pyarrow (pip install 'refscore[ray]')", file=sys.stderr)
        else:
            outputs["parquet"] = first.with_suffix(".parquet")
    return outputs


def _work(args: argparse.Namespace, reports: dict[str, Path]) -> tuple[Path, bool]:
    """The parts folder and whether it is temporary (``--no-cache`` or nowhere to keep it)."""
    if not args.no_cache and args.cache:
        return Path(args.cache).resolve(), False
    files = regular_targets(reports)
    if not args.no_cache and files:
        first = write_target(files[0])
        return first.with_name(f"{first.stem}.parts").resolve(), False
    return Path(tempfile.mkdtemp(prefix="refscore-grade-")), True


def _check_work_folder(work: Path, name: str) -> None:
    """The folder that keeps scored blocks between runs: one line (exit 3) when it cannot be one."""
    from ..grade.targets import OutputFileError

    if work.exists() and not work.is_dir():
        raise OutputFileError(f"{name} {work}: is not a folder; block-wise grading keeps its scored blocks "
                              "in a folder (name a new or existing folder)")
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputFileError(f"{name} {work}: cannot create the folder ({error.strerror or error})") from None


def run(args: argparse.Namespace, metrics: tuple[str, ...], weights: tuple[float, ...],
        reports: dict[str, Path]) -> int:
    """Grade block by block on the chosen engine, then write the reports."""
    from .grade import report_threshold, threshold_metric

    idf = idf_setting(args.idf)
    tag = scorer_tag(args.model, args.layer, args.device, idf) + _backend_tag(args.backend)
    settings = GradeSettings(metrics, weights, args.batch_size, tag, args.codebleu_rule,  # type: ignore[arg-type]
                             args.model, args.layer, args.device, idf, backend=args.backend,
                             explain=False)  # block reports keep no token detail
    outputs = _outputs(args, reports)
    from .grade import check_targets

    check_targets(args, outputs)  # the row files too: `--jsonl runs.jsonl --csv runs.csv` makes runs.jsonl
    work, temporary = _work(args, reports)
    if not temporary:
        _check_work_folder(work, "--cache" if args.cache else "the scored-blocks folder")
    inputs = [Path(p).resolve() for p in args.jsonl]
    mode = "none" if args.quiet else args.progress
    progress = Progress(sum(count_lines(p) for p in inputs), tty=None if mode == "auto" else mode == "bar",
                        enabled=mode != "none")
    job = BlockJob(inputs, settings, work, args.lang, args.block_lines or DEFAULT_BLOCK_LINES)
    try:
        run_ = _score(args, job, progress)
        if not run_.items:
            raise InputFileError("no submissions found in the inputs given")
        info = {"refscore_version": __version__, "engine": args.engine, "metrics": list(metrics),
                "weights": list(weights), "codebleu_rule": args.codebleu_rule, "scorer": tag,
                "interrupted": False, "scored_now": run_.scored, "from_cache": run_.from_before,
                "block_lines": job.block_lines}
        metric = threshold_metric(args) if args.fail_under is not None else None
        echo = None if outputs else _echo
        try:
            done = assemble(run_.blocks, job.store, outputs, info, args.title,
                            default_fail_metric(metrics),  # the ranking column
                            (metric, args.fail_under) if metric else None, echo)
        except IncompleteRun as error:  # parts vanished under us (another run cleaning up?)
            raise UsageError(f"{error}; rerun the same command to finish") from None
    except KeyboardInterrupt:
        kept = "" if temporary else f" (scored blocks are kept in {work})"
        print(f"refscore: interrupted; rerun the same command to finish{kept}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if temporary:
            shutil.rmtree(work, ignore_errors=True)
    _print_summary(done, outputs, run_)
    if metric is None:
        return EXIT_OK
    return report_threshold(args, metric, done.failures, done.first_failures)


def _score(args: argparse.Namespace, job: BlockJob, progress: Progress) -> BlockRun:
    if args.engine == "ray":
        from ..grade.ray_engine import device_kind, run_ray
        from ..scale.cluster import connect

        cluster = connect(args.ray_address)
        job.device_kind = device_kind(cluster, job.settings)
        return run_ray(job, cluster, progress)
    from ..engines import open_scorer

    if "codebertscore" in job.settings.metrics:
        from ..embed.device import select_device

        job.device_kind = "cuda" if select_device(job.settings.device).startswith("cuda") else "cpu"
    # as the in-memory grader: --backend scores in this process (the daemon has its own engine)
    daemon = args.daemon and not getattr(args, "backend", None)
    scorer = open_scorer("daemon_or_local" if daemon else "local", autostart=True)
    try:
        return run_local(job, scorer, progress)
    finally:
        scorer.close()
        for note in getattr(scorer, "notes", ()):
            print(f"refscore: note: {note}", file=sys.stderr)


def _echo(row: dict[str, Any]) -> None:
    from .grade import row_line

    print(row_line(row))


def _backend_tag(choice: str | None) -> str:
    """The encoder engine's part of the cache key (int8 ONNX only), where this build has one."""
    try:
        from ..embed.backends import backend_tag
    except ImportError:
        return ""
    return backend_tag(choice)


def _print_summary(done: Assembled, outputs: dict[str, Path], run_: BlockRun) -> None:
    from .grade import SHOWN

    stats = done.stats.summary()
    means = ", ".join(f"{LABELS[c]} mean {m['mean']:.3f}" for c, m in stats["metrics"].items()
                      if c in SHOWN)
    out = sys.stderr if any(is_stdout(p) for p in outputs.values()) else sys.stdout
    print(f"graded {stats['submissions']} submission(s): {stats['with_errors']} with errors"
          + (f"; {means}" if means else "") + f"; {run_.from_before} from earlier runs", file=out)
    for path in outputs.values():
        print(f"wrote {'standard output' if str(path) == STDOUT else path}", file=out)
