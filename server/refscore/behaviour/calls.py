"""An input of function mode (``Call``: which function, the argument list as source, where it came
from) and what a reference's run leaves for judging candidates (``Plan``: the kept inputs, the
reference's outcome on each, the candidate's time per call, a digest of the inputs, or why there
are none)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

#: Where an input came from, most trusted first (selection keeps them in this order).
ORIGINS = ("file", "example", "main", "boundary", "typed", "mutant")


@dataclass(frozen=True)
class Call:
    """``function(args)``: ``args`` is the argument list's source in the reference's language;
    ``values`` the positional arguments as Python values when they are literals (what mutation
    works on), else None."""

    function: str
    args: str
    origin: str = "example"
    values: tuple[Any, ...] | None = None

    @property
    def text(self) -> str:
        """The call as a reader writes it."""
        return f"{self.function}({self.args})"

    def key(self) -> tuple[str, str]:
        """What makes two inputs the same input."""
        return self.function, self.args


@dataclass(frozen=True)
class Plan:
    """The reference's kept inputs and its outcome on each, or why there are none."""

    calls: tuple[Call, ...] = ()
    outcomes: tuple[dict[str, Any], ...] = ()
    call_seconds: float = 1.0
    digest: str = ""
    skipped: str | None = None
    stdins: tuple[str, ...] | None = None  # program mode

    def wall_seconds(self, outcomes: Iterable[dict[str, Any]]) -> float:
        """How long one candidate run over the calls with these reference ``outcomes`` may take:
        each call ten times the reference's time (at most ``call_seconds``), 3 s to start, 30 s
        at most."""
        return min(30.0, 3.0 + sum(min(self.call_seconds, 0.05 + 10 * float(o.get("s", 0))) for o in outcomes))
