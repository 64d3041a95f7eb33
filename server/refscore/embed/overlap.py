"""Overlap of host work with the model: the next batch is prepared while the current one runs.

``prefetch`` runs an iterator on a helper thread a few items ahead of its reader (on a GPU the
next batch's padded, pinned input tensors are built while the device computes the current one;
on the CPU the same path runs, the helper thread then only saves a little waiting). Items come
out in order; an exception in the producer is raised in the reader.
"""

from __future__ import annotations

import queue
import threading
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")
_DONE = object()


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def prefetch(items: Iterable[T], depth: int = 2) -> Iterator[T]:
    """``items`` in order, produced on a helper thread up to ``depth`` ahead of the reader."""
    box: "queue.Queue[object]" = queue.Queue(maxsize=max(1, depth))
    stop = threading.Event()

    def put(value: object) -> bool:
        while not stop.is_set():
            try:
                box.put(value, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put(item):
                    return
        except BaseException as error:  # noqa: BLE001 - handed to the reader
            put(_Failure(error))
            return
        put(_DONE)

    worker = threading.Thread(target=produce, name="refscore-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            value = box.get()
            if value is _DONE:
                return
            if isinstance(value, _Failure):
                raise value.error
            yield value  # type: ignore[misc]
    finally:
        stop.set()
        worker.join(timeout=5)
