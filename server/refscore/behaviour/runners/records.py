"""Reading a harness's JSON lines back, whatever the code under test printed or broke."""

from __future__ import annotations

import json
from typing import Any, Callable

from ..sandbox import Completed

#: A record for an input the harness never reached.
LOST = {"lost": "not run: the program stopped the harness"}


def read_records(output: bytes, count: int) -> tuple[dict[str, Any] | None, dict[int, dict[str, Any]]]:
    """The load line and the first record of each input index in a harness's output."""
    load: dict[str, Any] | None = None
    records: dict[int, dict[str, Any]] = {}
    for line in output.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if "load" in record and load is None:
            load = record
        index = record.get("i")
        if isinstance(index, int) and 0 <= index < count and index not in records:
            records[index] = record
    return load, records


def run_resuming(run: Callable[[int], Completed], count: int, restarts: int = 2
                 ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Run a harness over inputs ``start..count`` (``run(start)``); when the sandbox is stopped
    (its time, its output cap, a crash), the input it was on is a timeout or a crash and the
    run goes on after it in a fresh sandbox, ``restarts`` times at most."""
    results: list[dict[str, Any] | None] = [None] * count
    load: dict[str, Any] | None = None
    start = 0
    for attempt in range(restarts + 1):
        completed = run(start)
        first, records = read_records(completed.stdout, count - start)
        load = load or first
        if first is None or first.get("load") != "ok":
            load = first or {"load": "error", "e": "Crash", "m": _why_stopped(completed)}
            break
        for index, record in records.items():
            results[start + index] = record
        missing = [i for i in range(start, count) if results[i] is None]
        if not missing:
            break
        stuck = missing[0]
        results[stuck] = ({"timeout": True} if completed.timed_out else
                          {"lost": _why_stopped(completed)})
        start = stuck + 1
        if start >= count:
            break
    return load, [r if r is not None else dict(LOST) for r in results]


def _why_stopped(completed: Completed) -> str:
    if completed.timed_out:
        return "timeout"
    if completed.output_capped:
        return "printed too much"
    if completed.returncode is not None and completed.returncode < 0:
        return f"killed by signal {-completed.returncode}"
    tail = completed.stderr.decode("utf-8", "replace").strip().splitlines()
    return "crashed" + (f": {tail[-1][:160]}" if tail else f" (exit {completed.returncode})")
