"""The one place that decides which Scorer computes what for the editor.

* CodeBLEU runs in this process (milliseconds, no model).
* CodeBERTScore comes only from the shared daemon (``refscore.service.get_scorer``): the editor
  loop never loads a transformer itself. When the daemon cannot be had (package missing, it fails
  to start, or it offers only an in-process fallback), CodeBERTScore is switched off and
  ``bert_unavailable`` says why, once.

All calls block; the loop runs them in its own thread pool, never on the event loop.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from ..scoring.report import ScoreReport, ScoreRequest

log = logging.getLogger(__name__)

#: A daemon call that takes longer than this (a first model load included) is given up on.
DAEMON_TIMEOUT_S = 180.0


class ScorerUnavailable(RuntimeError):
    """The scorer for a metric cannot be used; the message says why (one line)."""


class Superseded(RuntimeError):
    """The daemon dropped a request because a newer one for the same document arrived."""


class Scorers:
    """Lazily built scorers: ``codebleu(request)`` in-process, ``codebertscore(request)`` via the daemon."""

    def __init__(self, allow_daemon: bool = True) -> None:
        self._lock = threading.Lock()
        self._local: Any = None
        self._local_error: str | None = None
        self._remote: Any = None
        self._remote_tried = False
        self.allow_daemon = allow_daemon
        self.bert_unavailable: str | None = None
        self.model_ready = False

    def _local_scorer(self) -> Any:
        with self._lock:
            if self._local is None and self._local_error is None:
                try:
                    from ..scoring.scorer import LocalScorer

                    self._local = LocalScorer()
                except Exception as error:  # noqa: BLE001 - a broken install is reported, not raised
                    self._local_error = f"CodeBLEU is unavailable: {type(error).__name__}: {error}"
                    log.error(self._local_error)
            if self._local is None:
                raise ScorerUnavailable(self._local_error or "CodeBLEU is unavailable")
            return self._local

    def _remote_scorer(self) -> Any:
        with self._lock:
            if not self._remote_tried:
                self._remote_tried = True
                self._remote = self._connect()
            if self._remote is None:
                raise ScorerUnavailable(self.bert_unavailable or "CodeBERTScore is unavailable")
            return self._remote

    def _connect(self) -> Any:
        if not self.allow_daemon:
            self.bert_unavailable = "CodeBERTScore is off in this server (started with --no-daemon)"
            return None
        try:
            from .. import service
            get_scorer = service.get_scorer
        except (ImportError, AttributeError) as error:
            self.bert_unavailable = f"CodeBERTScore is unavailable: the scoring daemon is not installed ({error})"
            return None
        try:
            try:
                scorer = get_scorer(autostart=True, fallback=False, timeout=DAEMON_TIMEOUT_S)
            except TypeError:  # an older get_scorer without ``fallback``
                scorer = get_scorer(autostart=True)
        except Exception as error:  # noqa: BLE001
            self.bert_unavailable = f"CodeBERTScore is unavailable: the scoring daemon did not start ({error})"
            return None
        if type(scorer).__name__ == "LocalScorer":
            self.bert_unavailable = ("CodeBERTScore is unavailable: the scoring daemon did not start "
                                     "(the editor does not load the model in-process)")
            return None
        return scorer

    def codebleu(self, request: ScoreRequest) -> ScoreReport:
        """CodeBLEU only, in this process."""
        request = _only(request, "codebleu")
        return self._local_scorer().score(request)

    def codebleu_many(self, requests: list[ScoreRequest]) -> list[ScoreReport]:
        """Several CodeBLEU-only requests, in this process."""
        return self._local_scorer().score_many([_only(r, "codebleu") for r in requests])

    def codebertscore(self, requests: list[ScoreRequest], document: str | None = None) -> list[ScoreReport]:
        """CodeBERTScore only, through the daemon; raises ScorerUnavailable when it cannot, and
        Superseded when the daemon dropped the work for a newer request of the same ``document``."""
        scorer = self._remote_scorer()
        requests = [_only(r, "codebertscore") for r in requests]
        try:
            if document is not None and hasattr(scorer, "submit"):
                futures = [scorer.submit(r, document=f"{document}#{k}") for k, r in enumerate(requests)]
                reports = [f.result(timeout=DAEMON_TIMEOUT_S) for f in futures]
            else:
                reports = scorer.score_many(requests)
        except Exception as error:  # noqa: BLE001 - a dead daemon is reported, the editor goes on
            if type(error).__name__ == "RequestCancelled":
                raise Superseded(str(error)) from error
            with self._lock:
                self._remote_tried = False  # try to reconnect (the daemon may autostart again) next time
                self._remote = None
            raise ScorerUnavailable(f"CodeBERTScore failed: the scoring daemon stopped answering ({error})") from error
        self.model_ready = True
        return reports


def _only(request: ScoreRequest, metric: str) -> ScoreRequest:
    from dataclasses import replace

    return replace(request, metrics=(metric,))
