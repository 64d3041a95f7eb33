"""Which Scorer computes what for the editor, got from ``engines.open_scorer`` like everywhere.

* CodeBLEU runs in this process (``open_scorer("local")``: milliseconds, no model).
* CodeBERTScore comes only from the shared daemon (``open_scorer("daemon")``): the editor loop
  never loads a transformer itself. When the daemon cannot be had, CodeBERTScore is switched off
  and ``bert_unavailable`` says why, once; a call ``RETRY_AFTER_S`` later tries again (a daemon
  that died: the next call).

All calls block; the loop runs them in its own thread pools, never on the event loop.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace

from ..engines import open_scorer
from ..provision.runtime import bert_runtime
from ..scoring.report import ScoreReport, ScoreRequest
from ..scoring.scorer import Scorer
from .memo import ReportMemo

log = logging.getLogger(__name__)

#: A daemon call that takes longer than this (a first model load included) is given up on.
DAEMON_TIMEOUT_S = 180.0
#: After the daemon could not be had, the next attempt waits this long (an edit after it tries again).
RETRY_AFTER_S = 15.0
#: Per-function CodeBLEU reports kept by request (a 20,000-line file has about 2,000 functions):
#: an edit scores again only the functions it touched.
FUNCTION_MEMO_ENTRIES = 8192
FUNCTION_MEMO_CHARS = 4_000_000  # reports of about 7 MB pickled (1.7 bytes a character)


class ScorerUnavailable(RuntimeError):
    """The scorer for a metric cannot be used; the message says why (one line)."""


class Superseded(RuntimeError):
    """The daemon dropped a request because a newer one for the same document arrived."""


class Scorers:
    """Lazily opened scorers: ``codebleu(request)`` in-process, ``codebertscore(requests)`` via the daemon."""

    def __init__(self, allow_daemon: bool = True) -> None:
        self._lock = threading.Lock()  # the in-process scorer's
        #: the daemon's, held while connecting (up to the handshake deadline): never the one above,
        #: or each edit's CodeBLEU would wait for a daemon that does not answer
        self._remote_lock = threading.Lock()
        self._local: Scorer | None = None
        self._local_error: str | None = None
        self._remote: Scorer | None = None
        self._remote_tried = False
        self._retry_at = 0.0  # when a daemon that could not be had is tried again
        self.allow_daemon = allow_daemon
        self.bert_unavailable: str | None = None
        #: (daemon pid, model, backend) that answered a CodeBERTScore: that daemon has the model loaded
        self._loaded: set[tuple[object, ...]] = set()
        #: Whether this interpreter has CodeBERTScore's runtime (else: ``refscore setup``).
        self.runtime = bert_runtime()
        #: the per-function (and pairing) CodeBLEU reports, by request
        self.function_memo = ReportMemo(FUNCTION_MEMO_ENTRIES, FUNCTION_MEMO_CHARS)

    def _local_scorer(self) -> Scorer:
        with self._lock:
            if self._local is None and self._local_error is None:
                try:
                    self._local = open_scorer("local")
                except Exception as error:  # noqa: BLE001 - a broken install is reported, not raised
                    self._local_error = f"CodeBLEU is unavailable: {type(error).__name__}: {error}"
                    log.error(self._local_error)
            if self._local is None:
                raise ScorerUnavailable(self._local_error or "CodeBLEU is unavailable")
            return self._local

    def _remote_scorer(self) -> Scorer:
        with self._remote_lock:
            retry = self._remote is None and self._remote_tried and time.monotonic() >= self._retry_at
            if not self._remote_tried or (retry and self.allow_daemon):
                self._remote_tried = True
                self._remote = self._connect()
                if self._remote is None:
                    self._retry_at = time.monotonic() + RETRY_AFTER_S
            if self._remote is None:
                raise ScorerUnavailable(self.bert_unavailable or "CodeBERTScore is unavailable")
            return self._remote

    def _connect(self) -> Scorer | None:
        if not self.allow_daemon:
            self.bert_unavailable = "CodeBERTScore is off in this server (started with --no-daemon)"
            return None
        if not self.runtime.ready:  # the daemon would start with this interpreter, and fail
            self.bert_unavailable = self.runtime.reason
            return None
        try:
            return open_scorer("daemon", autostart=True, timeout=DAEMON_TIMEOUT_S)
        except Exception as error:  # noqa: BLE001 - whatever stops the daemon is one message
            self.bert_unavailable = f"CodeBERTScore is unavailable: {_reason(error)}"
            return None

    @property
    def daemon_pid(self) -> int | None:
        """The pid of the daemon connected now (None before the first call or after a failure)."""
        pid = getattr(self._remote, "daemon_pid", None) if self._remote is not None else None
        return pid if isinstance(pid, int) else None

    def model_ready(self, request: ScoreRequest) -> bool:
        """Whether the daemon now connected has answered a CodeBERTScore with ``request``'s model
        (so it is loaded there); a new daemon (after an idle exit or a crash) or another
        ``refscore.model`` loads one again, and the client is shown that it does."""
        remote = self._remote
        pid = getattr(remote, "daemon_pid", None) if remote is not None else None
        return pid is not None and (pid, request.encoder.model, request.encoder.backend) in self._loaded

    def codebleu(self, request: ScoreRequest) -> ScoreReport:
        """CodeBLEU only, in this process."""
        return self._local_scorer().score(_only(request, "codebleu"))

    def codebleu_many(self, requests: list[ScoreRequest]) -> list[ScoreReport]:
        """Several CodeBLEU-only requests, in this process; those asked before (the functions an
        edit did not touch) answered from ``function_memo``."""
        return self.function_memo.answer([_only(r, "codebleu") for r in requests], self._local_scorer().score_many)

    def codebleu_new(self, request: ScoreRequest) -> bool:
        """Whether ``codebleu_many`` would score ``request`` afresh (not answered from its memo)."""
        return _only(request, "codebleu") not in self.function_memo

    def codebertscore(self, requests: list[ScoreRequest], document: str | None = None) -> list[ScoreReport]:
        """CodeBERTScore only, through the daemon; raises ScorerUnavailable when it cannot, and
        Superseded when the daemon dropped the work for a newer request of the same ``document``."""
        from ..service import RequestCancelled

        scorer = self._remote_scorer()
        requests = [_only(r, "codebertscore") for r in requests]
        try:
            futures = [scorer.submit(r, document=None if document is None else f"{document}#{k}")
                       for k, r in enumerate(requests)]
            reports = [f.result(timeout=DAEMON_TIMEOUT_S) for f in futures]
        except RequestCancelled as error:
            raise Superseded(str(error)) from error
        except Exception as error:  # noqa: BLE001 - a dead daemon is reported, the editor goes on
            with self._remote_lock:
                self._remote_tried = False  # try to reconnect (the daemon may autostart again) next time
                self._remote = None
            scorer.close()
            raise ScorerUnavailable(f"CodeBERTScore is unavailable: {_lost(error)}") from error
        pid = getattr(scorer, "daemon_pid", None)
        if pid is not None:
            self._loaded.update((pid, r.encoder.model, r.encoder.backend) for r in requests)
        self.bert_unavailable = None
        return reports


def size_verdict(request: ScoreRequest) -> str | None:
    """The summary's line when a text of ``request`` is over CodeBERTScore's limit ("CodeBERTScore
    skipped: text of N characters is over ..."), the daemon's own words, known from the lengths
    alone: the editor shows it with the first summary, before any model work; None otherwise."""
    from ..embed.bertscorer import InputTooLargeError, too_large
    from ..scoring.bert import model_error

    for text in (request.candidate, *request.references):
        problem = too_large(text, request.context)
        if problem is not None:
            return model_error(InputTooLargeError(problem))
    return None


def _reason(error: Exception) -> str:
    """What stopped the daemon, as one clause ("the scoring daemon is not responding (pid N)")."""
    text = str(error).strip() or type(error).__name__
    return text if "daemon" in text else f"the scoring daemon did not start ({text})"


def _lost(error: Exception) -> str:
    """Why a connected daemon gave no report, as one clause: its own words when it says
    ("the scoring daemon is not responding (pid N): ..."), else what happened."""
    if isinstance(error, TimeoutError) and not str(error).strip():  # the wait on the future ran out
        return f"the scoring daemon gave no answer within {DAEMON_TIMEOUT_S:.0f} s"
    text = str(error).strip() or type(error).__name__
    return text if "daemon" in text else f"the scoring daemon stopped answering ({text})"


def _only(request: ScoreRequest, metric: str) -> ScoreRequest:
    return request if request.metrics == (metric,) else replace(request, metrics=(metric,))
