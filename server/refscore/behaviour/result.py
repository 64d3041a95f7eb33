"""The behaviour stage's typed result: how often the candidate did what the reference did."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

#: How many disagreements a result keeps (the first ones, in input order).
KEPT_DISAGREEMENTS = 5


@dataclass(frozen=True)
class Disagreement:
    """One input on which the candidate and the reference differ."""

    input: str  # the call (``add(1, -2)``) or, in program mode, the standard input
    expected: str  # what the reference gave, as a reader sees it (``3``, ``raises ValueError``)
    actual: str  # what the candidate gave
    reason: str  # "different result", "raised", "timeout", "missing function", ...
    function: str | None = None  # None in program mode

    def line(self, show: Callable[[str], str] = str) -> str:
        """``differs on clamp(5, 0, 3): expected 3, got 2``, with the reason when it says more than
        the values (``(timeout)``); ``show`` writes each part (a terminal's or a report's escaping)."""
        expected = self.expected
        if self.function is not None and expected.startswith("raises "):  # ``expected it to raise ValueError: bad``
            expected = "it to raise " + expected[len("raises "):]
        line = f"differs on {show(self.input)}: expected {show(expected)}, got {show(self.actual)}"
        plain = ("different result", "did not raise", self.actual)
        return line + (f" ({show(self.reason)})" if self.reason not in plain else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"function": self.function, "input": self.input, "expected": self.expected, "actual": self.actual,
                "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Disagreement":
        """Inverse of ``to_dict``."""
        return cls(str(data["input"]), str(data["expected"]), str(data["actual"]), str(data["reason"]),
                   data.get("function"))


@dataclass(frozen=True)
class FunctionAgreement:
    """Agreement of one function (function mode) or of the whole program (program mode)."""

    name: str
    inputs: int
    agreed: int

    @property
    def agreement(self) -> float:
        """Share of inputs agreed on (0 when there were none)."""
        return self.agreed / self.inputs if self.inputs else 0.0


@dataclass(frozen=True)
class BehaviourResult:
    """Agreement in 0..1 over the inputs run, per function, the first disagreements; or, when
    behaviour did not run, ``not_run`` says why in one line (and ``agreement`` is None)."""

    agreement: float | None
    inputs: int = 0
    agreed: int = 0
    functions: tuple[FunctionAgreement, ...] = ()
    disagreements: tuple[Disagreement, ...] = ()
    not_run: str | None = None
    mode: str = "function"  # "function" or "program"
    signature: str = ""

    @property
    def score(self) -> float | None:
        """The agreement (the name every score shares)."""
        return self.agreement

    @property
    def ran(self) -> bool:
        """Whether candidate and reference were run."""
        return self.agreement is not None

    @property
    def agrees_everywhere(self) -> bool:
        """Whether the candidate agreed with the reference on every input run."""
        return self.ran and self.agreed == self.inputs

    @classmethod
    def skipped(cls, why: str, signature: str = "") -> "BehaviourResult":
        """A result that says why behaviour did not run."""
        return cls(None, not_run=why, signature=signature)

    def summary(self) -> str:
        """One line: ``agrees on 38/40 inputs (0.950)`` or ``not run: <why>``."""
        if not self.ran:
            return f"not run: {self.not_run}"
        return f"agrees on {self.agreed}/{self.inputs} inputs ({self.agreement:.3f})"

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        out: dict[str, Any] = {"agreement": self.agreement, "inputs": self.inputs, "agreed": self.agreed,
                               "mode": self.mode, "signature": self.signature}
        if self.functions:
            out["functions"] = [{"name": f.name, "inputs": f.inputs, "agreed": f.agreed} for f in self.functions]
        if self.disagreements:
            out["disagreements"] = [d.to_dict() for d in self.disagreements]
        if self.not_run is not None:
            out["not_run"] = self.not_run
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BehaviourResult":
        """Inverse of ``to_dict``."""
        agreement = data.get("agreement")
        return cls(None if agreement is None else float(agreement), int(data.get("inputs", 0)),
                   int(data.get("agreed", 0)),
                   tuple(FunctionAgreement(str(f["name"]), int(f["inputs"]), int(f["agreed"]))
                         for f in data.get("functions", ())),
                   tuple(Disagreement.from_dict(d) for d in data.get("disagreements", ())),
                   data.get("not_run"), str(data.get("mode", "function")), str(data.get("signature", "")))
