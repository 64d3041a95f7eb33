"""One process-wide, thread-safe pause of the cyclic garbage collector.

Analyses allocate many small, acyclic objects; a cyclic collection every 700 allocations would
only scan them. Pauses nest and may overlap across threads (the daemon scores in a pool): the
collector is re-enabled when the last pause ends, and only if it was enabled before the first.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause cyclic GC for the duration of the block."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()
