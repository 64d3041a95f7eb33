"""The model stage's work (``pipeline.model_metrics``): each request scored with the scorer its
settings name (``embed.models.scorer_for``), requests that share one scored in one batch."""

from __future__ import annotations

import logging
import sys
from typing import Sequence

from .parts import ModelScores
from .report import ScoreRequest

log = logging.getLogger(__name__)


def score_requests(requests: Sequence[ScoreRequest]) -> list[ModelScores]:
    """CodeBERTScore of each request (texts as given), or the line that says why not."""
    from ..embed.bertscorer import ScorePair
    from ..embed.models import scorer_for

    out = [ModelScores()] * len(requests)
    groups: dict[int, tuple[object, list[int]]] = {}
    # one look-up per distinct setting in the batch: resolving a model reads the disk
    found: dict[tuple, object] = {}
    for index, request in enumerate(requests):
        settings = (request.language, request.encoder)
        scorer = found.get(settings)
        if scorer is None:
            try:
                scorer = scorer_for(*settings)
            except Exception as error:  # noqa: BLE001 - a model that cannot load is reported, CodeBLEU goes on
                scorer = error
            found[settings] = scorer
        if isinstance(scorer, Exception):
            out[index] = ModelScores(errors=(f"codebertscore unavailable: {scorer}",))
            continue
        groups.setdefault(id(scorer), (scorer, []))[1].append(index)
    for scorer, indices in groups.values():
        pairs = [ScorePair(requests[i].candidate, list(requests[i].references), requests[i].language,
                           requests[i].context, requests[i].live, needs_alignments(requests[i]))
                 for i in indices]
        try:
            results = [ModelScores(r) for r in scorer.score_batch(pairs)]  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - one bad pair (a text over the limit) must not cost the others
            results = [_failed()] if len(pairs) == 1 else [_alone(scorer, pair) for pair in pairs]
        for i, result in zip(indices, results):
            out[i] = result
    return out


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


def _alone(scorer: object, pair: object) -> ModelScores:
    """One pair scored on its own after its batch failed (the error, if it fails too)."""
    try:
        return ModelScores(scorer.score_batch([pair])[0])  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        return _failed()


def _failed() -> ModelScores:
    error = sys.exc_info()[1]
    log.info("CodeBERTScore failed: %s: %s", type(error).__name__, error)  # the report says it; the daemon logs it
    return ModelScores(errors=(model_error(error),))


def model_error(error: BaseException | None) -> str:
    """The report's line for a CodeBERTScore that could not be computed: a text over the limit
    says in words that it was skipped (and why); any other failure names its exception."""
    from ..embed.bertscorer import InputTooLargeError

    if isinstance(error, InputTooLargeError):
        return f"CodeBERTScore skipped: {error}"
    return f"codebertscore: {type(error).__name__}: {error}"
