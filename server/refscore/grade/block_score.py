"""Score the items of one block through the shared pipeline: the same stages on every engine.

Every engine builds the same ``ScoreRequest`` (``settings.request_for``) and the stages of
``scoring.pipeline`` make each item's report once, CrystalBLEU (the corpus stage, against the
run's ``CorpusStatistics``) included; rows come from ``rows.result_row``. The in-process engine
calls ``Scorer.score_many(requests, statistics)`` on batches of ``settings.scoring_batch()`` scorable
items (``score_batches``; the daemon's client runs the corpus stage itself). The Ray engine
splits the same stages in two: the CPU stage on CPU tasks (``cpu_stage``), the rest
(``pipeline.run_stages`` given those results) in the model's actor (``bert_stage``). Then every
engine adds what is the grader's own in the same order (``annotate``): the submission's warnings
and why it lacks the combined number, rendered from the report's checks (``scoring.checks``),
per-function scores. Between stages a ``Staged`` travels as JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator, Sequence

from ..bidi import bidi_warning
from ..scoring.checks import Checks
from ..scoring.pairing import FunctionPair
from ..scoring.parts import CpuScores
from ..scoring.per_function import pair_record, score_functions
from ..scoring.pipeline import CorpusStatistics, checks_of, cpu_stage as pipeline_cpu_stage, run_stages
from ..scoring.report import ScoreReport
from ..scoring.scorer import LocalScorer, Scorer
from .blocks import item_from_json
from .items import GradeItem
from .plan import BlockWork
from .rows import NO_REFSCORE, NOT_PARSING, GradeResult, result_row
from .settings import request_for


@dataclass
class Staged:
    """One item of a block and what scoring made of it so far."""

    offset: int
    item: GradeItem
    report: ScoreReport | None = None
    cpu: CpuScores | None = None  # between Ray's stages: the CPU stage's results
    warnings: list[str] = field(default_factory=list)
    functions: list[dict[str, Any]] | None = None  # per-function records (``pair_record``)
    missing: str | None = None  # why a scored pair lacks the combined number (``Checks.combined``)
    parse_error: str | None = None  # the submission does not parse (``Checks.parse_error``)

    def to_json(self, explain: bool = False) -> str:
        report = self.report.to_dict(explain=explain) if self.report is not None else None
        cpu = self.cpu.to_dict(self.item.language or "") if self.cpu is not None else None
        return json.dumps({"offset": self.offset, "item": asdict(self.item), "report": report, "cpu": cpu,
                           "warnings": self.warnings, "functions": self.functions, "missing": self.missing,
                           "parse_error": self.parse_error},
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "Staged":
        data = json.loads(text)
        item = item_from_json(json.dumps(data["item"]).encode("utf-8"))
        report = ScoreReport.from_dict(data["report"]) if data["report"] is not None else None
        cpu = CpuScores.from_dict(data["cpu"]) if data.get("cpu") is not None else None
        return cls(int(data["offset"]), item, report, cpu, list(data["warnings"]), data.get("functions"),
                   data.get("missing"), data.get("parse_error"))

    def row(self) -> dict[str, Any]:
        """The item's report row."""
        row = result_row(GradeResult(self.item, self.report, warnings=list(self.warnings),
                                     parse_error=self.parse_error))
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


def statistics_of(work: BlockWork) -> CorpusStatistics | None:
    """The run's corpus statistics (with CrystalBLEU), in the pipeline's terms."""
    return CorpusStatistics(work.corpus) if work.corpus is not None else None


#: The warning of a row whose every reference is empty (its scores are 0 for want of a reference).
EMPTY_REFERENCE = "the reference is empty: there is nothing to compare with, so it scores 0"


def syntax_warning(checks: Checks) -> str | None:
    """``syntax error near line N`` when the parser had to recover, else None."""
    line = checks.syntax_error
    return None if line is None else f"syntax error near line {line} (scored with the parser's error recovery)"


def not_parsing_warning(error: str, combined: bool = True) -> str:
    """The warning of a submission that does not parse although a reference does
    (``Checks.parse_error``): its numbers are kept (the combined number's fit reads parse errors
    as one input among many, so a missing colon barely lowers it) and said to be for code that
    cannot run as written; ``combined``: it has the combined RefScore number, named then.
    Such a submission never passes ``--fail-under`` unless ``--allow-syntax-errors``."""
    return (f"{NOT_PARSING}{error}; its scores{', the combined RefScore too,' if combined else ''} are for the "
            "code the parser recovered, not a sign that it runs")


