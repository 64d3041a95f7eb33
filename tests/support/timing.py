"""How long a test waits for an event before it calls the wait a hang.

A test waits for an event (a notification, a file, a process exit) and gives up only after a hang
guard: minutes, not the seconds the event takes on an idle machine, so a machine under heavy load
(load average 10 on 2 cores) is slow but never fails a test. ``REFSCORE_TEST_SLOWDOWN`` (a number,
default 1) scales every guard at once, for a machine slower still.
"""

from __future__ import annotations

import os

#: Seconds a wait for one event may take before it is a hang (scaled by ``hang_guard``).
HANG_S = 120.0


def slowdown() -> float:
    """The factor from ``REFSCORE_TEST_SLOWDOWN`` (1 when unset); a bad value is one clear error."""
    raw = os.environ.get("REFSCORE_TEST_SLOWDOWN", "1")
    try:
        factor = float(raw)
    except ValueError:
        factor = 0.0
    if not factor > 0:
        raise ValueError(f"REFSCORE_TEST_SLOWDOWN must be a positive number, not {raw!r}")
    return factor


def hang_guard(seconds: float = HANG_S) -> float:
    """``seconds`` (a bound that only catches a hang) scaled by the suite's one slowdown factor."""
    return seconds * slowdown()
