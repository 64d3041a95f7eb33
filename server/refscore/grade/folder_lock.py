"""One ``refscore grade`` run at a time per output folder (issue 45 item 5).

Two runs writing the same folder would mix their reports (``grade.json`` of one class beside the
``grade.csv`` of another) and write into each other's scored parts. A run holds an exclusive lock
(``file_lock``: released when the process ends, even by ``kill -9``) on every folder it writes
reports or scored parts into, from before it reads its inputs until its last output is written;
a second run on one of those folders is refused in one line (exit 3) before it reads or writes
anything.

The lock is a file, ``.refscore-grade.lock``, in the folder (hidden: no class reader grades it),
removed again when the run ends. A run that takes a lock checks that the file it locked is still
the one under that name, so a run that ends (and removes its file) while another opens it never
lets two runs in.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from ..errors import InputFileError
from ..file_lock import FileLock

LOCK_NAME = ".refscore-grade.lock"


class FolderBusyError(InputFileError):
    """Another run holds the lock on an output folder (exit 3)."""


class FolderLocks:
    """The locks a run holds; ``release`` (idempotent) removes the lock files, lets go, and
    removes a folder it made that the run left empty (feedback pages withheld)."""

    def __init__(self) -> None:
        self.held: list[FileLock] = []
        self.made: list[Path] = []

    def release(self) -> None:
        for lock in reversed(self.held):
            try:
                os.unlink(lock.path)  # still ours: no other run can hold it while this one does
            except OSError:
                pass
            lock.release()
        self.held.clear()
        for folder in reversed(self.made):
            try:
                folder.rmdir()
            except OSError:
                pass  # the run wrote there (or another run did): kept
        self.made.clear()


def lock_folders(folders: Iterable[Path]) -> FolderLocks:
    """Lock each folder (made when missing; a file there is left to the run's own checks) for
    this run; ``FolderBusyError`` naming the first folder another run holds (the locks taken
    until then are let go)."""
    locks = FolderLocks()
    try:
        for folder in sorted({Path(os.path.abspath(f)) for f in folders}):
            if os.path.lexists(folder) and not folder.is_dir():
                continue  # a file where a folder goes: the run's own check says so in one line
            try:
                if not folder.is_dir():
                    folder.mkdir(parents=True, exist_ok=True)
                    locks.made.append(folder)
            except OSError as error:
                raise InputFileError(f"{folder}: cannot make this folder ({error.strerror or error})") from None
            lock = _take(folder / LOCK_NAME)
            if lock is None:
                raise FolderBusyError(f"{folder}: another `refscore grade` run is writing its reports or scored "
                                      "parts there; wait for it to finish, or write elsewhere (-o, --cache)")
            locks.held.append(lock)
    except BaseException:
        locks.release()
        raise
    return locks


def _take(path: Path, tries: int = 5) -> FileLock | None:
    """The lock on ``path``, or None when another process holds it. A link there is refused (the
    lock file is never created through one)."""
    for _ in range(tries):
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise InputFileError(f"{path}: not a regular file; RefScore keeps its lock there: remove it")
        lock = FileLock(path)
        if not lock.acquire(0):
            return None
        assert lock.fd is not None
        try:
            same = os.path.samestat(os.fstat(lock.fd), os.stat(path, follow_symlinks=False))
        except FileNotFoundError:  # the run that held it ended and removed it: take the new one
            same = False
        if same:
            return lock
        lock.release()
    return None  # replaced at every try: another run is starting and ending there
