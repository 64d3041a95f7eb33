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
                           requests[i].context, requests[i].live) for i in indices]
        try:
            results = scorer.score_batch(pairs)  # type: ignore[attr-defined]
        except Exception as error:  # noqa: BLE001
            log.warning("CodeBERTScore failed: %s: %s", type(error).__name__, error)
            for i in indices:
                reports[i].errors.append(f"codebertscore: {type(error).__name__}: {error}")
            continue
        for i, result in zip(indices, results):
            reports[i].codebertscore = result
