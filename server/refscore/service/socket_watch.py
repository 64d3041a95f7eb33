"""A daemon's watch on its own socket file.

Removed (a ``/tmp`` or ``$XDG_RUNTIME_DIR`` cleaner, a user's ``rm``) or replaced, the socket no
longer reaches this daemon: connected clients keep their connections, but a new client cannot
connect, and cannot start a daemon of its own either, because this one holds ``daemon.lock``.
So the daemon stops in order (connected clients get ``$/exit``) and the next client starts a
fresh one.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Callable

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


async def watch_socket(path: Path, inode: int, on_gone: Callable[[str], None],
                       every: float = WATCH_EVERY_S) -> None:
    """Call ``on_gone(reason)`` once, as soon as ``path`` is not the daemon's socket any more."""
    while True:
        await asyncio.sleep(every)
        reason = socket_gone(path, inode)
        if reason is not None:
            on_gone(reason)
            return
