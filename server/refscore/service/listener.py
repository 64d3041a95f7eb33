"""The daemon's accept loop, bounded under a flood of connections.

asyncio's own (``start_server``) meets EMFILE (no file descriptor left) by logging a traceback and
scheduling a retry once per connection its backlog allows, every tick: under ``ulimit -n 64`` with
150 idle connections it logged 38,000 tracebacks in 8 s, burned a core, and ``daemon status``
never got in. Here, when accepting fails for want of a resource (``EMFILE``, ``ENFILE``,
``ENOBUFS``, ``ENOMEM``):

* ``shed()`` (the daemon's) closes the connections that have not sent ``initialize`` within
  ``SHED_AFTER`` seconds (they are what hold the descriptors a real client needs); when it closed
  some, accepting goes on at the next tick;
* else accepting pauses, ``FIRST_PAUSE`` doubling up to ``LONGEST_PAUSE``, until one succeeds;
* the log gets one line when it starts and then at most one a minute, with the count
  (``Tally``).

It also watches the file new clients find the daemon by (``watch_socket``, ``watch_info``): its
Unix socket, or over TCP its ``daemon.json`` (port and token). Removed (a ``/tmp`` or
``$XDG_RUNTIME_DIR`` cleaner, a user's ``rm``) or replaced, that file no longer leads to this
daemon: connected clients keep their connections, but a new client cannot connect, and cannot
start a daemon of its own either, because this one holds ``daemon.lock``. So the daemon stops in
order (connected clients get ``$/exit``) and the next client starts a fresh one.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import socket
import time
from pathlib import Path
from typing import Callable

from . import paths

log = logging.getLogger("refscore.daemon")

RESOURCE_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: Connections accepted per tick at most (the rest wait for the next one).
PER_TICK = 64
FIRST_PAUSE = 0.05
LONGEST_PAUSE = 2.0
#: A connection this old that has not initialised may be closed when descriptors run out.
SHED_AFTER = 0.5
#: Seconds between two looks at the socket file.
WATCH_EVERY_S = 1.0


class Tally:
    """One log line for the first of a kind of event, then at most one per ``every`` seconds
    saying how many there were since."""

    def __init__(self, every: float = 60.0) -> None:
        self.every, self.count, self.logged = every, 0, None  # type: ignore[var-annotated]

    def note(self, message: str) -> None:
        """Count one event; log ``message`` (with the count since the last line) when it is time."""
        self.count += 1
        now = time.monotonic()
        if self.logged is None or now - self.logged >= self.every:
            more = f" ({self.count} time(s) since the last such line)" if self.logged is not None else ""
            log.warning("%s%s; said at most once a minute", message, more)
            self.logged, self.count = now, 0


def listening_socket(unix_path: Path | None, backlog: int) -> socket.socket:
    """A non-blocking listening socket: on ``unix_path`` (born 0600), else on 127.0.0.1, a free port."""
    if unix_path is None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
    else:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_mask = os.umask(0o177)  # no window where others can connect
        try:
            sock.bind(str(unix_path))
        except BaseException:
            sock.close()
            raise
        finally:
            os.umask(old_mask)
    sock.listen(backlog)
    sock.setblocking(False)
    return sock


class Listener:
    """Accepts on ``sock`` and hands each connection to ``handle``; see the module's text."""

    def __init__(self, sock: socket.socket, handle: Callable[[socket.socket], None],
                 shed: Callable[[], int]) -> None:
        self.sock, self.handle, self.shed = sock, handle, shed
        self.pause = 0.0
        self.exhausted = Tally()
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self.sock.fileno(), self._ready)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._loop is not None and self.sock.fileno() >= 0:
            self._loop.remove_reader(self.sock.fileno())
        self.sock.close()

    def _ready(self) -> None:
        for _ in range(PER_TICK):
            try:
                conn, _ = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionAbortedError:
                continue
            except OSError as error:
                if error.errno in RESOURCE_ERRORS:
                    self._exhausted(error)
                else:
                    log.warning("accepting a connection failed: %s", error)
                return
            self.pause = 0.0
            self.handle(conn)

    def _exhausted(self, error: OSError) -> None:
        closed = self.shed()
        self.exhausted.note(f"cannot accept a connection: {os.strerror(error.errno or 0)}; "
                            + (f"closed {closed} connection(s) that never initialised" if closed
                               else f"pausing accepts (up to {LONGEST_PAUSE:g} s)"))
        if closed:
            return  # their descriptors are freed as the loop closes them: the next tick accepts
        self.pause = min(LONGEST_PAUSE, self.pause * 2) if self.pause else FIRST_PAUSE
        assert self._loop is not None
        self._loop.remove_reader(self.sock.fileno())
        self._timer = self._loop.call_later(self.pause, self._resume)

    def _resume(self) -> None:
        self._timer = None
        if self._loop is not None and self.sock.fileno() >= 0:
            self._loop.add_reader(self.sock.fileno(), self._ready)


def socket_gone(path: Path, inode: int) -> str | None:
    """Why ``path`` no longer is the socket with ``inode`` (None while it is, or when unsure)."""
    try:
        found = os.lstat(path).st_ino
    except FileNotFoundError:
        return f"its socket {path} was removed"
    except OSError:
        return None  # cannot look (a permission change): keep serving
    return None if found == inode else f"its socket {path} was replaced"


def info_gone(pid: int) -> str | None:
    """Why ``daemon.json`` no longer names the daemon ``pid`` (None while it does)."""
    info = paths.read_info()  # written by replacing the file: never seen half-written
    where = paths.runtime_dir() / paths.INFO_NAME
    if info is None:
        return f"its {where} was removed"
    return None if info.get("pid") == pid else f"its {where} names another daemon"


async def watch_socket(path: Path, inode: int, on_gone: Callable[[str], None],
                       every: float = WATCH_EVERY_S) -> None:
    """Call ``on_gone(reason)`` once, as soon as ``path`` is not the daemon's socket any more."""
    await _watch(lambda: socket_gone(path, inode), on_gone, every)


async def watch_info(on_gone: Callable[[str], None], every: float = WATCH_EVERY_S) -> None:
    """Call ``on_gone(reason)`` once, as soon as ``daemon.json`` does not name this process."""
    pid = os.getpid()
    await _watch(lambda: info_gone(pid), on_gone, every)


async def _watch(gone: Callable[[], str | None], on_gone: Callable[[str], None], every: float) -> None:
    while True:
        await asyncio.sleep(every)
        reason = gone()
        if reason is not None:
            on_gone(reason)
            return
