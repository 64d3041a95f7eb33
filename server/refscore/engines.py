"""``open_scorer``: the one way every front end (CLI, grader, language server, eval) gets a Scorer.

It sits above both ``scoring/`` (the in-process ``LocalScorer``) and ``service/`` (the daemon's
client), so ``scoring/`` never imports ``service/``; ``service/`` imports ``scoring.report``.

Policies:

* ``"local"``: score in this process (``LocalScorer``).
* ``"daemon"``: the per-user daemon's client; it is started when ``autostart`` and none runs.
  Raises ``DaemonUnavailable`` when it cannot be had. The editor uses this for CodeBERTScore (it
  never loads a model in-process).
* ``"daemon_or_local"``: the daemon when one can be had, else this process; a daemon that stops
  answering mid-run is replaced by in-process scoring for the rest. Each switch is recorded in
  ``notes`` (front ends print them), never silent. An interpreter without CodeBERTScore's runtime
  (torch, transformers) starts no daemon: it uses one that runs, else this process.

Every setting that changes a number (model, layer, device, IDF, weights, rule, context) travels in
the ``ScoreRequest``, so every policy gives the same numbers for the same requests. The daemon runs
every stage but the corpus stage (``scoring.pipeline``) and answers finished reports; a grading
run's CrystalBLEU is added by ``pipeline.with_corpus`` in the daemon's client.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Literal, Sequence

from .provision.runtime import bert_runtime
from .scoring.pipeline import CorpusStatistics
from .scoring.report import ScoreReport, ScoreRequest
from .scoring.scorer import LocalScorer, Scorer

log = logging.getLogger(__name__)

Policy = Literal["daemon_or_local", "daemon", "local"]
POLICIES: tuple[str, ...] = ("daemon_or_local", "daemon", "local")


def open_scorer(policy: Policy = "daemon_or_local", *, autostart: bool = True,
                timeout: float | None = None) -> Scorer:
    """A Scorer for ``policy`` (see the module doc); close it when done."""
    if policy == "local":
        return LocalScorer()
    if policy not in POLICIES:
        raise ValueError(f"unknown scorer policy {policy!r}; choose from {', '.join(POLICIES)}")
    from .service import DaemonError, DaemonNotRunning, DaemonUnavailable, connect_daemon

    if policy == "daemon":
        return connect_daemon(autostart=autostart, timeout=timeout)
    if autostart and not bert_runtime().ready:
        # a daemon of this interpreter could not run CodeBERTScore, the one reason to start one:
        # use a daemon that runs (another installation's may have the runtime), else this process
        autostart = False
    try:
        client = connect_daemon(autostart=autostart, timeout=timeout)
    except (DaemonError, DaemonUnavailable, OSError) as error:
        fallback = DaemonOrLocal(None)
        if autostart or not isinstance(error, DaemonNotRunning):  # wanted, or there but unusable: say why
            fallback.notes.append(f"{error}; scoring in this process instead")
        return fallback
    return DaemonOrLocal(client)


class DaemonOrLocal:
    """The daemon's client while it answers, this process after it stops (``notes`` says so)."""

    def __init__(self, client: Scorer | None) -> None:
        self.client = client
        self.local = LocalScorer()
        self.notes: list[str] = []

    @property
    def kind(self) -> str:
        return "daemon" if self.client is not None else "local"

    def score(self, request: ScoreRequest) -> ScoreReport:
        return self.score_many([request])[0]

    def score_many(self, requests: Sequence[ScoreRequest],
                   statistics: CorpusStatistics | None = None) -> list[ScoreReport]:
        if self.client is not None:
            from .service import DaemonError

            try:
                return self.client.score_many(requests, statistics)
            except DaemonError as error:
                self._give_up_daemon(error)
        return self.local.score_many(requests, statistics)

    def submit(self, request: ScoreRequest, document: str | None = None) -> "Future[ScoreReport]":
        if self.client is None:
            return self.local.submit(request, document)
        return self.client.submit(request, document)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()

    def _give_up_daemon(self, error: Exception) -> None:
        note = f"the scoring daemon stopped answering ({error}); scoring in this process instead"
        log.info(note)  # front ends print ``notes``: a warning here was the same line printed twice
        self.notes.append(note)
        assert self.client is not None
        self.client.close()
        self.client = None

