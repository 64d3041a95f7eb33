"""CodeBERTScore for the shared pipeline: each request scored with the scorer its settings name
(``embed.models.scorer_for``), requests that share one scored in one batch."""

from __future__ import annotations

import logging
from typing import Sequence

from .report import ScoreReport, ScoreRequest

log = logging.getLogger(__name__)


def score_requests(requests: Sequence[ScoreRequest], reports: Sequence[ScoreReport]) -> None:
    """Fill ``report.codebertscore`` for each request (or say in ``report.errors`` why not)."""
    from ..embed.bertscorer import ScorePair
    from ..embed.models import scorer_for

    groups: dict[int, tuple[object, list[int]]] = {}
    for index, request in enumerate(requests):
        try:
            scorer = scorer_for(request.language, request.model, request.layer, request.device, request.idf,
                                request.backend)
        except Exception as error:  # noqa: BLE001 - a model that cannot load is reported, CodeBLEU goes on
            reports[index].errors.append(f"codebertscore unavailable: {error}")
            continue
        groups.setdefault(id(scorer), (scorer, []))[1].append(index)
    for scorer, indices in groups.values():
        pairs = [ScorePair(requests[i].candidate, list(requests[i].references), requests[i].language,
                           requests[i].context, requests[i].live, needs_alignments(requests[i]))
                 for i in indices]
        try:
            results = scorer.score_batch(pairs)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - one bad pair (a text over the limit) must not cost the others
            if len(pairs) == 1:
                _failed(reports[indices[0]])
                continue
            results = [_alone(scorer, pair, reports[i]) for i, pair in zip(indices, pairs)]
        for i, result in zip(indices, results):
            if result is not None:
                reports[i].codebertscore = result


def needs_alignments(request: ScoreRequest) -> bool:
    """Whether a request's CodeBERTScore needs token alignments: it asks for the detail
    (``explain``: --explain, the editor, the HTML report), or the combined RefScore number will be
    computed for it from token similarities (``scoring.headline``). Otherwise none are built."""
    if request.explain:
        return True
    if "codebleu" not in request.metrics or request.codebleu_rule != "native":
        return False
    from .headline import needs_token_stats

    return needs_token_stats()


def _alone(scorer: object, pair: object, report: ScoreReport) -> object | None:
    """One pair scored on its own after its batch failed; None (and the error) if it fails too."""
    try:
        return scorer.score_batch([pair])[0]  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        _failed(report)
        return None


def _failed(report: ScoreReport) -> None:
    import sys

    error = sys.exc_info()[1]
    log.info("CodeBERTScore failed: %s: %s", type(error).__name__, error)  # the report says it; the daemon logs it
    report.errors.append(f"codebertscore: {type(error).__name__}: {error}")
