"""One flat row per submission (the CSV and JSON columns), read from ScoreReports only."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..metrics.codebleu import COMPONENTS
from ..scoring.report import ScoreReport
from ..vocabulary import COMPONENT_LABELS
from .items import GradeItem
from .records import extra_columns

INTERRUPTED = "not scored: the run was interrupted (rerun to finish; scored items are kept)"

BERT_FIELDS = ("precision", "recall", "f1", "f3")
#: Numeric columns, in report order; each gets a histogram in the HTML report.
#: Scores computed only when --metrics names them (chrF, TSED, CrystalBLEU).
TEXT_COLUMNS = ("chrf", "tsed", "crystalbleu")
#: ``refscore``: the combined RefScore number, when the shipped combination earned it.
SCORE_COLUMNS = ("refscore", "codebleu", *COMPONENTS, *(f"codebertscore_{f}" for f in BERT_FIELDS),
                 *TEXT_COLUMNS)
#: Who handed the submission in (classroom exports, ``classroom.model``); empty otherwise.
STUDENT_COLUMNS = ("student", "student_id", "late")
COLUMNS = ("id", "problem", "language", "source", *STUDENT_COLUMNS, *SCORE_COLUMNS, "codebertscore_model",
           "codebertscore_layer", "codebleu_signature", "codebertscore_signature",
           *(f"{c}_signature" for c in ("refscore", *TEXT_COLUMNS)), "cached", "warnings", "errors",
           "similar_to")
#: The columns a report has only when ``--metrics`` names their metric (``columns.report_columns``).
OPTIONAL_METRIC_COLUMNS = {name: (name, f"{name}_signature") for name in TEXT_COLUMNS}
#: ``--similarity``'s column (the flagged partners of a submission): only in runs that compare students.
SIMILARITY_COLUMN = "similar_to"
#: Fields of JSON and JSONL rows only (``--per-function``'s records): no CSV or Parquet column.
JSON_ONLY_COLUMNS = ("functions",)
LABELS = {
    "refscore": "RefScore",
    "codebleu": "CodeBLEU", **COMPONENT_LABELS, "codebertscore_precision": "BERT P",
    "codebertscore_recall": "BERT R", "codebertscore_f1": "BERT F1", "codebertscore_f3": "BERT F3",
    "chrf": "chrF", "tsed": "TSED", "crystalbleu": "CrystalBLEU",
}


@dataclass
class GradeResult:
    """One item and what became of it."""

    item: GradeItem
    report: ScoreReport | None = None
    cached: bool = False
    warnings: list[str] = field(default_factory=list)
    status_note: str | None = None  # e.g. interrupted before scoring

    @property
    def errors(self) -> list[str]:
        """Every error: reading the input, scoring it, or not getting to it."""
        out = [self.item.error] if self.item.error else []
        if self.report is not None:
            out.extend(self.report.errors)
        if self.status_note:
            out.append(self.status_note)
        return out


def result_row(result: GradeResult) -> dict[str, Any]:
    """The row for one result; scores are None where not computed."""
    item, report = result.item, result.report
    row: dict[str, Any] = {key: None for key in COLUMNS}
    row.update(id=item.input_id if item.input_id is not None else item.id, problem=item.problem,
               language=item.language, source=item.source,
               student=item.student, student_id=item.student_id, late=item.late,
               cached=result.cached, warnings=list(result.warnings), errors=result.errors)
    if report is not None and report.codebleu is not None:
        row["codebleu"] = _number(report.codebleu.score)
        row["codebleu_signature"] = report.codebleu.signature
        for component in report.codebleu.components:
            row[component.name] = _number(component.score)
    bert = report.codebertscore if report is not None else None
    if bert is not None:
        for name in BERT_FIELDS:
            row[f"codebertscore_{name}"] = _number(getattr(bert, name))
        row.update(codebertscore_model=bert.model, codebertscore_layer=bert.layer,
                   codebertscore_signature=bert.signature)
    for name in ("refscore", *TEXT_COLUMNS):
        value = getattr(report, name, None) if report is not None else None
        if value is not None:
            row[name] = _number(value.score)
            row[f"{name}_signature"] = value.signature
    for name, column in extra_columns(list(item.extra), (*COLUMNS, *JSON_ONLY_COLUMNS)).items():
        row[column] = item.extra[name]
    return row


def _number(value: Any) -> float | None:
    """A finite float, or None (NaN and missing values are not scores)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def threshold_failures(rows: Sequence[dict[str, Any]], column: str, threshold: float) -> list[dict[str, Any]]:
    """Rows below ``threshold`` on ``column``; a row without that score fails too."""
    return [r for r in rows if not _finite(r.get(column)) or r[column] < threshold]
