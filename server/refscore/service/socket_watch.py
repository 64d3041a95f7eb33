"""A daemon's watch on the file new clients find it by: its Unix socket, or over TCP its
``daemon.json`` (port and token).

Removed (a ``/tmp`` or ``$XDG_RUNTIME_DIR`` cleaner, a user's ``rm``) or replaced, that file no
longer leads to this daemon: connected clients keep their connections, but a new client cannot
connect, and cannot start a daemon of its own either, because this one holds ``daemon.lock``.
So the daemon stops in order (connected clients get ``$/exit``) and the next client starts a
fresh one.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from . import paths

#: Seconds between two looks at the socket file.
WATCH_EVERY_S = 1.0


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
