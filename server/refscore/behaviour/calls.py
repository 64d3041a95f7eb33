"""An input of function mode: which function, the argument list as source, where it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
