"""Writing output files safely: the one path every command's outputs take (grade's reports,
eval's results and scores, the daemon's files).

* What is at the target is looked at with ``os.lstat`` and never followed: a character or block
  device (``/dev/zero``, ``/dev/full``), a named pipe, a socket, a folder or a symbolic link there
  is refused with one line (``OutputFileError``, exit 3); only a missing or regular file is
  replaced. A link planted in an output folder therefore never redirects a write.
* A regular file is replaced atomically: the bytes go to a temporary file beside it, which is
  checked again and renamed over it, so a crash leaves the old file and a reader never sees half
  of one. The new file gets the permissions any new file gets (0666 less the umask) unless a
  mode is asked for (the daemon's 0600 files).
* ``check_writable`` runs the same checks (and probes the folder with a temporary file) before a
  long run starts, so a bad output is a line at once, not an error after an hour of scoring.
* ``open_append`` appends to a regular file (``O_NOFOLLOW``: never through a link).
* ``new_temporary`` and ``commit`` are the two halves of ``replacing`` for a file written over a
  long time (grade's streamed reports): the temporary file is created with ``O_EXCL |
  O_NOFOLLOW``, so a link or file planted under its name is never written through.
* ``check_folder`` refuses a folder that is a link (or not a folder) where a run keeps its own
  files (grade's scored parts), so a planted link never sends them elsewhere.

``through_link=True`` keeps an older contract for a link the user named themselves: the file the
link names is replaced and the link stays (``refscore grade --json link.json``).
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator

from .errors import EXIT_INPUT, EXIT_USAGE, RefScoreError

_CREATE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
_APPEND_FLAGS = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))


class OutputFileError(RefScoreError):
    """An output that cannot be written where it was asked for (exit 3)."""

    exit_code = EXIT_INPUT


class OutputClashError(RefScoreError):
    """Outputs asked for on one file, or on one of the run's inputs (a usage error, exit 2)."""

    exit_code = EXIT_USAGE


def refusal(path: str | Path) -> str | None:
    """Why ``path`` must not be written (``is a symbolic link ...``), or None for a missing or
    regular file. Nothing at the path is followed or opened."""
    from .safe_read import kind_of

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return f"a file is in the way of the folder {Path(path).parent}"
    except (OSError, ValueError) as error:
        return f"cannot be looked at ({getattr(error, 'strerror', None) or error})"
    if stat.S_ISLNK(mode):
        return "is a symbolic link; outputs are never written through a link (remove it or name a plain file)"
    if stat.S_ISDIR(mode):
        return "is a folder; name a file"
    kind = kind_of(mode)
    return None if kind is None else f"is {kind}, not a regular file; outputs replace regular files only"


def resolve(path: str | Path, through_link: bool = False) -> Path:
    """The file a write replaces: ``path``, or with ``through_link`` the file a link there names."""
    path = Path(path)
    if through_link and path.is_symlink():
        return Path(os.path.realpath(path))
    return path


