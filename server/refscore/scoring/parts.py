"""What each stage of scoring hands the next (``scoring.pipeline``): frozen, typed, picklable.

A request is ``Prepared`` once; the CPU stage makes its ``CpuScores``, the model stage its
``ModelScores``, the corpus stage its ``CorpusScores``; the finish stage turns them into the one
``ScoreReport``. Each part carries the error lines of its own stage.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from ..behaviour.result import BehaviourResult
from ..metrics.chrf import ChrfScore
from ..metrics.codebertscore_result import BertScore
from ..metrics.codebleu import CodeBleuResult
from ..metrics.crystalbleu import CrystalScore
from ..metrics.tsed import TsedScore
from .pragma import Stripped
from ..settings_schema import EncoderChoice
from .report import ScoreReport, ScoreRequest


@dataclass(frozen=True)
class Prepared:
    """A request ready for the metrics: its settings, and its candidate without pragma lines."""

    request: ScoreRequest
    stripped: Stripped

    @property
    def text(self) -> str:
        """The candidate every metric reads (pragma lines removed)."""
        return self.stripped.text

    @property
    def language(self) -> str:
        return self.request.language


def with_defaults(request: ScoreRequest, defaults: EncoderChoice) -> ScoreRequest:
    """``request`` with an engine's encoder choice (the daemon's start-up ``--model``/``--layer``/
    ``--device``) where it leaves one unset."""
    encoder = request.encoder.over(defaults)
    if encoder == request.encoder:
        return request
    return replace(request, settings=replace(request.settings, encoder=encoder))


@dataclass(frozen=True)
class CpuScores:
    """The CPU metrics of one request: CodeBLEU, chrF and TSED, those it asks for."""

    codebleu: CodeBleuResult | None = None
    chrf: ChrfScore | None = None
    tsed: TsedScore | None = None
    errors: tuple[str, ...] = ()
    behaviour: BehaviourResult | None = None

    @classmethod
    def of(cls, report: ScoreReport) -> "CpuScores":
        """The CPU part of a report made without CodeBERTScore (the editor's CodeBLEU report, the
        daemon's answer), with all its error lines."""
        return cls(report.codebleu, report.chrf, report.tsed, tuple(report.errors), report.behaviour)

    def to_dict(self, language: str) -> dict[str, Any]:
        """JSON-ready form (between Ray's stages), in a report's shape: not a report."""
        return ScoreReport(language, self.codebleu, errors=self.errors, chrf=self.chrf,
                           tsed=self.tsed, behaviour=self.behaviour).to_dict(explain=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CpuScores":
        """Inverse of ``to_dict``."""
        return cls.of(ScoreReport.from_dict(data))


@dataclass(frozen=True)
class ModelScores:
    """CodeBERTScore of one request, or the line that says why there is none."""

    codebertscore: BertScore | None = None
    errors: tuple[str, ...] = ()

    @classmethod
    def of(cls, report: ScoreReport) -> "ModelScores":
        """The model part of a report another engine made for a CodeBERTScore-only request
        (the daemon's answer to the editor)."""
        return cls(report.codebertscore, tuple(report.errors))


@dataclass(frozen=True)
class CorpusScores:
    """The metrics of one request that need a whole set of texts (CrystalBLEU)."""

    crystalbleu: CrystalScore | None = None
    errors: tuple[str, ...] = ()


NO_CPU, NO_MODEL, NO_CORPUS = CpuScores(), ModelScores(), CorpusScores()


class Metrics(NamedTuple):
    """The per-metric results the combined number reads (``scoring.headline.components``)."""

    codebleu: CodeBleuResult | None
    codebertscore: BertScore | None
    chrf: ChrfScore | None
    tsed: TsedScore | None
