"""Where the daemon lives on disk, with the permissions that keep other users out, and file locks.

Everything sits in one private directory (mode 0700, owned by the user), found by one rule that
never moves it silently: ``$REFSCORE_RUNTIME_DIR`` when set (the tests use it), else
``$XDG_RUNTIME_DIR/refscore``, else ``runtime-<uid>/refscore`` in the temporary directory (on
macOS and Windows, ``platformdirs.user_runtime_dir("refscore")``). A directory on that path that
is not ours, not a real directory, or writable by other users is refused in one line
(``RuntimeDirError``), never swapped for another place: a daemon started in a fallback could not
be found by ``daemon status`` once the cause was fixed.

* ``daemon.sock``  the Unix socket (mode 0600);
* ``daemon.lock``  held (``flock``) by the one live daemon for its whole life: the kernel drops it
  when the process dies, even by ``kill -9``, so a socket file with no lock holder is stale;
* ``start.lock``   held by a client while it starts a daemon, so racing clients start one;
* ``daemon.json``  pid, version, transport and address (and, for TCP, the access token), 0600.

Logs go to ``platformdirs.user_log_dir("refscore")`` (``$REFSCORE_LOG_DIR`` overrides it): a rotating
``daemon.log`` (``setup_logging``), one line for an input's fault.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from ..errors import EXIT_INPUT, EXIT_UNSAFE_RUNTIME_DIR, RefScoreError
from ..file_lock import FileLock, lock_is_held  # noqa: F401 - the daemon's locks, as before

RUNTIME_DIR_ENV = "REFSCORE_RUNTIME_DIR"
LOG_DIR_ENV = "REFSCORE_LOG_DIR"
SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"
START_LOCK_NAME = "start.lock"
INFO_NAME = "daemon.json"
LOG_NAME = "daemon.log"
LOG_MAX_BYTES = 5 * 1024 * 1024
LOG_BACKUPS = 3
#: Errors that are the input's, not the daemon's: logged as one line, never with a traceback.
_EXPECTED_ERRORS = frozenset({"InputTooLargeError"})
#: sun_path holds 108 bytes on Linux, 104 on macOS; longer socket paths fall back to TCP.
MAX_SOCKET_PATH = 100


class RuntimeDirError(RefScoreError, OSError):
    """The runtime directory cannot be trusted: a symbolic link, someone else's, not a directory.

    Refused with its own exit code (``EXIT_UNSAFE_RUNTIME_DIR``): the socket in a directory that
    another user controls could be theirs."""

    exit_code = EXIT_UNSAFE_RUNTIME_DIR


def _xdg_platform() -> bool:
    return os.name == "posix" and sys.platform != "darwin"


def _xdg_runtime_dir() -> Path | None:
    """``$XDG_RUNTIME_DIR`` when set to an absolute path (a relative one is ignored, as the XDG
    spec says)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    return Path(xdg) if xdg and os.path.isabs(xdg) else None


def runtime_dir() -> Path:
    """The daemon's directory (not created), by the module's one rule."""
    override = os.environ.get(RUNTIME_DIR_ENV)
    if override:
        return Path(override)
    if _xdg_platform():
        xdg = _xdg_runtime_dir()
        if xdg is not None:
            return xdg / "refscore"
        return Path(tempfile.gettempdir()) / f"runtime-{os.getuid()}" / "refscore"
    import platformdirs

    with warnings.catch_warnings():  # "XDG_RUNTIME_DIR is not set, falling back to /tmp/runtime-<uid>"
        warnings.simplefilter("ignore")
        return Path(platformdirs.user_runtime_dir("refscore"))


def log_dir() -> Path:
    """The directory for ``daemon.log`` (not created)."""
    override = os.environ.get(LOG_DIR_ENV)
    if override:  # made absolute: the daemon runs in its own folder (``processes.spawn_daemon``)
        return Path(override).absolute()
    import platformdirs

    return Path(platformdirs.user_log_dir("refscore"))


class LogDirError(RefScoreError, OSError):
    """The daemon's log folder cannot be made: a file is in the way, or it may not be written (exit 3;
    an OSError, like ``RuntimeDirError``, so that ``score`` and ``grade`` score in-process with a note)."""

    exit_code = EXIT_INPUT


