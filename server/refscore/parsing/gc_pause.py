"""One process-wide, thread-safe pause of the cyclic garbage collector.

Analyses allocate many small, acyclic objects; a cyclic collection every 700 allocations would
only scan them. Pauses nest and may overlap across threads (the daemon scores in a pool): the
collector is re-enabled when the last pause ends, and only if it was enabled before the first.
"""

from __future__ import annotations

import gc
import threading

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
