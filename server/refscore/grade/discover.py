"""Submissions from the command line: files, folders and globs scored against shared references.

* a file is one submission;
* a folder holds one submission per file (recursively, hidden files skipped, ``pattern``
  filters by file name), or, with ``per_folder``, one submission per sub-folder made of the
  files in it that match ``pattern`` (several are joined in name order);
* anything with ``*``, ``?`` or ``[`` is a glob (``**`` recurses); what it matches is expanded
  as above.

Every submission becomes a ``GradeItem``; unreadable, binary, empty or wrong-language files get
an ``error`` instead of stopping the run.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from .. import languages
from ..errors import InputFileError, LanguageError
from ..scoring.inputs import read_source
from .items import GradeItem, ItemSet

GLOB_CHARS = frozenset("*?[")


@dataclass
class Problem:
    """References, language and context shared by a group of submissions."""

    references: tuple[str, ...]
    reference_names: tuple[str, ...]
    language: str | None  # None: the problem itself is broken, see ``error``
    explicit_language: bool = False
    context: str | None = None
    name: str | None = None
    error: str | None = None


def load_problem(reference_paths: Sequence[str | Path], language: str | None = None,
                 context: str | None = None, name: str | None = None, strict: bool = True) -> Problem:
    """Read the references and settle the language (``--lang``, else the first reference's
    extension). ``strict`` raises the one-line error; otherwise it is kept on the problem."""
    names = tuple(str(p) for p in reference_paths)
    try:
        if not reference_paths:
            raise InputFileError(f"{name or 'problem'}: no reference given")
        texts = tuple(read_source(p) for p in reference_paths)
        spec = _language(language, reference_paths[0])
        return Problem(texts, names, spec.name, bool(language), context, name)
    except (InputFileError, LanguageError) as error:
        if strict:
            raise
        return Problem((), names, None, bool(language), context, name, error=str(error))


def _language(explicit: str | None, reference: str | Path) -> languages.LanguageSpec:
    try:
        if explicit:
            return languages.get(explicit)
        return languages.for_path(reference)
    except languages.UnknownLanguageError as error:
        hint = "" if explicit else " (name it with --lang)"
        raise LanguageError(f"{error}{hint}") from None


def expand(arguments: Iterable[str | Path], pattern: str | None = None, per_folder: bool = False,
           exclude: Iterable[str | Path] = ()) -> list[tuple[str, list[Path] | None]]:
    """Turn command-line arguments into ``(submission id, files)``; ``files`` is None when the
    argument names nothing (the id then is the argument)."""
    skip = {_real(p) for p in exclude}
    out: list[tuple[str, list[Path] | None]] = []
    for arg in arguments:
        text = str(arg)
        if any(ch in GLOB_CHARS for ch in text) and not Path(text).exists():
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                out.append((text, None))
            for match in matches:
                out.extend(_expand_path(Path(match), pattern, per_folder, skip, from_glob=True))
        elif Path(text).exists():
            out.extend(_expand_path(Path(text), pattern, per_folder, skip, from_glob=False))
        else:
            out.append((text, None))
    return out


def _expand_path(path: Path, pattern: str | None, per_folder: bool, skip: set[str],
                 from_glob: bool) -> list[tuple[str, list[Path] | None]]:
    if not path.is_dir():
        if _real(path) in skip or (from_glob and pattern and not fnmatch.fnmatch(path.name, pattern)):
            return []
        return [(str(path), [path])]
    if per_folder:
        folders = [d for d in sorted(path.iterdir()) if d.is_dir() and not d.name.startswith(".")]
        if from_glob:  # the glob named the submission folders themselves
            folders = [path]
        return [(str(d), [f for f in _files(d, pattern) if _real(f) not in skip]) for d in folders]
    return [(str(f), [f]) for f in _files(path, pattern) if _real(f) not in skip]


def _files(folder: Path, pattern: str | None) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if name.startswith(".") or (pattern and not fnmatch.fnmatch(name, pattern)):
                continue
            found.append(Path(root) / name)
    return found


def _real(path: str | Path) -> str:
    return os.path.realpath(str(path))


def items_for(problem: Problem, submissions: Sequence[tuple[str, list[Path] | None]],
              pattern: str | None = None, id_prefix: str = "", base: Path | None = None) -> ItemSet:
    """Read each submission and check it against the problem's language; messages name files
    relative to ``base`` when given."""
    result = ItemSet()
    for sub_id, files in submissions:
        item = GradeItem(id=id_prefix + sub_id, candidate=None, references=problem.references,
                         language=problem.language, context=problem.context, problem=problem.name,
                         source=sub_id, reference_names=problem.reference_names)
        if problem.error:
            item.error = f"reference: {problem.error}"
        elif files is None:
            item.error = f"{sub_id}: no such file, folder or glob match"
        elif not files:
            item.error = f"{sub_id}: no file matching {pattern!r}" if pattern else f"{sub_id}: empty folder"
        else:
            _read_into(item, files, problem)
            if item.error and base is not None:
                for path in files:
                    item.error = item.error.replace(str(path), os.path.relpath(path, base))
        result.items.append(item)
    return result


def _read_into(item: GradeItem, files: list[Path], problem: Problem) -> None:
    texts = []
    for path in files:
        wrong = _language_problem(path, problem)
        if wrong:
            item.error = wrong
            return
        try:
            texts.append(read_source(path))
        except InputFileError as error:
            item.error = str(error)
            return
    item.candidate = "\n\n".join(texts)
    if not item.candidate.strip():
        item.error = f"{item.source}: empty submission (nothing to score)"


def _language_problem(path: Path, problem: Problem) -> str | None:
    """Why ``path`` cannot be scored as the problem's language, or None."""
    try:
        spec = languages.for_path(path)
    except languages.UnknownLanguageError:
        if problem.explicit_language:
            return None
        return (f"{path}: cannot tell the language from {path.suffix or 'a name without extension'!r} "
                f"(use --lang {problem.language} to score it as {problem.language})")
    if spec.name != problem.language:
        return f"{path}: wrong language ({spec.name}; the reference is {problem.language})"
    return None