def ensure_log_dir() -> Path:
    """The log directory, created when missing; ``LogDirError`` in one line when it cannot be."""
    directory = log_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        why = ("a file is in the way" if isinstance(error, (FileExistsError, NotADirectoryError))
               else error.strerror or str(error))
        raise LogDirError(f"the daemon's log folder {directory} cannot be made: {why}; move it away or set "
                          f"{LOG_DIR_ENV} to a folder") from None
    return directory


class _OneLineForInputErrors(logging.Filter):
    """A failure caused by the input (a text over the CodeBERTScore limit) is the user's to fix
    and happens on every such request: one line with the reason, not a traceback each time."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and type(error).__name__ in _EXPECTED_ERRORS:
            record.msg, record.args = f"{record.getMessage()}: {error}", None
            record.exc_info, record.exc_text = None, None
        return True


def setup_logging() -> Path:
    """Log to the user log dir with rotation; level from $REFSCORE_LOG_LEVEL (default INFO)."""
    import logging.handlers

    path = ensure_log_dir() / LOG_NAME
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=LOG_MAX_BYTES, backupCount=LOG_BACKUPS,
                                                   encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_OneLineForInputErrors())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(os.environ.get("REFSCORE_LOG_LEVEL", "INFO").upper())
    return path


_HINT = f"set {RUNTIME_DIR_ENV} to a private directory"


def _writable_by_others(path: Path, mode: int, what: str) -> RuntimeDirError:
    return RuntimeDirError(f"{what} {path} is writable by other users (mode {oct(stat.S_IMODE(mode))}); the "
                           f"daemon's socket lives only in a private directory: `chmod 700 {path}` or {_HINT}")


def _private_dir(path: Path, create: bool = True) -> bool:
    """Check that ``path`` is a real directory owned by this user that no one else can write
    (created 0700 when missing and ``create``; read bits for others are dropped). False when
    missing and not ``create``."""
    hint = _HINT
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
    if os.name == "posix" and info.st_mode & 0o022:
        raise _writable_by_others(path, info.st_mode, "the daemon's runtime directory")
    if os.name == "posix" and info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return True


def _check_xdg_runtime_dir(xdg: Path) -> None:
    """``$XDG_RUNTIME_DIR`` must exist, be ours and be writable by no one else (it is never
    created, tightened or swapped for a fallback)."""
    try:
        info = os.stat(xdg)
    except OSError as error:
        raise RuntimeDirError(f"$XDG_RUNTIME_DIR ({xdg}) cannot be used ({error.strerror or error}); "
                              f"fix or unset it, or {_HINT}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirError(f"$XDG_RUNTIME_DIR ({xdg}) is not a directory; fix or unset it, or {_HINT}")
    if info.st_uid != os.getuid():
        raise RuntimeDirError(f"$XDG_RUNTIME_DIR ({xdg}) belongs to another user; fix or unset it, or {_HINT}")
    if info.st_mode & 0o022:
        raise _writable_by_others(xdg, info.st_mode, "$XDG_RUNTIME_DIR")


def _checked_runtime_dir(create: bool) -> Path | None:
    path = runtime_dir()
    if not path.is_absolute():  # the daemon runs in its folder: a relative one names another place there
        raise RuntimeDirError(f"{RUNTIME_DIR_ENV}={path} is a relative path; the daemon's folder must be the "
                              f"same from every folder: give an absolute path")
    if not os.environ.get(RUNTIME_DIR_ENV) and _xdg_platform():
        if _xdg_runtime_dir() is not None:
            _check_xdg_runtime_dir(path.parent)
        elif not _private_dir(path.parent, create):  # runtime-<uid> in the shared temporary directory
            return None
    return path if _private_dir(path, create) else None


def ensure_runtime_dir() -> Path:
    """The runtime directory, created private (0700) if needed; ``RuntimeDirError`` when unsafe.

    Its parent is checked too: ``$XDG_RUNTIME_DIR``, or ``runtime-<uid>`` in the shared
    temporary directory (created 0700) when that is unset.
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
