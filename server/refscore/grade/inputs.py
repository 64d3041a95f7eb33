"""The submissions a job names that are read into memory: files, folders and globs against
``--reference``, and mapping files (JSONL/Parquet files are read block by block, ``plan``)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import BinaryIO, Sequence

from ..errors import InputFileError, UsageError
from ..files.sources import STDIN
from .discover import expand, items_for, load_problem, named_references
from .items import ItemSet
from .job import Inputs
from .hooks import NO_CLASSES, ClassProblem, ClassReader
from .starter import starter_for, strip_starter
from .mapping import load_mapping
from .targets import STDOUT


def read_submissions(inputs: Inputs, own: Sequence[Path] = (), classes: ClassReader = NO_CLASSES) -> ItemSet:
    """Every submission of the files and mapping files named, as items. ``own``: this run's
    reports and parts folder, never graded (``-o`` may name a folder inside the submissions);
    ``classes``: which inputs are classes and how to read one (``hooks``; the plain grader: none)."""
    own = [p for p in own if str(p) != STDOUT]
    if not (inputs.submissions or inputs.mappings or inputs.jsonl):
        raise UsageError("nothing to grade: give SUBMISSION files with --reference, --mapping or --jsonl")
    items = ItemSet()
    roster = classes.load_roster(inputs.roster) if inputs.roster else None
    if inputs.submissions:
        if not inputs.references:
            raise UsageError("grading files needs --reference REF (or use --mapping / --jsonl)")
        context = inputs.context
        if inputs.context_file:
            from ..files.sources import read_source, read_stdin_source

            context = read_stdin_source() if inputs.context_file == STDIN else read_source(inputs.context_file)
        problem = load_problem(list(inputs.references), inputs.language, context, strict=True)
        starter = starter_for(inputs.starter, problem.language)
        if inputs.starter and starter is None:
            raise UsageError(f"--starter {inputs.starter[0]}: holds no {problem.language} file (the reference's "
                             "language)")
        layout = inputs.layout
        found_classes, others = classes.split(inputs.submissions, layout, folders=roster is not None)
        if others:
            items.notes.extend(f"{name} is the --reference: skipped, not graded as a submission"
                               for name in named_references(others, inputs.references))
            subs = expand(others, inputs.pattern, inputs.per_folder, exclude=[*inputs.references, *own])
            found = items_for(problem, subs, inputs.pattern)
            for item in found.items:
                strip_starter(item, starter)
            items.extend(found)
        patterns = (inputs.pattern,) if inputs.pattern else ()
        for source in found_classes:
            found = ClassProblem(problem, patterns, starter, inputs.resubmissions)
            items.extend(classes.read(source, layout, [found], roster, skip=[*inputs.references, *own]))
    elif inputs.references:
        raise UsageError("--reference given but no SUBMISSION to grade")
    elif inputs.starter and not inputs.mappings:
        raise UsageError("--starter applies to SUBMISSION files graded against --reference or to a mapping's problems")
    for path in inputs.mappings:
        items.extend(load_mapping(path, inputs.language, exclude=own, roster=roster, starter=inputs.starter,
                                  layout=inputs.layout, allow_outside=inputs.allow_outside,
                                  resubmissions=inputs.resubmissions, classes=classes))
    return items


#: What a file's first bytes say it is, where grade cannot read it as a stream of lines.
_NOT_A_STREAM = ((b"\x1f\x8b", "gzip-compressed: decompress it on the way in (zcat runs.jsonl.gz | refscore grade "
                  "--jsonl - ...) or name the .jsonl.gz file with --jsonl"),
                 (b"PAR1", "a Parquet file, which cannot be read as a stream: name the file with --jsonl"))


def spool_stdin(folder: Path, stream: BinaryIO | None = None) -> Path:
    """``--jsonl -``: standard input copied to ``folder/-``, read from there as any JSONL file
    (block by block, each line capped; its ids are ``-:LINE``). Every pass of the grader reads
    its inputs again, so the stream is kept for the run (the caller removes ``folder``); a
    gzip or Parquet stream is refused in one line."""
    stream = stream if stream is not None else sys.stdin.buffer
    target = folder / STDIN
    with open(target, "xb") as out:
        first = stream.read(1 << 16)
        for magic, what in _NOT_A_STREAM:
            if first.startswith(magic):
                raise InputFileError(f"--jsonl -: standard input is {what}")
        out.write(first)
        shutil.copyfileobj(stream, out, 1 << 20)
    return target
