"""chrF and TSED for a request that asks for them, in the process that asks.

They are cheap CPU metrics of the texts alone, so they are computed where the request is made
(``LocalScorer`` and, for daemon-scored requests, ``DaemonOrLocal``); the daemon's protocol stays
CodeBLEU and CodeBERTScore. A metric that cannot be computed (its optional package missing, a
text that does not parse) adds one line to ``report.errors``.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Sequence

from .pragma import without_pragmas
from .report import ALL_METRICS, TEXT_METRICS, ScoreReport, ScoreRequest

log = logging.getLogger(__name__)


def wants_text_metrics(request: ScoreRequest) -> bool:
    """Whether ``request`` names chrF or TSED."""
    return any(m in TEXT_METRICS for m in request.metrics)


def without_text_metrics(request: ScoreRequest) -> ScoreRequest:
    """``request`` for an engine that knows only CodeBLEU and CodeBERTScore."""
    if not wants_text_metrics(request):
        return request
    return replace(request, metrics=tuple(m for m in request.metrics if m in ALL_METRICS))


def add_text_metrics(request: ScoreRequest, report: ScoreReport) -> ScoreReport:
    """Fill ``report.chrf`` / ``report.tsed`` where ``request`` asks and they are missing."""
    todo = [m for m in TEXT_METRICS if m in request.metrics and getattr(report, m) is None]
    if not todo:
        return report
    candidate = without_pragmas(request.candidate, request.language).text
    for name in todo:
        try:
            if name == "chrf":
                from ..metrics.chrf import score_chrf

                report.chrf = score_chrf(candidate, request.references)
            else:
                from ..metrics.tsed import score_tsed

                report.tsed = score_tsed(candidate, request.references, request.language)
        except (ImportError, ValueError, RecursionError) as error:
            log.info("%s not computed: %s", name, error)
            report.errors.append(f"{name}: {error}")
    return report


def fill_text_metrics(requests: Sequence[ScoreRequest], reports: Sequence[ScoreReport]) -> list[ScoreReport]:
    """``add_text_metrics`` over paired requests and reports."""
    return [add_text_metrics(q, r) for q, r in zip(requests, reports)]
