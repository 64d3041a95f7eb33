"""The in-process Scorer: ``score(request) -> ScoreReport``, the interface the daemon also serves."""

from __future__ import annotations

import logging
from typing import Protocol, Sequence

from .codebleu import corpus_codebleu_compat, score_codebleu
from .report import ScoreReport, ScoreRequest

log = logging.getLogger(__name__)


class Scorer(Protocol):
    """Anything that turns requests into reports (in-process, or the daemon's client)."""

    def score(self, request: ScoreRequest) -> ScoreReport: ...

    def score_many(self, requests: Sequence[ScoreRequest]) -> list[ScoreReport]: ...


class LocalScorer:
    """Scores in this process: CodeBLEU on the CPU, CodeBERTScore through the embed engine."""

    def __init__(self, model: str | None = None, layer: int | None = None, device: str | None = None,
                 idf: str | None = None) -> None:
        self.model, self.layer, self.device, self.idf = model, layer, device, idf

    def score(self, request: ScoreRequest) -> ScoreReport:
        return self.score_many([request])[0]

    def score_many(self, requests: Sequence[ScoreRequest]) -> list[ScoreReport]:
        reports = [self.score_codebleu(request) for request in requests]
        wants_bert = [i for i, r in enumerate(requests) if "codebertscore" in r.metrics]
        if wants_bert:
            self.add_codebertscore([requests[i] for i in wants_bert], [reports[i] for i in wants_bert])
        return reports

    def score_codebleu(self, request: ScoreRequest) -> ScoreReport:
        """A report holding the CodeBLEU part of ``request`` (or the error that prevented it)."""
        report = ScoreReport(language=request.language)
        if "codebleu" in request.metrics:
            try:
                if request.codebleu_rule == "compat":  # the package's numbers, as calc_codebleu gives them
                    report.codebleu = corpus_codebleu_compat([list(request.references)], [request.candidate],
                                                             request.language, request.weights)
                else:
                    report.codebleu = score_codebleu(request.references, request.candidate, request.language,
                                                     request.weights, explain=request.explain)
            except Exception as error:  # noqa: BLE001 - one failing request reports, the rest go on
                log.exception("CodeBLEU failed")
                report.errors.append(f"codebleu: {type(error).__name__}: {error}")
        return report

    def add_codebertscore(self, requests: Sequence[ScoreRequest], reports: Sequence[ScoreReport]) -> None:
        """Fill ``codebertscore`` of each report, all requests in one batched call (the daemon
        batches across clients through this)."""
        try:
            from .bert import score_requests
        except ImportError as error:
            for report in reports:
                report.errors.append(f"codebertscore unavailable: {error}")
            return
        score_requests(requests, reports, model=self.model, layer=self.layer, device=self.device, idf=self.idf)
