"""Submissions from the command line: files, folders and globs scored against shared references.

* a file is one submission;
* a folder holds one submission per file (recursively, hidden files skipped, ``pattern``
  filters by file name), or, with ``per_folder``, one submission per sub-folder made of the
  files in it that match ``pattern`` (several are joined in name order);
* anything with ``*``, ``?`` or ``[`` is a glob (``**`` recurses, never through a link to a
  folder; see ``globs``); what it matches is expanded as above.

A folder that yields nothing to grade (empty, nothing matching ``pattern``, no sub-folders with
``per_folder``) is one submission with an error, so it shows in the reports and fails
``--fail-under``.

Every submission becomes a ``GradeItem``; unreadable, binary, empty or wrong-language files get
an ``error`` instead of stopping the run.

Archives among the files a run names: a ``.zip`` is read as a class (``refscore.classroom``
plugs that in: ``is_archive``), any other archive is refused in one line rather than graded as
code (``other_archive``).
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

from .. import languages
from ..errors import InputFileError, LanguageError
from ..files.sources import read_source
from .notebook import Cells, code_of, is_notebook
from .globs import glob_paths, has_magic
from .items import GradeItem, ItemSet, with_readable_names


def is_archive(path: str | Path) -> bool:
    """True for a file named ``*.zip``."""
    return str(path).lower().endswith(".zip") and not Path(path).is_dir()


#: Archives and compressed files a class may come in that grade does not read (only ``.zip``).
OTHER_ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".tar", ".gz", ".bz2",
                  ".xz", ".zst", ".7z", ".rar")


def other_archive(path: str | Path) -> str | None:
    """Why a file named as another kind of archive (``class.tar.gz``) is not read as a class or
    as code, else None."""
    name = str(path).lower()
    kind = next((suffix for suffix in OTHER_ARCHIVES if name.endswith(suffix)), None)
    if kind is None or Path(path).is_dir():
        return None
    return (f"{path}: a {kind} archive; only .zip archives are read as a class: unpack it into a folder (or "
            "make a .zip of it) and grade that")


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
    reference_cells: tuple[Cells | None, ...] | None = None  # per reference: its notebook cell map (None: none is one)
    inputs: str | None = None  # behaviour's inputs file, its text (a mapping problem's ``inputs``)


def load_problem(reference_paths: Sequence[str | Path], language: str | None = None,
                 context: str | None = None, name: str | None = None, strict: bool = True) -> Problem:
    """Read the references and settle the language (``--lang``, else the first reference's
    extension). ``strict`` raises the one-line error; otherwise it is kept on the problem."""
    names = tuple(str(p) for p in reference_paths)
    try:
        if not reference_paths:
            raise InputFileError(f"{name or 'problem'}: no reference given")
        read = [read_code(p) for p in reference_paths]
        spec = _language(language, reference_paths[0])
        if not language:
            _same_language(spec, reference_paths)
        cells = tuple(r[1] for r in read) if any(r[1] for r in read) else None
        return Problem(tuple(r[0] for r in read), names, spec.name, bool(language), context, name,
                       reference_cells=cells)
    except (InputFileError, LanguageError) as error:
        if strict:
            raise
        return Problem((), names, None, bool(language), context, name, error=str(error))


def _language(explicit: str | None, reference: str | Path) -> languages.LanguageSpec:
    try:
        if explicit:
            return languages.get(explicit)
        if is_notebook(str(reference)):
            return languages.get(read_code(reference)[2] or "python")
        return languages.for_path(reference)
    except languages.UnknownLanguageError as error:
        hint = "" if explicit else " (name it with --lang)"
        raise LanguageError(f"{error}{hint}") from None


def _same_language(spec: languages.LanguageSpec, reference_paths: Sequence[str | Path]) -> None:
    """Acceptable references are in one language (the first's): another's is one line (it would
    be parsed as the first's), as a submission in it is a wrong-language row."""
    for path in reference_paths[1:]:
        other = _language_name(Path(path))
        if other is not None and not spec.takes(other):
            raise InputFileError(f"{path}: a reference in another language ({other}; the first reference "
                                 f"is {spec.name}): give references in one language, or name it with --lang")


class Submission(NamedTuple):
    """One submission found on the command line or in a mapping: its id and files. ``files`` is
    None when the argument names nothing; an empty list means it named a folder holding nothing
    to grade, and ``empty`` then says why (reported as the submission's error)."""

    id: str
    files: list[Path] | None
    empty: str | None = None


def expand(arguments: Iterable[str | Path], pattern: str | None = None, per_folder: bool = False,
           exclude: Iterable[str | Path] = ()) -> list[Submission]:
    """Turn command-line arguments into submissions, in order. A glob never follows a link to a
    folder while recursing, a file found inside a folder that links outside it is an error row
    (never read: a submission cannot pull in ``/etc/passwd``), and every file is graded once
    however many arguments reach it."""
    skip = {_real(p) for p in exclude}
    out: list[Submission] = []
    for arg in arguments:
        text = str(arg)
        found: list[Submission] = []
        if has_magic(text) and not Path(text).exists():
            matches = glob_paths(text)
            if not matches:
                found.append(Submission(text, None))
            for match in matches:
                found.extend(_expand_path(Path(match), pattern, per_folder, skip, from_glob=True))
            found = _drop_nested_empty(found, matches)
        elif Path(text).exists():
            found.extend(_expand_path(Path(text), pattern, per_folder, skip, from_glob=False))
        else:
            found.append(Submission(text, None))
        out.extend(found)
    return _unique(out)  # `subs/ subs/*.py` grades each file once


def _drop_nested_empty(found: list[Submission], matches: list[str]) -> list[Submission]:
    """A glob that matched a folder and also folders inside it (``dir/**``) walked those inner
    folders anyway: one of them holding nothing is not a missing submission."""
    folders = {_real(m) for m in matches if os.path.isdir(m)}
    return [sub for sub in found if sub.files != [] or
            not any(_real(parent) in folders for parent in Path(_real(sub.id)).parents)]


def _unique(found: list[Submission]) -> list[Submission]:
    """Drop repeats of the same real files (a glob reaching them twice, through a link)."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for sub in found:
        key = tuple(_real(f) for f in sub.files) if sub.files else ("id", sub.id)
        if key not in seen:
            seen.add(key)
            out.append(sub)
    return out


def _expand_path(path: Path, pattern: str | None, per_folder: bool, skip: set[str],
                 from_glob: bool) -> list[Submission]:
    if not path.is_dir():
        if _real(path) in skip or (from_glob and pattern and not fnmatch.fnmatch(path.name, pattern)):
            return []
        if path.is_symlink() and _inside(path.parent, [path])[1]:
            return [Submission(str(path), [], _OUTSIDE.format(folder=path.parent))]
        return [Submission(str(path), [path])]
    if per_folder:
        folders = [d for d in sorted(path.iterdir()) if d.is_dir() and not d.name.startswith(".")]
        if from_glob:  # the glob named the submission folders themselves
            folders = [path]
        if not folders:
            return [Submission(str(path), [], "no sub-folders (with --per-folder each sub-folder is one submission)")]
        out = []
        for folder in folders:
            found = _files(folder, pattern, skip)
            files, outside = _inside(folder, [f for f in found if _real(f) not in skip])
            if outside:
                out.append(Submission(str(outside[0]), [], _OUTSIDE.format(folder=folder)))
                continue
            out.append(Submission(str(folder), files, None if files else _nothing(pattern, bool(found))))
        return out
    found = _files(path, pattern, skip)
    files, outside = _inside(path, [f for f in found if _real(f) not in skip])
    subs = [Submission(str(f), [f]) for f in files] + [Submission(str(f), [], _OUTSIDE.format(folder=path))
                                                       for f in outside]
    return subs or [Submission(str(path), [], _nothing(pattern, bool(found)))]


_OUTSIDE = "a symbolic link to a file outside {folder}: not read"


def _inside(folder: Path, files: list[Path]) -> tuple[list[Path], list[Path]]:
    """``files`` found in ``folder`` split into those really inside it and links leading out."""
    root = _real(folder)
    inside, outside = [], []
    for f in files:
        (inside if os.path.commonpath([root, _real(f)]) == root else outside).append(f)
    return inside, outside


def _nothing(pattern: str | None, skipped: bool = False) -> str:
    """Why a folder gave no submission (``skipped``: it held only files that are never graded)."""
    if skipped:
        return "no file to grade: the folder holds only the reference (or this run's own files), never graded"
    return f"no file matching {pattern!r}" if pattern else "empty folder (no file to grade)"


def named_references(arguments: Iterable[str | Path], references: Iterable[str | Path]) -> list[str]:
    """The arguments that name a reference file itself, which is never graded (``grade -r sol.py sol.py``)."""
    refs = {_real(r) for r in references}
    return list(dict.fromkeys(str(a) for a in arguments if not os.path.isdir(a) and _real(a) in refs))


def _files(folder: Path, pattern: str | None, skip: set[str] | None = None) -> list[Path]:
    """Files under ``folder`` (hidden ones and folders in ``skip``, such as the run's parts, left out)."""
    found = []
    skip = skip or set()
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__"
                         and _real(Path(root) / d) not in skip)
        for name in sorted(files):
            if name.startswith(".") or (pattern and not fnmatch.fnmatch(name, pattern)):
                continue
            found.append(Path(root) / name)
    return found


def _real(path: str | Path) -> str:
    try:
        return os.path.realpath(str(path))
    except ValueError:  # a NUL character: names no file
        return str(path)


def items_for(problem: Problem, submissions: Sequence[Submission],
              pattern: str | None = None, id_prefix: str = "", base: Path | None = None) -> ItemSet:
    """Read each submission and check it against the problem's language; messages name files
    relative to ``base`` when given."""
    result = ItemSet()
    for sub_id, files, empty in submissions:
        item = GradeItem(id=id_prefix + sub_id, candidate=None, references=problem.references,
                         language=problem.language, context=problem.context, problem=problem.name,
                         source=sub_id, reference_names=problem.reference_names,
                         reference_cells=problem.reference_cells, inputs=problem.inputs)
        if problem.error:
            item.error = f"reference: {problem.error}"
        elif files is None:
            item.error = f"{sub_id}: no such file, folder or glob match"
        elif not files:
            item.error = f"{sub_id}: {empty or _nothing(pattern)}"
        else:
            _read_into(item, files, problem)
            if item.error and base is not None:
                for path in files:
                    item.error = item.error.replace(str(path), os.path.relpath(path, base))
        result.items.append(with_readable_names(item))
    return result


def read_code(path: str | Path) -> tuple[str, Cells | None, str | None]:
    """(text to score, notebook cell map, notebook language) of a file (``notebook``)."""
    return code_of(read_source(path), str(path))


def _read_into(item: GradeItem, files: list[Path], problem: Problem) -> None:
    texts = []
    for path in files:
        wrong = other_archive(path) or _language_problem(path, problem)
        if wrong:
            item.error = wrong
            item.language = _language_name(path) or item.language  # the row shows the file's language
            return
        try:
            text, cells, _ = read_code(path)
        except InputFileError as error:
            item.error = str(error)
            return
        if cells and len(files) == 1:
            item.cells = cells
        texts.append(text)
    item.candidate = "\n\n".join(texts)
    if not item.candidate.strip():
        item.error = f"{item.source}: empty submission (nothing to score)"


def _language_name(path: Path) -> str | None:
    try:
        return "python" if is_notebook(path.name) else languages.for_path(path).name
    except languages.UnknownLanguageError:
        return None


def _language_problem(path: Path, problem: Problem) -> str | None:
    """Why ``path`` cannot be scored as the problem's language, or None."""
    try:
        spec = languages.get("python") if is_notebook(path.name) else languages.for_path(path)
    except languages.UnknownLanguageError:
        if problem.explicit_language:
            return None
        return (f"{path}: cannot tell the language from {path.suffix or 'a name without extension'!r} "
                f"(use --lang {problem.language} to score it as {problem.language})")
    if problem.language is not None and not languages.get(problem.language).takes(spec.name):
        return f"{path}: wrong language ({spec.name}; the reference is {problem.language})"
    return None
