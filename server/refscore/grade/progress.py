"""Progress on stderr: a redrawn bar with items/s and ETA on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

BAR_WIDTH = 28
PLAIN_INTERVAL_S = 2.0


def format_duration(seconds: float) -> str:
    """``42s``, ``3m05s`` or ``1h02m``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


class Progress:
    """Counts finished items of ``total``; ``update`` after each batch, ``close`` at the end."""

    def __init__(self, total: int, stream: TextIO | None = None, tty: bool | None = None,
                 enabled: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.enabled = enabled
        self.clock = clock
        self.done = 0
        self.from_cache = 0
        self.scored = 0
        self._start = clock()
        self._last_line = float("-inf")
        self._line_len = 0

    def rate(self) -> float:
        """Items scored per second (cached items excluded)."""
        elapsed = self.clock() - self._start
        return self.scored / elapsed if elapsed > 0 else 0.0

    def eta(self) -> float | None:
        """Seconds left at the current rate, or None before the first scored item."""
        rate = self.rate()
        return (self.total - self.done) / rate if rate > 0 else None

    def update(self, scored: int = 0, cached: int = 0, skipped: int = 0) -> None:
        """Record finished items and redraw (or print a line if one is due)."""
        self.scored += scored
        self.from_cache += cached
        self.done += scored + cached + skipped
        if not self.enabled:
            return
        if self.tty:
            self._draw(self.status_text())
        else:
            now = self.clock()
            if now - self._last_line >= PLAIN_INTERVAL_S or self.done >= self.total:
                self._last_line = now
                print(f"grade: {self.status_text()}", file=self.stream, flush=True)

    def status_text(self) -> str:
        """``120/1000 (12%) 9.5 items/s ETA 1m33s`` (+ how many came from the cache)."""
        pct = 100 * self.done / self.total if self.total else 100.0
        eta = self.eta()
        text = f"{self.done}/{self.total} ({pct:.0f}%) {self.rate():.1f} items/s"
        if self.done < self.total:
            text += f" ETA {format_duration(eta)}" if eta is not None else " ETA ?"
        if self.from_cache:
            text += f", {self.from_cache} from cache"
        return text

    def _draw(self, text: str) -> None:
        filled = int(BAR_WIDTH * self.done / self.total) if self.total else BAR_WIDTH
        line = f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {text}"
        pad = max(0, self._line_len - len(line))
        self.stream.write(line + " " * pad)
        self.stream.flush()
        self._line_len = len(line)

    def close(self) -> None:
        """Finish the bar's line on a terminal."""
        if self.enabled and self.tty and self._line_len:
            self.stream.write("\n")
            self.stream.flush()
