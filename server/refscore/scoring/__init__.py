"""The one scoring pipeline: text in, typed report out. CLI, editor and grader all call it.

Entry points: ``factory.open_scorer`` (a Scorer for a policy), ``report.ScoreRequest`` /
``report.ScoreReport`` (what goes in and comes out), ``pairing`` (per-function scores).
"""

from __future__ import annotations

from typing import Any

__all__ = ["open_scorer"]


def __getattr__(name: str) -> Any:
    if name == "open_scorer":  # lazy: importing a submodule stays cheap
        from .factory import open_scorer

        return open_scorer
    raise AttributeError(name)
