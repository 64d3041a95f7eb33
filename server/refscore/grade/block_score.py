"""Score the items of one block through the shared pipeline: the same stages on every engine.

Every engine builds the same ``ScoreRequest`` (``settings.request_for``) and asks a Scorer; rows
come from ``rows.result_row``. The in-process engine calls ``Scorer.score_many`` on batches of
``settings.batch_size`` scorable items (``score_batches``). The Ray engine splits the same work
in two stages of ``LocalScorer``: ``score_many`` of the requests less CodeBERTScore on CPU tasks
(``cpu_stage``), then ``add_codebertscore`` per batch in the model's actor (``bert_stage``;
``LocalScorer.score_many`` ends with exactly that call). Both then ``finish`` each item in the
same order: CrystalBLEU against the run's corpus, the submission's warnings, per-function scores.
Between stages a ``Staged`` travels as JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Iterator, Sequence

from ..scoring.headline import missing_reason
from ..scoring.pairing import FunctionPair
from ..scoring.per_function import pair_record, score_functions
from ..scoring.report import ScoreReport
from ..scoring.scorer import LocalScorer, Scorer
from .blocks import item_from_json
from .checks import submission_warnings
from .crystal import with_crystalbleu
from .items import GradeItem
from .plan import BlockWork
from .rows import GradeResult, result_row
from .settings import request_for


@dataclass
class Staged:
    """One item of a block and what scoring made of it so far."""

    offset: int
    item: GradeItem
    report: ScoreReport | None = None
    warnings: list[str] = field(default_factory=list)
    functions: list[dict[str, Any]] | None = None  # per-function records (``pair_record``)
    missing: str | None = None  # why a scored pair lacks the combined number (``headline.missing_reason``)

    def to_json(self, explain: bool = False) -> str:
        report = self.report.to_dict(explain=explain) if self.report is not None else None
        return json.dumps({"offset": self.offset, "item": asdict(self.item), "report": report,
                           "warnings": self.warnings, "functions": self.functions, "missing": self.missing},
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "Staged":
        data = json.loads(text)
        item = item_from_json(json.dumps(data["item"]).encode("utf-8"))
        report = ScoreReport.from_dict(data["report"]) if data["report"] is not None else None
        return cls(int(data["offset"]), item, report, list(data["warnings"]), data.get("functions"),
                   data.get("missing"))

    def row(self) -> dict[str, Any]:
        """The item's report row."""
        row = result_row(GradeResult(self.item, self.report, warnings=list(self.warnings)))
        if self.functions is not None:  # JSON and JSONL only (the CSV and Parquet keep fixed columns)
            row["functions"] = self.functions
        if self.item.cells:  # a notebook: where each code cell's lines are in the scored text (JSON, JSONL)
            row["cells"] = [{"cell": number, "first_line": first + 1, "lines": count}
                            for number, first, count in self.item.cells]
        return row

    def entry(self, detail: bool) -> tuple[int, dict[str, Any], dict[str, Any] | None, dict[str, Any]]:
        """(offset, row, detail, meta) as a part keeps it; ``detail``: the texts and full report
        for the detailed HTML page; ``meta``: whether it was scored, and why it lacks the
        combined number (for the run's one note)."""
        meta = {"scored": self.report is not None, "missing": self.missing}
        if not detail:
            return self.offset, self.row(), None, meta
        report = self.report.to_dict(explain=True) if self.report is not None else None
        return self.offset, self.row(), {"item": asdict(self.item), "report": report}, meta


def _batches(staged: Sequence[Staged], size: int) -> list[list[Staged]]:
    todo = [s for s in staged if s.item.scorable]
    size = max(1, size)
    return [todo[i:i + size] for i in range(0, len(todo), size)]


def finish(staged: Sequence[Staged], work: BlockWork, scorer: Scorer) -> None:
    """The last stage of every engine, for each scored item: CrystalBLEU, warnings, functions."""
    settings = work.settings
    for s in staged:
        item = s.item
        if s.report is None or item.candidate is None or not item.language:
            continue
        if work.corpus is not None:
            s.report = with_crystalbleu(s.report, item, work.corpus)
        s.missing = missing_reason(request_for(item, settings), s.report)
        s.warnings = submission_warnings(item.candidate, item.language)
        if settings.per_function:
            s.functions = _functions(s, work, scorer)


def _functions(s: Staged, work: BlockWork, scorer: Scorer) -> list[dict[str, Any]]:
    try:
        pairs: list[FunctionPair] = score_functions(request_for(s.item, work.settings), scorer)
    except Exception as error:  # noqa: BLE001 - the submission's own scores still stand
        s.warnings.append(f"per-function scores failed: {type(error).__name__}: {error}")
        return []
    return [pair_record(p) for p in pairs]


def score_batches(items: Sequence[tuple[int, GradeItem]], work: BlockWork,
                  scorer: Scorer) -> Iterator[list[Staged]]:
    """The in-process engine: the block's items that cannot be scored (their rows say why), then
    each batch of scorable items, scored and finished."""
    staged = [Staged(offset, item) for offset, item in items]
    unscorable = [s for s in staged if not s.item.scorable]
    if unscorable:
        yield unscorable
    for batch in _batches(staged, work.settings.batch_size):
        reports = scorer.score_many([request_for(s.item, work.settings) for s in batch])
        for s, report in zip(batch, reports):
            s.report = report
        finish(batch, work, scorer)
        yield batch


def cpu_stage(items: Sequence[tuple[int, GradeItem]], work: BlockWork, scorer: LocalScorer,
              final: bool) -> list[Staged]:
    """Ray stage one: every metric but CodeBERTScore for every scorable item (a report even when
    nothing else is asked for, as ``score_many`` makes one); ``final``: also ``finish``."""
    staged = [Staged(offset, item) for offset, item in items]
    cpu_metrics = tuple(m for m in work.settings.metrics if m != "codebertscore")
    for batch in _batches(staged, work.settings.batch_size):
        requests = [replace(request_for(s.item, work.settings), metrics=cpu_metrics) for s in batch]
        for s, report in zip(batch, scorer.score_many(requests)):
            s.report = report
    if final:
        finish(staged, work, scorer)
    return staged


def bert_stage(staged: Sequence[Staged], work: BlockWork, scorer: LocalScorer) -> None:
    """Ray stage two: CodeBERTScore for every scorable item, one ``add_codebertscore`` per batch,
    the combined number, then ``finish``."""
    from ..scoring.headline import add_refscore

    for batch in _batches(staged, work.settings.batch_size):
        reports = [s.report for s in batch]
        assert all(r is not None for r in reports), "stage one makes a report for every scorable item"
        requests = [request_for(s.item, work.settings) for s in batch]
        scorer.add_codebertscore(requests, reports)  # type: ignore[arg-type]
        for request, report in zip(requests, reports):  # the combined headline, as score_many adds it
            add_refscore(request, report)  # type: ignore[arg-type]
    finish(staged, work, scorer)
