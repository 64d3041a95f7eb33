"""A child process that runs the CPU stage (CodeBLEU, chrF, TSED) for the daemon's large-text
lane, and can be killed.

A thread cannot be stopped in the middle of an analysis, but a process can: the daemon sends large
requests here, one at a time, so that work abandoned by its client (disconnected, cancelled,
superseded) or left running at shutdown stops at once instead of holding a core for minutes.

The process is started with ``spawn`` (never a fork of the threaded daemon), keeps its own analysis
caches between requests, and exits when the daemon's end of the pipe closes, so it never outlives
the daemon, even one killed with ``kill -9``.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from multiprocessing.connection import Connection
from typing import Any, Callable

from ..scoring.parts import CpuScores
from ..scoring.report import ScoreRequest

log = logging.getLogger(__name__)

#: Seconds between looks at whether the running request was abandoned.
POLL_INTERVAL = 0.05


class CodeBleuWorker:
    """One worker process (started on first use, again after a kill); used by one thread at a time."""

    def __init__(self) -> None:
        self._process: Any = None
        self._pipe: Connection | None = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.is_alive() else None

    def run(self, request: ScoreRequest, stop: Callable[[], bool]) -> CpuScores | None:
        """The CPU stage's results for ``request``; None when ``stop()`` became true first (the
        process is then killed). A worker that dies gives results holding the error."""
        try:
            pipe = self._start()
            pipe.send(request)
            while not pipe.poll(POLL_INTERVAL):
                if stop():
                    self.kill()
                    return None
                if not self._alive():
                    raise EOFError
            return pipe.recv()
        except (EOFError, OSError) as error:
            if stop():
                return None
            code = self._process.exitcode if self._process is not None else None
            self.kill()
            log.error("the CodeBLEU worker process ended unexpectedly (exit code %s)", code)
            return CpuScores(errors=(
                f"codebleu: the worker process ended unexpectedly (exit code {code}; {type(error).__name__})",))

    def _alive(self) -> bool:
        process = self._process
        return process is not None and process.is_alive()

    def _start(self) -> Connection:
        with self._lock:
            if self._pipe is not None and self._alive():
                return self._pipe
            context = multiprocessing.get_context("spawn")
            parent, child = context.Pipe()
            process = context.Process(target=serve, args=(child,), name="refscore-codebleu-worker", daemon=True)
            process.start()
            child.close()
            self._process, self._pipe = process, parent
            log.info("started a CodeBLEU worker process (pid %s) for large texts", process.pid)
            return parent

    def kill(self) -> None:
        """End the process now (a request it was running is lost)."""
        with self._lock:
            process, pipe = self._process, self._pipe
            self._process = self._pipe = None
        if process is not None:
            process.kill()
            process.join(5)
        if pipe is not None:
            pipe.close()


def serve(pipe: Connection) -> None:
    """The worker process: the CPU stage of each request received until the pipe closes or the
    daemon dies."""
    from ..scoring.pipeline import cpu_metrics, prepare

    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="refscore-parent-watch", daemon=True).start()
    while True:
        try:
            request = pipe.recv()
        except (EOFError, OSError):
            return
        scores = cpu_metrics(prepare(request))
        try:
            pipe.send(scores)
        except OSError:  # the daemon went away meanwhile
            return


def _exit_with_parent(parent: int) -> None:
    """End this process as soon as the daemon is gone (killed mid-request: nobody wants the result)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
