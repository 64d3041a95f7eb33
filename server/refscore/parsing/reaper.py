"""Freeing what the caches evict, later and on another thread, in an editing process.

Each new version of a large document evicts the analyses of an older one from the caches: some
hundred thousand objects (flat trees, edges, token lists), whose freeing took about a fifth of a
20,000-line edit's CodeBLEU phase, on the path to the editor's update. With ``defer_frees`` on,
an evicted value is handed here and freed, one value at a time, only while no scoring runs
(``busy``) and none has for ``QUIET`` seconds: in the pause between edits, after the update went
out. At most ``MAX_HELD`` values wait (beyond that the oldest is freed at once). Off (batch
scoring), an evicted value is freed where it is evicted.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import Any, Iterator

QUIET = 0.3
MAX_HELD = 64

_held: deque[Any] = deque()
_lock = threading.Lock()
_wake = threading.Event()
_state: dict[str, Any] = {"on": False, "thread": None, "last": 0.0, "busy": 0}


def defer_frees(on: bool = True) -> None:
    """Free evicted values on the reaper thread in this process (an editing session)."""
    _state["on"] = on


@contextmanager
def busy() -> Iterator[None]:
    """Scoring runs: nothing is freed here until it ends and ``QUIET`` seconds pass."""
    with _lock:
        _state["busy"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["busy"] -= 1
            _state["last"] = time.monotonic()


def evicted(value: Any) -> None:
    """Take ``value``, evicted from a cache: kept for the reaper when frees are deferred, else
    dropped here (with the caller's last reference)."""
    if not _state["on"]:
        return
    overflow = None
    with _lock:
        _held.append(value)
        _state["last"] = time.monotonic()
        if len(_held) > MAX_HELD:
            overflow = _held.popleft()
        if _state["thread"] is None:
            thread = threading.Thread(target=_reap, name="refscore-reaper", daemon=True)
            _state["thread"] = thread
            thread.start()
    _wake.set()
    del overflow  # freed here: the bound keeps memory as it was


def held() -> int:
    """How many evicted values wait to be freed."""
    with _lock:
        return len(_held)


def _reap() -> None:
    while True:
        _wake.wait()
        _wake.clear()
        while True:
            with _lock:
                if not _held:
                    break
                wait = 0.0 if not _state["busy"] and time.monotonic() - _state["last"] >= QUIET else QUIET / 3
                value = _held.popleft() if not wait else None
            if wait:
                time.sleep(wait)
            del value  # one value freed, then the state looked at again
