"""The typed results of the difference finder: a ranked ``Difference`` and a CodeBLEU
explanation placed on the candidate (``PlacedExplanation``), with their JSON forms.

Offsets are code points (the unit every RefScore result carries); ``range`` and
``reference_range`` are the same spans as 0-based (line, character) pairs in UTF-16 code units,
computed once when the difference is made, so a front end needs no text to show one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from ..codebleu import Explanation

Span = tuple[int, int, int, int]  # start line, start character, end line, end character
DifferenceKind = Literal["changed", "missing", "extra", "moved", "name", "structure"]


def range_dict(span: Span) -> dict[str, Any]:
    """An LSP-style range object."""
    return {"start": {"line": span[0], "character": span[1]}, "end": {"line": span[2], "character": span[3]}}


def _span(data: Mapping[str, Any]) -> Span:
    return (int(data["start"]["line"]), int(data["start"]["character"]),
            int(data["end"]["line"]), int(data["end"]["character"]))


@dataclass(frozen=True)
class Difference:
    """A candidate span that departs from the reference, why (in words) and how much (``weight``,
    0..1, the ranking's key); ``reference_*`` is the reference code it departs from (for a
    ``missing`` difference, the code the candidate lacks, and ``start``/``end`` the candidate code
    next to where it would be)."""

    kind: DifferenceKind
    start: int
    end: int
    range: Span
    reference_index: int
    reference_start: int
    reference_end: int
    reference_range: Span
    reason: str
    weight: float
    #: what the weight is made of: (signal, its share), e.g. ("alignment", 0.6), ("codebleu", 0.1)
    evidence: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``range``/``reference_range`` as LSP ranges, the offsets beside them."""
        return {"kind": self.kind, "range": range_dict(self.range), "reference_range": range_dict(self.reference_range),
                "reason": self.reason, "weight": round(self.weight, 6), "start": self.start, "end": self.end,
                "reference_index": self.reference_index, "reference_start": self.reference_start,
                "reference_end": self.reference_end, "evidence": {k: round(v, 6) for k, v in self.evidence}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Difference":
        """Inverse of ``to_dict``."""
        return cls(str(data["kind"]), int(data["start"]), int(data["end"]), _span(data["range"]),  # type: ignore[arg-type]
                   int(data["reference_index"]), int(data["reference_start"]), int(data["reference_end"]),
                   _span(data["reference_range"]), str(data["reason"]), float(data["weight"]),
                   tuple((str(k), float(v)) for k, v in dict(data.get("evidence", {})).items()))


@dataclass(frozen=True)
class PlacedExplanation:
    """A CodeBLEU explanation with the candidate span it corresponds to; ``start``/``end`` None
    when the candidate has nothing there (the code is simply absent)."""

    explanation: Explanation
    start: int | None
    end: int | None
    how: str  # "aligned", "same kind", "variable", "nearest", "absent"

    @property
    def absent(self) -> bool:
        return self.start is None


@dataclass(frozen=True)
class Differences:
    """Everything the finder says about one candidate: the ranking and the placed explanations."""

    differences: tuple[Difference, ...] = ()
    explanations: tuple[PlacedExplanation, ...] = ()
    #: why there are none although the texts differ (too long, unknown language), or why they are
    #: coarser than usual (repetitive code aligned with its work bounded)
    note: str | None = None

    def top(self, count: int) -> tuple[Difference, ...]:
        return self.differences[:count]
