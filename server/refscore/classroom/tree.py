"""A class as a list of entries (name inside the class, bytes or why not read), from a zip
archive (``safe_zip``) or a folder, so that every layout reader sees the same thing.

A folder is walked without following links: a symbolic link (to a file or a folder) is an entry
with an error, never read, so nothing outside the class folder is read; hidden files and
folders (``.git``), ``__MACOSX`` and ``__pycache__`` are skipped; each file is read through
``safe_read`` (regular files only, at most ``MAX_ENTRY_BYTES``); more than ``MAX_ENTRIES`` files
is refused as for an archive.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from ..errors import InputFileError
from ..safe_read import read_capped
from ..grade.discover import is_archive, other_archive
from .safe_zip import MAX_ENTRIES, MAX_ENTRY_BYTES, Entry, name_problem, read_zip, shown


def latest_of_each_name(entries: list[Entry], source: str | Path) -> tuple[list[Entry], list[str]]:
    """An archive's entries with one entry per name: a name stored twice (``zip`` adding a file
    again) is the later entry, as an unzip tool leaves it; never both joined. A note names them."""
    last = {entry.name: index for index, entry in enumerate(entries)}
    kept = [entry for index, entry in enumerate(entries) if last[entry.name] == index]
    if len(kept) == len(entries):
        return entries, []
    twice = list(dict.fromkeys(entry.name for index, entry in enumerate(entries) if last[entry.name] != index))
    shown_names = ", ".join(twice[:10]) + (f" and {len(twice) - 10} more" if len(twice) > 10 else "")
    return kept, [f"{source}: {len(twice)} name(s) stored more than once in the archive; the last entry of each is "
                  f"graded: {shown_names}"]


def class_entries(path: str | Path, skip: Iterable[str | Path] = ()) -> list[Entry]:
    """Every file of the class at ``path`` (a zip archive or a folder), in name order for a
    folder; ``skip``: files and folders never read (the run's own reports and parts)."""
    path = Path(path)
    if is_archive(path):
        return read_zip(path)
    if not path.is_dir():
        raise InputFileError(other_archive(path) or f"{path}: not a folder or a zip archive of submissions")
    return _folder_entries(path, {os.path.realpath(p) for p in skip})


def folder_names(root: Path, limit: int = 2000) -> list[str]:
    """The names of (at most ``limit``) files in a folder, for recognising its layout; nothing is read."""
    out: list[str] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("__MACOSX", "__pycache__"))
        out.extend(_relative(root, Path(folder) / f) for f in sorted(files) if not f.startswith("."))
        if len(out) >= limit:
            break
    return out[:limit]


def _folder_entries(root: Path, skip: set[str]) -> list[Entry]:
    out: list[Entry] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        keep = []
        for d in sorted(dirs):
            if d.startswith(".") or d in ("__MACOSX", "__pycache__") or os.path.realpath(here / d) in skip:
                continue
            if (here / d).is_symlink():
                out.append(_refused(root, here / d, "a symbolic link to a folder (links are never followed)"))
                continue
            keep.append(d)
        dirs[:] = keep
        for name in sorted(files):
            if name.startswith(".") or os.path.realpath(here / name) in skip:
                continue
            out.append(_entry(root, here / name))
            if len(out) > MAX_ENTRIES:
                raise InputFileError(f"{root}: more than {MAX_ENTRIES} files, over the limit; not read")
    return out


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _refused(root: Path, path: Path, why: str, own_row: bool = True) -> Entry:
    name = _relative(root, path)
    return Entry(shown(name), error=f"{shown(str(path))}: {why}; not read", origin=shown(str(path)),
                 refused=own_row)


def _entry(root: Path, path: Path) -> Entry:
    name = _relative(root, path)
    problem = name_problem(name)
    if problem:
        return _refused(root, path, problem)
    if path.is_symlink():
        return _refused(root, path, "a symbolic link (links are never followed)", own_row=False)
    try:
        return Entry(name, read_capped(path, MAX_ENTRY_BYTES), origin=str(path))
    except InputFileError as error:
        return Entry(name, error=str(error), origin=str(path))
