"""The typed, serialisable request and report every front end shares."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

from ..metrics.codebleu import DEFAULT_WEIGHTS, CodeBleuResult

ALL_METRICS = ("codebleu", "codebertscore")


@dataclass(frozen=True)
class ScoreRequest:
    """Score ``candidate`` against ``references`` in ``language`` with the chosen metrics."""

    candidate: str
    references: tuple[str, ...]
    language: str
    context: str | None = None
    metrics: tuple[str, ...] = ALL_METRICS
    weights: tuple[float, float, float, float] = DEFAULT_WEIGHTS
    explain: bool = True


@dataclass
class ScoreReport:
    """Everything known about one scored candidate; ``errors`` says what could not be computed."""

    language: str
    codebleu: CodeBleuResult | None = None
    codebertscore: Any = None
    errors: list[str] = field(default_factory=list)

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        """Plain JSON-ready data (``codebleu`` keeps the package's five keys plus details)."""
        out: dict[str, Any] = {"language": self.language}
        if self.codebleu is not None:
            out["codebleu"] = self.codebleu.as_package_dict()
            out["codebleu_details"] = {
                "rule": self.codebleu.rule,
                "signature": self.codebleu.signature,
                "components": [asdict(c) for c in self.codebleu.components],
            }
            if explain:
                out["codebleu_details"]["explanations"] = [asdict(e) for e in self.codebleu.explanations]
        if self.codebertscore is not None:
            bert = self.codebertscore
            out["codebertscore"] = bert.to_dict() if hasattr(bert, "to_dict") else (
                asdict(bert) if is_dataclass(bert) else bert)
        if self.errors:
            out["errors"] = list(self.errors)
        return out
