"""Score one block of items through the shared pipeline, exactly as ``run_grading`` does.

Every engine builds the same ``ScoreRequest`` (``runner.request_for``) and asks a Scorer; rows
come from ``rows.result_row``. The in-process engine calls ``Scorer.score_many`` on batches of
``settings.batch_size`` scorable items (the same calls as ``run_grading``). The Ray engine splits
the same work in two stages of ``LocalScorer``: ``score_many`` of the requests less CodeBERTScore
on CPU tasks (CodeBLEU and any other model-free metric), then ``add_codebertscore`` per batch in
the model's actor (``LocalScorer.score_many`` ends with exactly that call). Between stages a
``Staged`` travels as JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Sequence

from ..scoring.report import ScoreReport
from ..scoring.scorer import LocalScorer, Scorer
from .checks import submission_warnings
from .items import GradeItem
from .rows import result_row
from .runner import GradeResult, GradeSettings, request_for


@dataclass
class Staged:
    """One item of a block and what scoring made of it so far."""

    offset: int
    item: GradeItem
    report: ScoreReport | None = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        report = self.report.to_dict(explain=False) if self.report is not None else None
        return json.dumps({"offset": self.offset, "item": asdict(self.item), "report": report,
                           "warnings": self.warnings}, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "Staged":
        data = json.loads(text)
        item = dict(data["item"])
        item["references"] = tuple(item["references"])
        item["reference_names"] = tuple(item["reference_names"])
        report = ScoreReport.from_dict(data["report"]) if data["report"] is not None else None
        return cls(int(data["offset"]), GradeItem(**item), report, list(data["warnings"]))

    def row(self) -> dict[str, Any]:
        """The item's report row (the same columns and values as the in-memory grader's)."""
        return result_row(GradeResult(self.item, self.report, warnings=list(self.warnings)))


def _finish(staged: Staged) -> None:
    """Warnings about a scored submission, as ``run_grading`` adds them."""
    item = staged.item
    if staged.report is not None and item.candidate is not None and item.language:
        staged.warnings = submission_warnings(item.candidate, item.language)


def _batches(staged: Sequence[Staged], size: int) -> list[list[Staged]]:
    todo = [s for s in staged if s.item.scorable]
    size = max(1, size)
    return [todo[i:i + size] for i in range(0, len(todo), size)]


def score_block(items: Sequence[tuple[int, GradeItem]], settings: GradeSettings, scorer: Scorer) -> list[Staged]:
    """Every item scored in one process: ``score_many`` per batch of scorable items."""
    staged = [Staged(offset, item) for offset, item in items]
    for batch in _batches(staged, settings.batch_size):
        reports = scorer.score_many([request_for(s.item, settings) for s in batch])
        for s, report in zip(batch, reports):
            s.report = report
    for s in staged:
        _finish(s)
    return staged


def cpu_stage(items: Sequence[tuple[int, GradeItem]], settings: GradeSettings,
              scorer: LocalScorer) -> list[Staged]:
    """Stage one: every metric but CodeBERTScore for every scorable item (a report even when
    nothing else is asked for, as ``score_many`` makes one) and its warnings."""
    staged = [Staged(offset, item) for offset, item in items]
    cpu_metrics = tuple(m for m in settings.metrics if m != "codebertscore")
    for batch in _batches(staged, settings.batch_size):
        requests = [replace(request_for(s.item, settings), metrics=cpu_metrics) for s in batch]
        for s, report in zip(batch, scorer.score_many(requests)):
            s.report = report
            _finish(s)
    return staged


def bert_stage(staged: Sequence[Staged], settings: GradeSettings, scorer: LocalScorer) -> None:
    """Stage two: CodeBERTScore for every scorable item, one ``add_codebertscore`` per batch."""
    if "codebertscore" not in settings.metrics:
        return
    from ..scoring.headline import add_refscore

    for batch in _batches(staged, settings.batch_size):
        reports = [s.report for s in batch]
        assert all(r is not None for r in reports), "stage one makes a report for every scorable item"
        requests = [request_for(s.item, settings) for s in batch]
        scorer.add_codebertscore(requests, reports)  # type: ignore[arg-type]
        for request, report in zip(requests, reports):  # the combined headline, as score_many adds it
            add_refscore(request, report)  # type: ignore[arg-type]


def settings_to_dict(settings: GradeSettings) -> dict[str, Any]:
    """``GradeSettings`` as plain data (to send to workers)."""
    return asdict(settings)


def settings_from_dict(data: dict[str, Any]) -> GradeSettings:
    """The inverse of ``settings_to_dict``."""
    values = dict(data)
    values["metrics"] = tuple(values["metrics"])
    values["weights"] = tuple(values["weights"])
    return GradeSettings(**values)