def submission_warnings(checks: Checks, combined: bool = True) -> list[str]:
    """Every warning about a scored submission, rendered from its report's checks: bidi controls
    (Trojan Source: the code may display differently from how it runs), syntax errors
    (tree-sitter recovers; said as ``not_parsing_warning`` when a reference parses;
    ``combined``: it has the combined number)."""
    error = checks.parse_error
    syntax = not_parsing_warning(error, combined) if error else syntax_warning(checks)
    return [w for w in (bidi_warning(checks.bidi), syntax) if w]


def annotate(staged: Sequence[Staged], work: BlockWork, scorer: Scorer) -> None:
    """The grader's own last step on every engine, for each scored item: the submission's
    warnings and why it lacks the combined number, as its report's checks say, per-function
    scores (the report stays as the pipeline finished it)."""
    settings = work.settings
    for s in staged:
        item = s.item
        if s.report is None or item.candidate is None or not item.language:
            continue
        checks = checks_of(request_for(item, settings), s.report)
        s.missing = checks.combined
        s.warnings = submission_warnings(checks, combined=s.report.refscore is not None)
        if not any(r.strip() for r in item.references):
            s.warnings.append(EMPTY_REFERENCE)
        if s.missing:  # every report says why the column is empty (CSV/JSON warnings, HTML notes)
            s.warnings.append(f"{NO_REFSCORE}{s.missing}")
        s.parse_error = checks.parse_error
        if settings.per_function:
            s.functions = _functions(s, work, scorer)


def _functions(s: Staged, work: BlockWork, scorer: Scorer) -> list[dict[str, Any]]:
    try:
        pairs: list[FunctionPair] = score_functions(request_for(s.item, work.settings), scorer)
    except Exception as error:  # noqa: BLE001 - the submission's own scores still stand
        s.warnings.append(f"per-function scores failed: {type(error).__name__}: {error}")
        return []
    return [pair_record(p, work.settings.codebleu_rule) for p in pairs]


def score_batches(items: Sequence[tuple[int, GradeItem]], work: BlockWork,
                  scorer: Scorer) -> Iterator[list[Staged]]:
    """The in-process engine: the block's items that cannot be scored (their rows say why), then
    each batch of scorable items, scored (every stage) and annotated."""
    staged = [Staged(offset, item) for offset, item in items]
    unscorable = [s for s in staged if not s.item.scorable]
    if unscorable:
        yield unscorable
    statistics = statistics_of(work)
    for batch in _batches(staged, work.settings.scoring_batch(isinstance(scorer, LocalScorer))):
        requests = [request_for(s.item, work.settings) for s in batch]
        # a Scorer written against the one-argument protocol still grades runs without CrystalBLEU
        reports = scorer.score_many(requests) if statistics is None else scorer.score_many(requests, statistics)
        for s, report in zip(batch, reports):
            s.report = report
        annotate(batch, work, scorer)
        yield batch


def cpu_stage(items: Sequence[tuple[int, GradeItem]], work: BlockWork, scorer: LocalScorer,
              final: bool) -> list[Staged]:
    """Ray stage one: the CPU stage of every scorable item; ``final`` (no CodeBERTScore asked
    for): every stage, the reports finished and annotated here."""
    staged = [Staged(offset, item) for offset, item in items]
    statistics = statistics_of(work)
    for batch in _batches(staged, work.settings.scoring_batch(encoder_here=False)):
        requests = [request_for(s.item, work.settings) for s in batch]
        if final:
            for s, report in zip(batch, run_stages(requests, scorer.defaults, statistics)):
                s.report = report
        else:
            for s, scores in zip(batch, pipeline_cpu_stage(requests)):
                s.cpu = scores
    if final:
        annotate(staged, work, scorer)
    return staged


def bert_stage(staged: Sequence[Staged], work: BlockWork, scorer: LocalScorer) -> None:
    """Ray stage two: the remaining stages (CodeBERTScore batched, CrystalBLEU, finish) for every
    scorable item on its CPU stage's results, then ``annotate``."""
    statistics = statistics_of(work)
    for batch in _batches(staged, work.settings.scoring_batch()):
        assert all(s.cpu is not None for s in batch), "stage one runs the CPU stage of every scorable item"
        requests = [request_for(s.item, work.settings) for s in batch]
        for s, report in zip(batch, run_stages(requests, scorer.defaults, statistics, cpu=[s.cpu for s in batch])):
            s.report, s.cpu = report, None
    annotate(staged, work, scorer)
