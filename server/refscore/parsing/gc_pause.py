"""One process-wide, thread-safe pause of the cyclic garbage collector.

Analyses allocate many small, acyclic objects; a cyclic collection every 700 allocations would
only scan them. Pauses nest and may overlap across threads (the daemon scores in a pool): the
collector is re-enabled when the last pause ends, and only if it was enabled before the first.
``hold`` is a pause that one thread starts and another ends (the language server's loop).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable

_lock = threading.Lock()
_holders = 0
_was_enabled = False


class _Pause:
    """The pause as a reusable context manager (cheaper to enter than a generator-based one)."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _holders, _was_enabled
        with _lock:
            if _holders == 0:
                _was_enabled = gc.isenabled()
                gc.disable()
            _holders += 1

    def __exit__(self, *_exc: object) -> None:
        global _holders
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()


_PAUSE = _Pause()


def gc_paused() -> _Pause:
    """Pause cyclic GC for the duration of a ``with`` block."""
    return _PAUSE


#: Tracked objects allocated (net) past which ``hold`` collects before it pauses: runs that
#: overlap without end (documents edited one after another) hold the collector back that far only.
MAX_DEFERRED = 1_000_000


def hold() -> Callable[[], None]:
    """Pause cyclic GC until the returned function is first called (from any thread): an editor's
    scoring run is paused until its last result is published, so that the collections its
    allocations call for come after the update, not inside it. More than ``MAX_DEFERRED``
    allocations since the last collection are collected first."""
    if gc.get_count()[0] > MAX_DEFERRED:
        gc.collect(1)
    _PAUSE.__enter__()
    released = threading.Event()

    def release() -> None:
        if not released.is_set():
            released.set()
            _PAUSE.__exit__()

    return release
