"""Size-aware lanes: large texts never hold up small ones, and their abandoned work stops.

A request is *large* when its texts (candidate, references, context) hold more than
``large_chars`` characters together (default ``DEFAULT_LARGE_CHARS``). Large requests run in lanes
of their own:

* CodeBLEU: ``LargeCodeBleuLane``, up to ``workers`` requests at once, each in a killable worker
  process of its own (``worker.CodeBleuWorker``; default: half the cores, at most 4); a request
  abandoned while it runs (its client disconnected, cancelled it or superseded it, or the daemon is
  stopping) has its process killed at once;
* CodeBERTScore: a batcher thread of their own, one request per batch (``engine``).

Small requests keep the CodeBLEU thread pool and the shared CodeBERTScore batches, so a two-line
pair is answered in milliseconds while a 5 MB file is analysed.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from concurrent.futures import Future
from typing import Callable, Hashable

from ..scoring.parts import CpuScores, ModelScores
from ..scoring.pipeline import prepare
from ..scoring.report import ScoreReport, ScoreRequest
from .worker import CodeBleuWorker

log = logging.getLogger(__name__)

#: Characters (all texts of a request together) above which a request takes the large lanes.
DEFAULT_LARGE_CHARS = 100_000


def request_chars(request: ScoreRequest) -> int:
    """The size that decides a request's lane: characters of all its texts."""
    return len(request.candidate) + sum(len(r) for r in request.references) + len(request.context or "")


class Cancelled(Exception):
    """The job was superseded or cancelled (before or while it ran)."""


class Job:
    """One score request moving through the stages (``scoring.pipeline``): prepared once, its
    CPU and model stages' results kept until ``finish`` builds the report."""

    def __init__(self, request: ScoreRequest, key: Hashable | None, large: bool = False) -> None:
        self.request = request
        self.prepared = prepare(request)
        self.key = key
        self.large = large
        self.future: Future[ScoreReport] = Future()
        self.cancelled = False
        self.cpu: CpuScores | None = None
        self.model: ModelScores | None = None
        self._pending = 0
        self._lock = threading.Lock()

    def begin_stage(self) -> bool:
        """Whether a stage may start: False once the job is cancelled (the stage is skipped)."""
        with self._lock:
            return not self.cancelled


def default_large_workers() -> int:
    """Large CodeBLEU requests run at once by default: half the cores, 1 to 4."""
    import os

    return max(1, min(4, (os.cpu_count() or 1) // 2))


class LargeCodeBleuLane:
    """Runs the CodeBLEU stage of large jobs, up to ``workers`` at once, each in a worker process
    it can kill.

    ``done(job, scores)`` is called for every job put here: ``scores`` is None when the stage
    never ran or was stopped (the job was cancelled), else the CPU stage's results."""

    def __init__(self, done: Callable[[Job, CpuScores | None], None], workers: int | None = None) -> None:
        self._done = done
        self._queue: deque[Job] = deque()
        self._cond = threading.Condition()
        self._closing = False
        self._threads: list[threading.Thread] = []
        self.workers = [CodeBleuWorker() for _ in range(max(1, workers or default_large_workers()))]
        self.running: dict[int, Job] = {}  # worker index -> the job it runs
        self.stopped = 0  # running stages stopped because their job was abandoned

    def put(self, job: Job) -> None:
        with self._cond:
            if self._closing:
                closing = True
            else:
                closing = False
                self._queue.append(job)
                busy = len(self.running) + len(self._queue)
                if len(self._threads) < len(self.workers) and busy > len(self._threads):
                    index = len(self._threads)
                    thread = threading.Thread(target=self._loop, args=(index,), daemon=True,
                                              name=f"refscore-codebleu-large-{index}")
                    self._threads.append(thread)
                    thread.start()
                self._cond.notify()
        if closing:
            self._done(job, None)

    def waiting(self) -> int:
        with self._cond:
            return len(self._queue)

    def running_count(self) -> int:
        """Large CodeBLEU stages running now."""
        with self._cond:
            return len(self.running)

    def _loop(self, index: int) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                job = self._queue.popleft()
                self.running[index] = job
            try:
                report = self._run(job, self.workers[index])
            finally:
                with self._cond:
                    self.running.pop(index, None)
            self._done(job, report)

    def _run(self, job: Job, worker: CodeBleuWorker) -> CpuScores | None:
        if not job.begin_stage():
            return None
        report = worker.run(job.request, stop=lambda: job.cancelled or self._closing)
        if report is None:
            with self._cond:
                self.stopped += 1
            log.info("stopped a large CodeBLEU request (%d characters): %s", request_chars(job.request),
                     "the daemon is stopping" if self._closing else "its client no longer wants it")
        return report

    def close(self) -> list[Job]:
        """Stop: the running stages are killed; the jobs still queued are returned (not run)."""
        with self._cond:
            self._closing = True
            queued = list(self._queue)
            self._queue.clear()
            self._cond.notify_all()
        for worker in self.workers:
            worker.kill()
        return queued
