"""An exclusive advisory lock on a file (``flock``; ``msvcrt.locking`` on Windows), released when
closed or when the process dies, even by ``kill -9``: the daemon's ``daemon.lock`` and
``start.lock``, and ``refscore setup``'s lock beside the environment it makes."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .errors import InputFileError


class LockFileError(InputFileError, OSError):
    """Something that is no file sits where a lock file goes (exit 3; an OSError, so that
    ``score`` and ``grade`` score in their own process with it as a note)."""


class FileLock:
    """An exclusive advisory lock on a file, released when closed or when the process dies."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def acquire(self, timeout: float | None = 0.0) -> bool:
        """Try to take the lock; wait up to ``timeout`` seconds (None: forever). True if taken."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except IsADirectoryError:
            raise LockFileError(f"{self.path} is a folder, not a lock file; RefScore does not remove it: "
                                "move it away") from None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if _try_lock_fd(fd):
                self.fd = fd
                return True
            if deadline is not None and time.monotonic() >= deadline:
                os.close(fd)
                return False
            time.sleep(0.02)

    def release(self) -> None:
        if self.fd is not None:
            _unlock_fd(self.fd)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> FileLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_is_held(path: Path) -> bool:
    """True when another process holds the lock on ``path`` (a live daemon, for ``daemon.lock``)."""
    if not path.exists():
        return False
    probe = FileLock(path)
    try:
        taken = probe.acquire(0)
    except LockFileError:  # a folder: no process holds a lock on it
        return False
    if taken:
        probe.release()
        return False
    return True


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock_fd(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock_fd(fd: int) -> None:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass
else:
    import fcntl

    def _try_lock_fd(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
