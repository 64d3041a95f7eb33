"""The ``Scorer`` interface every engine implements, and the in-process engine.

``score(request) -> ScoreReport`` is the whole contract; ``kind`` says which engine answered
("local" here, "daemon" for the daemon's client) so front ends can describe it without type
checks. ``submit`` returns a future (the daemon supersedes older work for the same ``document``;
in-process scoring finishes before returning).
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Protocol, Sequence

from .pipeline import CorpusStatistics, run_stages
from ..settings_schema import NO_ENCODER_CHOICE, EncoderChoice
from .report import ScoreReport, ScoreRequest

log = logging.getLogger(__name__)


class Scorer(Protocol):
    """Anything that turns requests into reports (in-process, or the daemon's client)."""

    kind: str

    def score(self, request: ScoreRequest) -> ScoreReport: ...

    def score_many(self, requests: Sequence[ScoreRequest],
                   statistics: CorpusStatistics | None = None) -> list[ScoreReport]:
        """One finished report per request; ``statistics``: a run's corpus statistics, for the
        requests that ask for CrystalBLEU (None: none)."""
        ...

    def submit(self, request: ScoreRequest, document: str | None = None) -> "Future[ScoreReport]": ...

    def close(self) -> None: ...


class LocalScorer:
    """Scores in this process: CodeBLEU on the CPU, CodeBERTScore through ``embed.models``.

    ``defaults``: the encoder choice for requests that leave a part of it unset."""

    kind = "local"

    def __init__(self, defaults: EncoderChoice = NO_ENCODER_CHOICE) -> None:
        self.defaults = defaults

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

    def score_many(self, requests: Sequence[ScoreRequest],
                   statistics: CorpusStatistics | None = None) -> list[ScoreReport]:
        """Every stage of ``scoring.pipeline`` over ``requests``, one report each."""
        return run_stages(requests, self.defaults, statistics)