def check_writable(path: str | Path, label: str, through_link: bool = False, noun: str = "a file") -> None:
    """Refuse, in one line starting with ``label``, an output that cannot be written: something
    other than a regular file at the path, or a folder that cannot be created or written to.
    Creates the folder it goes in."""
    target = resolve(path, through_link)
    reason = refusal(target)
    if reason:
        raise OutputFileError(f"{label} {path}: {reason}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        os.close(fd)
        os.unlink(probe)
    except (FileExistsError, NotADirectoryError):
        raise OutputFileError(f"{label} {path}: cannot write {noun} there (a file is in the way of the folder "
                              f"{target.parent})") from None
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise OutputFileError(f"{label} {path}: cannot write {noun} there ({reason})") from None


def check_distinct(outputs: Iterable[tuple[str, str | Path]]) -> None:
    """Two outputs on one file (``--out X --report X``): a usage error naming both."""
    seen: dict[str, str] = {}
    for label, path in outputs:
        key = _key(path)
        if key in seen:
            raise OutputClashError(f"{label} {path}: {seen[key]} is written there too; give each its own file")
        seen[key] = label


@contextmanager
def replacing(path: str | Path, mode: int | None = None, through_link: bool = False) -> Iterator[BinaryIO]:
    """A binary handle on a temporary file that replaces ``path`` when the block ends without an
    error (and is removed when it does not); ``OutputFileError`` when ``path`` is not a missing
    or regular file, before anything is written and again just before the rename."""
    target = resolve(path, through_link)
    handle, tmp = new_temporary(target, mode=mode)
    try:
        with handle:
            yield handle
        commit(tmp, target)  # checked again: swapped for a link or a device while we wrote
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def new_temporary(path: str | Path, name: str | None = None, mode: int | None = None) -> tuple[BinaryIO, Path]:
    """A binary handle on a new file beside ``path`` (named ``name``, else a fresh random name)
    that ``commit`` later renames over ``path``. Whatever was under the name before (a leftover
    or a planted link) is removed, never written through; ``OutputFileError`` when ``path`` is
    not a missing or regular file."""
    target = Path(path)
    reason = refusal(target)
    if reason:
        raise OutputFileError(f"{path}: {reason}")
    target.parent.mkdir(parents=True, exist_ok=True)
    if name is None:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        os.chmod(tmp, (0o666 & ~current_umask()) if mode is None else mode)
        return os.fdopen(fd, "wb"), Path(tmp)
    tmp = target.with_name(name)
    tmp.unlink(missing_ok=True)
    try:
        fd = os.open(tmp, _CREATE_FLAGS, 0o666 if mode is None else mode)
    except OSError as error:  # something was put there again after the unlink
        raise OutputFileError(f"{path}: cannot create {tmp.name} beside it ({error.strerror or error})") from None
    if mode is not None:
        os.fchmod(fd, mode)
    return os.fdopen(fd, "wb"), tmp


def commit(tmp: str | Path, path: str | Path) -> None:
    """Rename the finished temporary file ``tmp`` over ``path``, after checking again that
    ``path`` is a missing or regular file (else ``tmp`` is removed and ``OutputFileError``)."""
    reason = refusal(path)
    if reason:
        Path(tmp).unlink(missing_ok=True)
        raise OutputFileError(f"{path}: {reason}")
    os.replace(tmp, path)


def check_folder(path: str | Path, label: str) -> None:
    """Refuse, in one line starting with ``label``, a folder a run keeps its files in that is a
    symbolic link or something other than a folder; create it (and its parents) when missing."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except (OSError, ValueError) as error:
        raise OutputFileError(f"{label} {path}: cannot be looked at ({getattr(error, 'strerror', None) or error})"
                              ) from None
    if mode is not None and stat.S_ISLNK(mode):
        raise OutputFileError(f"{label} {path}: is a symbolic link; a run's own files are never written through "
                              "a link (remove it or name another folder)")
    if mode is not None and not stat.S_ISDIR(mode):
        from .safe_read import kind_of

        what = "a file" if stat.S_ISREG(mode) else kind_of(mode) or "not a folder"
        raise OutputFileError(f"{label} {path}: is {what}, not a folder")
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputFileError(f"{label} {path}: cannot create the folder ({error.strerror or error})") from None


def first_missing(path: Path) -> Path | None:
    """The outermost of ``path`` and its parents that does not exist yet (None: it exists)."""
    missing = None
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            break
        missing = candidate
    return missing


def remove_empty_folders(root: Path) -> None:
    """Remove ``root`` and the folders under it, deepest first, as long as they are empty (a
    folder a failed run made and wrote nothing in); files, links and what holds them stay."""
    for folder, _, _ in os.walk(root, topdown=False):
        try:
            os.rmdir(folder)
        except OSError:
            pass  # not empty (or not ours to remove): kept


def replace_file(path: str | Path, data: bytes | str, mode: int | None = None, through_link: bool = False) -> None:
    """Replace the regular file ``path`` with ``data`` (text is written as UTF-8) atomically."""
    with replacing(path, mode, through_link) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)


def open_append(path: str | Path, mode: int = 0o666) -> BinaryIO:
    """A binary handle appending to the regular file ``path`` (created with ``mode`` less the
    umask); ``OutputFileError`` for a link, a device, a FIFO or a folder there."""
    reason = refusal(path)
    if reason:
        raise OutputFileError(f"{path}: {reason}")
    try:
        fd = os.open(path, _APPEND_FLAGS, mode)
    except OSError as error:  # ELOOP: a link appeared after the check
        raise OutputFileError(f"{path}: cannot append there ({error.strerror or error})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OutputFileError(f"{path}: is not a regular file; outputs go to regular files only")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "ab")


def source_language(path: str | Path) -> str | None:
    """The language a file name's extension says (``keep.py``: python), else None: an output
    named so would replace source code."""
    from . import languages

    try:
        return languages.for_path(path).name
    except (languages.UnknownLanguageError, ValueError):
        return None


def current_umask() -> int:
    """The process umask (read from /proc where it can be, so it is never changed, even briefly)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _key(path: str | Path) -> str:
    try:
        return os.path.realpath(path)
    except ValueError:  # a NUL character
        return str(path)
