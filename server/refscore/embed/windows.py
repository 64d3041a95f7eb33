"""Overlapping windows for inputs longer than the model's position limit.

Each window is a contiguous slice of the token sequence no longer than the model limit; each token
takes its embedding from exactly one window, the one where it sits away from the edges (a margin of
``overlap/2`` of the window on each inner side). This is the SLED-style scheme code-bert-score
uses, so long inputs match it token for token.
"""

from __future__ import annotations

from typing import NamedTuple


class Window(NamedTuple):
    """Model input ``[start, end)``; embeddings kept for ``[keep_start, keep_end)`` (absolute)."""

    start: int
    end: int
    keep_start: int
    keep_end: int


def plan_windows(length: int, limit: int, overlap: float = 0.5) -> list[Window]:
    """Split ``length`` tokens into windows of at most ``limit`` tokens (see module doc)."""
    if length <= limit:
        return [Window(0, length, 0, length)]
    margin = int(limit * overlap / 2)
    step = limit - 2 * margin
    if step <= 0:
        raise ValueError(f"overlap {overlap} leaves no stride for a window of {limit}")
    windows = [Window(0, limit, 0, limit - margin)]
    start, end, keep_end = 0, limit, limit - margin
    while end < length:
        end = min(length, end + step)
        last = end >= length
        start = length - limit if last else start + step
        new_keep_end = length if last else min(length, keep_end + step)
        windows.append(Window(start, end, keep_end, new_keep_end))
        keep_end = new_keep_end
    return windows
