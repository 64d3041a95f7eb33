"""The ``Scorer`` interface every engine implements, and the in-process engine.

``score(request) -> ScoreReport`` is the whole contract; ``kind`` says which engine answered
("local" here, "daemon" for the daemon's client) so front ends can describe it without type
checks. ``submit`` returns a future (the daemon supersedes older work for the same ``document``;
in-process scoring finishes before returning).
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from dataclasses import replace
from typing import Protocol, Sequence

from .codebleu import corpus_codebleu_compat, score_codebleu
from .pragma import without_pragmas
from .report import ScoreReport, ScoreRequest
from .headline import add_refscore
from .text_metrics import add_text_metrics

log = logging.getLogger(__name__)


class Scorer(Protocol):
    """Anything that turns requests into reports (in-process, or the daemon's client)."""

    kind: str

    def score(self, request: ScoreRequest) -> ScoreReport: ...

    def score_many(self, requests: Sequence[ScoreRequest]) -> list[ScoreReport]: ...

    def submit(self, request: ScoreRequest, document: str | None = None) -> "Future[ScoreReport]": ...

    def close(self) -> None: ...


class LocalScorer:
    """Scores in this process: CodeBLEU on the CPU, CodeBERTScore through ``embed.models``.

    ``model``, ``layer``, ``device`` and ``idf`` are defaults for requests that leave them unset
    (the daemon passes its own start-up settings here)."""

    kind = "local"

    def __init__(self, model: str | None = None, layer: int | None = None, device: str | None = None,
                 idf: str | None = None, backend: str | None = None) -> None:
        self.model, self.layer, self.device, self.idf, self.backend = model, layer, device, idf, backend

    def score(self, request: ScoreRequest) -> ScoreReport:
        return self.score_many([request])[0]

    def submit(self, request: ScoreRequest, document: str | None = None) -> "Future[ScoreReport]":
        future: Future[ScoreReport] = Future()
        try:
            future.set_result(self.score(request))
        except BaseException as error:  # noqa: BLE001 - delivered through the future
            future.set_exception(error)
        return future

    def close(self) -> None:
        """Nothing to release (loaded models stay for the life of the process)."""

    def score_many(self, requests: Sequence[ScoreRequest]) -> list[ScoreReport]:
        reports = [self.score_codebleu(request) for request in requests]
        wants_bert = [i for i, r in enumerate(requests) if "codebertscore" in r.metrics]
        if wants_bert:
            self.add_codebertscore([requests[i] for i in wants_bert], [reports[i] for i in wants_bert])
            for i in wants_bert:
                add_refscore(requests[i], reports[i])  # the combined headline, when it applies
        return reports

    def score_codebleu(self, request: ScoreRequest) -> ScoreReport:
        """A report holding the CodeBLEU part of ``request`` (or the error that prevented it),
        and chrF / TSED when the request names them."""
        report = ScoreReport(language=request.language)
        if "codebleu" in request.metrics:
            stripped = without_pragmas(request.candidate, request.language)
            try:
                if request.codebleu_rule == "compat":  # the package's numbers, as calc_codebleu gives them
                    report.codebleu = corpus_codebleu_compat([list(request.references)], [stripped.text],
                                                             request.language, request.weights)
                else:
                    # explanations are spans of the references: nothing to map back
                    report.codebleu = score_codebleu(request.references, stripped.text, request.language,
                                                     request.weights, explain=request.explain)
            except Exception as error:  # noqa: BLE001 - one failing request reports, the rest go on
                log.exception("CodeBLEU failed")
                report.errors.append(f"codebleu: {type(error).__name__}: {error}")
        return add_text_metrics(request, report)  # chrF / TSED when asked

    def add_codebertscore(self, requests: Sequence[ScoreRequest], reports: Sequence[ScoreReport]) -> None:
        """Fill ``codebertscore`` of each report, all requests in one batched call (the daemon
        batches across clients through this)."""
        try:
            from .bert import score_requests
        except ImportError as error:
            for report in reports:
                report.errors.append(f"codebertscore unavailable: {error}")
            return
        stripped = [without_pragmas(r.candidate, r.language) for r in requests]
        prepared = [replace(self.with_defaults(r), candidate=s.text) for r, s in zip(requests, stripped)]
        score_requests(prepared, reports)
        for report, strip in zip(reports, stripped):
            if report.codebertscore is not None:
                report.codebertscore = strip.restore_bert(report.codebertscore)

    def with_defaults(self, request: ScoreRequest) -> ScoreRequest:
        """``request`` with this scorer's model, layer, device and IDF where it leaves them unset."""
        if (self.model, self.layer, self.device, self.idf, self.backend) == (None, None, None, None, None):
            return request
        return replace(request, model=request.model or self.model,
                       layer=request.layer if request.layer is not None else self.layer,
                       device=request.device or self.device, idf=request.idf or self.idf,
                       backend=request.backend or self.backend)
