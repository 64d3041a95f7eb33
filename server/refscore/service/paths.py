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

RUNTIME_DIR_ENV = "REFSCORE_RUNTIME_DIR"
LOG_DIR_ENV = "REFSCORE_LOG_DIR"
SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"
START_LOCK_NAME = "start.lock"
INFO_NAME = "daemon.json"
LOG_NAME = "daemon.log"
#: sun_path holds 108 bytes on Linux, 104 on macOS; longer socket paths fall back to TCP.
MAX_SOCKET_PATH = 100


class RuntimeDirError(OSError):
    """The runtime directory cannot be made private (owned by someone else, not a directory)."""


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


def _private_dir(path: Path) -> None:
    """Create ``path`` as a 0700 directory owned by this user, or check an existing one is."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirError(f"{path} is not a directory")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise RuntimeDirError(f"{path} belongs to another user; set {RUNTIME_DIR_ENV} to a private directory")
    if os.name == "posix" and info.st_mode & 0o077:
        os.chmod(path, 0o700)


def ensure_runtime_dir() -> Path:
    """The runtime directory, created private (0700) if needed.

    platformdirs' fallback without ``$XDG_RUNTIME_DIR`` is ``/tmp/runtime-<uid>``, a shared
    place, so the parent is checked (and tightened) too when it is that fallback.
    """
    path = runtime_dir()
    parent = path.parent
    if parent.name.startswith("runtime-") and str(parent.parent) in ("/tmp", "/var/tmp"):
        _private_dir(parent)
    _private_dir(path)
    return path


def socket_path() -> Path:
    return runtime_dir() / SOCKET_NAME


def unix_sockets_usable() -> bool:
    """AF_UNIX exists here and the socket path fits in ``sun_path``."""
    import socket

    return hasattr(socket, "AF_UNIX") and len(os.fsencode(str(socket_path()))) <= MAX_SOCKET_PATH


def write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically, readable by this user only (0600)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, json.dumps(data, indent=1).encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(tmp, path)


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
