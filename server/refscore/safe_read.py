"""Reading input files safely: regular files only, never more than a hard byte cap.

Every front end (``refscore score``, ``refscore grade`` with its submissions, mapping, JSONL and
context files, and the language server's references) reads through here, so that

* a named pipe (FIFO), a character device (``/dev/zero``), a socket or a block device is refused
  with one clear line, never opened in a way that could block or read forever: the path is
  checked with ``os.stat`` first, then opened non-blocking and checked again with ``os.fstat``
  (it may have been swapped in between);
* a file is never read past ``limit + 1`` bytes, whatever size it reports (``st_size`` is 0
  for many special files and a file can grow while it is read).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from .errors import InputFileError

_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def kind_of(mode: int) -> str | None:
    """What a non-regular file is ("a named pipe (FIFO)", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def describe_limit(limit: int) -> str:
    """``20 MiB`` for a whole number of MiB, else the byte count."""
    mib = 1024 * 1024
    return f"{limit // mib} MiB" if limit % mib == 0 else f"{limit} bytes"


def _refuse(path: Path, mode: int, what: str = "a source file") -> None:
    kind = kind_of(mode)
    if kind == "a directory":
        raise InputFileError(f"{path}: is a directory, not {what}")
    if kind is not None:
        raise InputFileError(f"{path}: is {kind}, not a regular file; RefScore reads regular files only")


def _os_error(path: Path, error: OSError) -> InputFileError:
    if isinstance(error, FileNotFoundError):
        return InputFileError(f"{path}: no such file")
    if isinstance(error, PermissionError):
        return InputFileError(f"{path}: permission denied")
    if isinstance(error, NotADirectoryError):
        return InputFileError(f"{path}: no such file (a part of the path is not a folder)")
    return InputFileError(f"{path}: cannot read ({error.strerror or error})")


def user_path(text: str | Path) -> Path:
    """``text`` as a path, ``~`` and ``~user`` expanded; as written when there is no such home
    (``expanduser`` raises RuntimeError): then it names a file that is missing, not an error."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)


def open_regular(path: str | Path, limit: int | None = None, what: str = "a source file") -> BinaryIO:
    """Open a regular file for reading in binary mode; InputFileError for anything else (a
    missing file, a FIFO, a device, a folder (not ``what``), or a reported size over ``limit``)."""
    path = Path(path)
    try:
        info = os.stat(path)
        _refuse(path, info.st_mode, what)
        if limit is not None and info.st_size > limit:
            raise InputFileError(f"{path}: {info.st_size} bytes is over the {describe_limit(limit)} limit")
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        raise _os_error(path, error) from None
    except ValueError:  # a NUL character in the path
        raise InputFileError(f"{str(path)!r}: not a valid file name") from None
    try:
        _refuse(path, os.fstat(fd).st_mode, what)  # swapped for a FIFO or device after the check
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


#: The most a settings file (a rubric, an adjustments file, a key, a fitted model) may hold.
SETTINGS_FILE_LIMIT = 16 << 20


def read_settings_text(path: str | Path, what: str, limit: int = SETTINGS_FILE_LIMIT) -> str:
    """A settings file's text (UTF-8, a byte-order mark dropped) read safely: a FIFO, a device,
    a folder or a file over ``limit`` is one InputFileError naming ``what``, never a hang or a
    read without end."""
    data = read_capped(path, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputFileError(f"{path}: {what} is not UTF-8 text") from None


def read_capped(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file, refusing it (InputFileError) when it holds more than
    ``limit`` bytes; never reads more than ``limit + 1`` bytes."""
    path = Path(path)
    with open_regular(path, limit) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise _os_error(path, error) from None
    if len(data) > limit:
        raise InputFileError(f"{path}: more than {describe_limit(limit)}, over the limit")
    return data
