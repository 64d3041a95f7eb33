"""CodeBERTScore for the shared pipeline: groups requests by model and scores them in batches."""

from __future__ import annotations

import logging
import threading
from typing import Sequence

from .report import ScoreReport, ScoreRequest

log = logging.getLogger(__name__)


def _scorer_for(language: str, model: str | None, layer: int | None, device: str | None, idf: str | None):
    from ..metrics.codebertscore_scorer import get_default_scorer

    if model is None and layer is None and idf is None:
        return get_default_scorer(language, device=device)
    return _explicit_scorer(model, layer, language, device, idf)


_EXPLICIT: dict[tuple, object] = {}
_EXPLICIT_LOCK = threading.Lock()  # the daemon's lanes ask concurrently: load each model once


def _explicit_scorer(model: str | None, layer: int | None, language: str, device: str | None, idf: str | None):
    from ..metrics.codebertscore_scorer import BertScorer

    key = (model, layer, language if model is None else None, device, idf)
    with _EXPLICIT_LOCK:
        scorer = _EXPLICIT.get(key)
        if scorer is None:
            scorer = BertScorer(model=model, layer=layer, language=language, device=device, idf=idf)
            _EXPLICIT[key] = scorer
    return scorer


def score_requests(requests: Sequence[ScoreRequest], reports: Sequence[ScoreReport], *,
                   model: str | None = None, layer: int | None = None, device: str | None = None,
                   idf: str | None = None) -> None:
    """Fill ``report.codebertscore`` for each request, batching those that share a scorer."""
    groups: dict[int, tuple[object, list[int]]] = {}
    for index, request in enumerate(requests):
        try:
            scorer = _scorer_for(request.language, request.model or model,
                                 request.layer if request.layer is not None else layer, device, idf)
        except Exception as error:  # noqa: BLE001 - a model that cannot load is reported, CodeBLEU goes on
            reports[index].errors.append(f"codebertscore unavailable: {error}")
            continue
        groups.setdefault(id(scorer), (scorer, []))[1].append(index)
    from ..metrics.codebertscore_scorer import ScorePair

    for scorer, indices in groups.values():
        pairs = [ScorePair(requests[i].candidate, list(requests[i].references), requests[i].language,
                           requests[i].context) for i in indices]
        try:
            results = scorer.score_batch(pairs)
        except Exception as error:  # noqa: BLE001
            log.exception("CodeBERTScore failed")
            for i in indices:
                reports[i].errors.append(f"codebertscore: {type(error).__name__}: {error}")
            continue
        for i, result in zip(indices, results):
            reports[i].codebertscore = result
