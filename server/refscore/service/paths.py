"""Where the daemon lives on disk, with the permissions that keep other users out, and file locks.

Everything sits in one private directory, ``platformdirs.user_runtime_dir("refscore")`` (mode
0700, owned by the user; ``$REFSCORE_RUNTIME_DIR`` overrides it, which the tests use):

* ``daemon.sock``  the Unix socket (mode 0600);
* ``daemon.lock``  held (``flock``) by the one live daemon for its whole life: the kernel drops it
  when the process dies, even by ``kill -9``, so a socket file with no lock holder is stale;
* ``start.lock``   held by a client while it starts a daemon, so racing clients start one;
* ``daemon.json``  pid, version, transport and address (and, for TCP, the access token), 0600.

Logs go to ``platformdirs.user_log_dir("refscore")`` (``$REFSCORE_LOG_DIR`` overrides it).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from ..errors import EXIT_INPUT, EXIT_UNSAFE_RUNTIME_DIR, RefScoreError

RUNTIME_DIR_ENV = "REFSCORE_RUNTIME_DIR"
LOG_DIR_ENV = "REFSCORE_LOG_DIR"
SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"
START_LOCK_NAME = "start.lock"
INFO_NAME = "daemon.json"
LOG_NAME = "daemon.log"
#: sun_path holds 108 bytes on Linux, 104 on macOS; longer socket paths fall back to TCP.
MAX_SOCKET_PATH = 100


class RuntimeDirError(RefScoreError, OSError):
    """The runtime directory cannot be trusted: a symbolic link, someone else's, not a directory.

    Refused with its own exit code (``EXIT_UNSAFE_RUNTIME_DIR``): the socket in a directory that
    another user controls could be theirs."""

    exit_code = EXIT_UNSAFE_RUNTIME_DIR


def runtime_dir() -> Path:
    """The daemon's directory (not created)."""
    override = os.environ.get(RUNTIME_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    with warnings.catch_warnings():  # "XDG_RUNTIME_DIR is not set, falling back to /tmp/runtime-<uid>"
        warnings.simplefilter("ignore")
        return Path(platformdirs.user_runtime_dir("refscore"))


def log_dir() -> Path:
    """The directory for ``daemon.log`` (not created)."""
    override = os.environ.get(LOG_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_log_dir("refscore"))


def _private_dir(path: Path, create: bool = True) -> bool:
    """Check that ``path`` is a real 0700 directory owned by this user (created so when missing
    and ``create``; tightened when looser). False when missing and not ``create``."""
    hint = f"set {RUNTIME_DIR_ENV} to a private directory"
    try:
        if create:
            try:
                path.mkdir(mode=0o700, parents=True)
            except FileExistsError:
                pass
        info = os.lstat(path)
    except FileNotFoundError:
        if create:
            raise RuntimeDirError(f"the daemon's runtime directory {path} cannot be created; {hint}") from None
        return False
    except OSError as error:
        raise RuntimeDirError(f"the daemon's runtime directory {path} cannot be used "
                              f"({error.strerror or error}); {hint}") from None
    if stat.S_ISLNK(info.st_mode):
        raise RuntimeDirError(f"the daemon's runtime directory {path} is a symbolic link; the daemon's socket "
                              f"lives only in a real private directory: remove the link or {hint}")
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirError(f"the daemon's runtime directory {path} is not a directory; {hint}")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise RuntimeDirError(f"the daemon's runtime directory {path} belongs to another user; {hint}")
    if os.name == "posix" and info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return True


def _checked_runtime_dir(create: bool) -> Path | None:
    path = runtime_dir()
    parent = path.parent
    if parent.name.startswith("runtime-") and str(parent.parent) in ("/tmp", "/var/tmp"):
        if not _private_dir(parent, create):
            return None
    return path if _private_dir(path, create) else None


def ensure_runtime_dir() -> Path:
    """The runtime directory, created private (0700) if needed; ``RuntimeDirError`` when unsafe.

    platformdirs' fallback without ``$XDG_RUNTIME_DIR`` is ``/tmp/runtime-<uid>``, a shared
    place, so the parent is checked (and tightened) too when it is that fallback.
    """
    path = _checked_runtime_dir(create=True)
    assert path is not None
    return path


def existing_runtime_dir() -> Path | None:
    """The runtime directory if it exists, checked as ``ensure_runtime_dir`` checks it (clients
    check it before they connect); None when it does not exist."""
    return _checked_runtime_dir(create=False)


def socket_path() -> Path:
    return runtime_dir() / SOCKET_NAME


def unix_sockets_usable() -> bool:
    """AF_UNIX exists here and the socket path fits in ``sun_path``."""
    import socket

    return hasattr(socket, "AF_UNIX") and len(os.fsencode(str(socket_path()))) <= MAX_SOCKET_PATH


class SocketPathError(RefScoreError):
    """Something that is not a socket sits where the daemon's socket goes (exit 3)."""

    exit_code = EXIT_INPUT


def remove_stale_socket(path: Path) -> bool:
    """Remove a socket left by a daemon that died (the caller holds the daemon lock); True when
    one was there. Anything else at ``path`` (a folder, a regular file, a link) is never removed:
    ``SocketPathError`` in one line."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISSOCK(mode):
        from ..safe_read import kind_of

        what = "a symbolic link" if stat.S_ISLNK(mode) else (kind_of(mode) or "a regular file")
        raise SocketPathError(f"{path} is {what}, not the daemon's socket; RefScore does not remove it: "
                              f"move it away, or set {RUNTIME_DIR_ENV} to another private directory")
    path.unlink()
    return True


def write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically, readable by this user only (0600), never over a
    link or a device (``safe_write``)."""
    from ..safe_write import replace_file

    replace_file(path, json.dumps(data, indent=1), mode=0o600)


def read_info() -> dict[str, Any] | None:
    """``daemon.json``, or None when absent or unreadable."""
    try:
        data = json.loads((runtime_dir() / INFO_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


# -- file locks ------------------------------------------------------------------------------------


class FileLock:
    """An exclusive advisory lock on a file, released when closed or when the process dies."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def acquire(self, timeout: float | None = 0.0) -> bool:
        """Try to take the lock; wait up to ``timeout`` seconds (None: forever). True if taken."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
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

    def __enter__(self) -> "FileLock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_is_held(path: Path) -> bool:
    """True when another process holds the lock on ``path`` (a live daemon, for ``daemon.lock``)."""
    if not path.exists():
        return False
    probe = FileLock(path)
    if probe.acquire(0):
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
