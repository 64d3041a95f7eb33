"""One flat row per submission (the CSV and JSON columns), read from ScoreReports only."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..scoring.flat import flat_scores, flat_signatures
from ..scoring.report import ScoreReport
from ..vocabulary import SCORE_LABELS, SCORE_NAMES
from .behaviour_cells import BEHAVIOUR_COLUMNS, behaviour_cells
from .items import GradeItem
from .records import extra_columns

#: How a row's warning says why it lacks the combined number (``block_score.annotate`` writes it).
NO_REFSCORE = "no RefScore: "
#: How the warning of a submission that does not parse, though a reference does, starts
#: (``block_score.not_parsing_warning``; the grade book's note starts so too).
NOT_PARSING = "does not parse: "
#: The note of a row an interrupted run did not get to (``INTERRUPTED_PREFIX`` starts both kinds).
INTERRUPTED_PREFIX = "not scored: the run was interrupted"
INTERRUPTED = f"{INTERRUPTED_PREFIX} (rerun to finish; scored items are kept)"
#: The same when nothing scored outlives the run (``--no-cache``, a report on a stream only).
INTERRUPTED_NOT_KEPT = f"{INTERRUPTED_PREFIX} (nothing was kept without a cache: a rerun scores everything again)"

#: The error of a roster student's row for a problem they handed nothing in for
#: (``classroom.assign``): counted apart from the other errors in the headlines.
HANDED_NOTHING_IN = "on the roster, but handed nothing in"

#: Numeric columns, in report order; each gets a histogram in the HTML report.
#: Scores computed only when --metrics names them (chrF, TSED, CrystalBLEU).
TEXT_COLUMNS = ("chrf", "tsed", "crystalbleu")
#: ``refscore``: the combined RefScore number, when the shipped combination earned it.
SCORE_COLUMNS = SCORE_NAMES  # the one vocabulary (``vocabulary.SCORE_NAMES``)
#: Who handed the submission in (classroom exports, ``classroom.model``); empty otherwise.
STUDENT_COLUMNS = ("student", "student_id", "late")
COLUMNS = ("id", "problem", "language", "source", *STUDENT_COLUMNS, *SCORE_COLUMNS, *BEHAVIOUR_COLUMNS,
           "codebertscore_model", "codebertscore_layer", "codebertscore_reference", "codebleu_signature", "codebertscore_signature",
           *(f"{c}_signature" for c in ("refscore", *TEXT_COLUMNS, "behaviour")), "parse_error", "cached", "warnings",
           "errors", "similar_to")
#: The columns a report has only when ``--metrics`` names their metric (``columns.report_columns``):
#: behaviour's are its agreement, inputs run and agreed on, a note (``behaviour_cells``) and signature.
OPTIONAL_METRIC_COLUMNS = {**{name: (name, f"{name}_signature") for name in TEXT_COLUMNS},
                           "behaviour": ("behaviour", *BEHAVIOUR_COLUMNS, "behaviour_signature")}
#: ``--similarity``'s column (the flagged partners of a submission): only in runs that compare students.
SIMILARITY_COLUMN = "similar_to"
#: Fields of JSON and JSONL rows only (``--per-function``'s records): no CSV or Parquet column.
JSON_ONLY_COLUMNS = ("functions",)
LABELS = SCORE_LABELS


@dataclass
class GradeResult:
    """One item and what became of it."""

    item: GradeItem
    report: ScoreReport | None = None
    cached: bool = False
    warnings: list[str] = field(default_factory=list)
    status_note: str | None = None  # e.g. interrupted before scoring
    parse_error: str | None = None  # ``syntax error near line N``: it does not parse (``Checks.parse_error``)

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
               parse_error=result.parse_error, cached=result.cached, warnings=list(result.warnings),
               errors=result.errors)
    row.update(flat_scores(report))
    row.update(flat_signatures(report))
    row.update(behaviour_cells(report.behaviour if report is not None else None))
    bert = report.codebertscore if report is not None else None
    if bert is not None:
        row.update(codebertscore_model=bert.model, codebertscore_layer=bert.layer,
                   codebertscore_reference=bert.reference_index)
    for name, column in extra_columns(list(item.extra), (*COLUMNS, *JSON_ONLY_COLUMNS)).items():
        row[column] = item.extra[name]
    return row


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def threshold_value(row: dict[str, Any], column: str, fallback: str | None = None) -> tuple[str, float | None]:
    """(column read, value) of ``row`` for a threshold on ``column``: the combined RefScore number
    where a scored row has it, else (its warnings say why it lacks the number: a context, another
    model) ``fallback``'s value; another metric's error (CrystalBLEU's small corpus) changes nothing."""
    value = row.get(column)
    if _finite(value):
        return column, float(value)
    if fallback and column == "refscore" and _lacks_refscore(row) and _finite(row.get(fallback)):
        return fallback, float(row[fallback])
    return column, None


def _lacks_refscore(row: dict[str, Any]) -> bool:
    """Whether a scored row says why the combined number is missing (``no RefScore: ...``)."""
    return any(str(w).startswith(NO_REFSCORE) for w in row.get("warnings") or ())


def below_threshold(row: dict[str, Any], column: str, threshold: float, fallback: str | None = None,
                    allow_syntax_errors: bool = False) -> bool:
    """Whether ``row`` fails the threshold: below it, not scored, or (unless
    ``allow_syntax_errors``) not parsing whatever its score."""
    if row.get("parse_error") and not allow_syntax_errors:
        return True
    value = threshold_value(row, column, fallback)[1]
    return value is None or value < threshold


def threshold_failures(rows: Sequence[dict[str, Any]], column: str, threshold: float, fallback: str | None = None,
                       allow_syntax_errors: bool = False) -> list[dict[str, Any]]:
    """Rows that fail ``below_threshold``; a row without that score fails too."""
    return [r for r in rows if below_threshold(r, column, threshold, fallback, allow_syntax_errors)]
