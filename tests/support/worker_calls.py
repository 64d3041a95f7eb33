"""Module-level functions for tests to run in a ``service.worker.ProcessWorker`` (a spawned process
imports them by name)."""

from __future__ import annotations

import weakref

_watched: list[weakref.ref] = []


class _Node:
    """An object that can refer to itself (a reference cycle only the cyclic collector frees)."""

    me: "_Node | None" = None


def make_cycle() -> None:
    """Leave one unreachable reference cycle behind, watched by a weak reference."""
    node = _Node()
    node.me = node
    _watched.append(weakref.ref(node))


def cycles_alive() -> int:
    """How many of the cycles ``make_cycle`` left are still in memory."""
    return sum(1 for ref in _watched if ref() is not None)


def fail() -> None:
    raise ValueError("the call failed")
