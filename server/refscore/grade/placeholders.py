"""The rows of an interrupted run's items that no scored part holds: each says the run was
interrupted (and whether a rerun resumes), so the reports list every submission."""

from __future__ import annotations

from typing import Any, Callable

from .block_score import Staged
from .plan import PlannedBlock, Sources


def placeholders(sources: Sources, why: str) -> Callable[[PlannedBlock, set[int]], dict[int, dict[str, Any]]]:
    """``assemble``'s fill for an interrupted run: a row saying so (``why``) for each item no part
    holds (the inputs are read again, in order, once per assembly pass)."""
    state: dict[str, Any] = {"scan": None, "last": -1}

    def fill(block: PlannedBlock, held: set[int]) -> dict[int, dict[str, Any]]:
        if state["scan"] is None or block.index <= state["last"]:
            state["scan"] = sources.scan()
        state["last"] = block.index
        for spec, items in state["scan"]:
            if spec.index == block.index:
                out = {}
                for offset, item in items:
                    if offset not in held:
                        staged = Staged(offset, item)
                        _, row, detail, _ = staged.entry(True)
                        row["errors"] = [*row["errors"], why] if item.scorable else row["errors"]
                        out[offset] = {"row": row, "detail": detail}
                return out
        return {}

    return fill
