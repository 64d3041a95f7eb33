"""Where `refscore grade` writes its reports, checked before anything is scored.

* ``-`` is standard output; an existing path that is not a regular file (``/dev/stdout``, a
  pipe from ``>(jq .)``, a FIFO, a terminal) is a *stream*: written straight to it, never
  replaced (an atomic rename over ``/dev/stdout`` would put a regular file where the link was);
* a symbolic link to a regular file that the user named (``--json link.json``) is written
  through (the file it names is replaced, the link stays); every other output (``-o DIR``'s
  reports, the row files) must be a missing or regular file: a link, FIFO or device planted
  there (a student's ``report/grade.html -> ../../victim.txt``) is refused in one line (exit 3);
* two reports (or a report and the cache) on one file, a report that is one of the run's inputs
  (the reference, a mapping, a JSONL file...) or named like source code (``--json ref.py``):
  a usage error (exit 2); a folder, or a folder that cannot be created or written: exit 3. All
  in one line before scoring starts, not an internal error after an hour of it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterable, Mapping

from ..safe_write import OutputClashError, OutputFileError, check_writable, refusal

STDOUT = "-"
#: How a message names a file the run writes that no option names (block-wise grading's row files,
#: named after the first report).
LABELS = {"jsonl": "the row file", "parquet": "the row file", "similarity_html": "the similarity page",
          "similarity_json": "the similarity file", "similarity_csv": "the similarity file"}


def is_stream(path: str | Path) -> bool:
    """Standard output (``-``), or an existing file that is not a regular file or a folder."""
    if str(path) == STDOUT:
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def is_stdout(path: str | Path) -> bool:
    """``-``, or a stream that is this process's standard output (``/dev/stdout``, ``/dev/fd/1``)."""
    if str(path) == STDOUT:
        return True
    if not is_stream(path):
        return False
    try:
        return os.path.samestat(os.stat(path), os.fstat(1))
    except (OSError, ValueError):
        return False


def write_target(path: str | Path) -> Path:
    """The file an atomic write replaces: a link's target (the link is kept), else ``path``."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def regular_targets(outputs: Mapping[str, Path]) -> list[Path]:
    """The reports that are files on disk (not streams), in order: files may go beside them."""
    return [p for p in outputs.values() if not is_stream(p)]


def check_outputs(outputs: Mapping[str, Path], inputs: Iterable[str | Path],
                  named: Iterable[str] = ()) -> None:
    """Refuse, in one line, reports that cannot be written or would overwrite an input or each
    other; create the folders they go in. Only the kinds in ``named`` (files the user named) may
    be a link or a stream."""
    seen: dict[str, str] = {}
    named = set(named)
    input_files = {_key(p): str(p) for p in inputs if os.path.isfile(p)}
    for kind, path in outputs.items():
        flag = LABELS.get(kind, f"--{kind}" if kind in named or kind not in ("csv", "json", "html")
                          else f"the {kind.upper()} report")
        reason = None if kind in named or str(path) == STDOUT else refusal(path)
        if reason:
            raise OutputFileError(f"{flag} {path}: {reason}")
        if str(path) == STDOUT:
            key = STDOUT
        else:
            key = _key(path)
            if key in input_files:
                raise OutputClashError(f"{flag} {path}: is an input of this run ({input_files[key]}); "
                                       "choose another report name")
            if _source_language(path):
                raise OutputClashError(f"{flag} {path}: names a {_source_language(path)} source file, not a "
                                       "report (.csv, .json, .html); choose another report name")
        if key in seen:
            raise OutputClashError(f"{flag} {path}: the {seen[key]} is written there too; "
                                   "give each its own file")
        seen[key] = "cache" if kind == "cache" else LABELS[kind][4:] if kind.startswith("similarity_") else \
            f"{kind.upper()} {'rows' if kind in LABELS else 'report'}"
        if kind == "cache" and (key == STDOUT or is_stream(path)):  # read back on the next run: a file
            what = "standard output" if key == STDOUT else _kind_of(path)
            raise OutputFileError(f"{flag} {path}: is {what}; the cache is read back by the next run, "
                                  "so it must be a regular file")
        if key == STDOUT or is_stream(path):
            continue
        _check_writable(flag, write_target(path))


def _check_writable(flag: str, path: Path) -> None:
    if path.is_dir():
        raise OutputFileError(f"{flag} {path}: is a folder (name a file, or use -o DIR for a folder of reports)")
    check_writable(path, flag, noun="a report")


def _key(path: str | Path) -> str:
    try:
        return os.path.realpath(path)
    except ValueError:  # a NUL character
        return str(path)


def _source_language(path: str | Path) -> str | None:
    """The language a file name's extension says (``ref.py``: python), else None."""
    from .. import languages

    try:
        return languages.for_path(path).name
    except (languages.UnknownLanguageError, ValueError):
        return None


def _kind_of(path: str | Path) -> str:
    from ..safe_read import kind_of

    try:
        return kind_of(os.stat(path).st_mode) or "not a regular file"
    except OSError:
        return "not a regular file"
