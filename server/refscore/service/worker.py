"""Child processes that run CPU work and can be killed: ``ProcessWorker`` runs any module-level
function there; ``CodeBleuWorker`` runs the CPU stage (CodeBLEU, chrF, TSED) for the daemon's
large-text lane (the language server's large lane uses a ``ProcessWorker`` too).

A thread cannot be stopped in the middle of an analysis, but a process can: large requests are
sent here, one at a time, so that work abandoned by its client (disconnected, cancelled,
superseded) or left running at shutdown stops at once instead of holding a core for minutes. Its
work also holds this process's GIL no longer: the threads beside it (an event loop) keep running.

The process is started with ``spawn`` (never a fork of a threaded parent), keeps its own analysis
caches between requests, and exits when the parent's end of the pipe closes, so it never outlives
the parent, even one killed with ``kill -9``.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import signal
import threading
import time
from multiprocessing.connection import Connection
from typing import Any, Callable

from ..parsing.gc_pause import gc_paused
from ..scoring.parts import CpuScores
from ..scoring.report import ScoreRequest

log = logging.getLogger(__name__)

#: Seconds between looks at whether the running request was abandoned.
POLL_INTERVAL = 0.05


class WorkerStopped(Exception):
    """``stop()`` became true while the call ran: the process was killed, there is no answer."""


class WorkerDied(RuntimeError):
    """The worker process ended before it answered (killed, out of memory); the message says how."""


class ProcessWorker:
    """One worker process (started on first use, again after a kill); used by one thread at a time."""

    def __init__(self, name: str = "refscore-worker") -> None:
        self.name = name
        self._process: Any = None
        self._pipe: Connection | None = None
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.is_alive() else None

    def call(self, fn: Callable[..., Any], *args: Any, stop: Callable[[], bool] = lambda: False) -> Any:
        """``fn(*args)`` in the process (``fn`` and ``args`` are pickled: a module-level function).
        Raises ``WorkerStopped`` when ``stop()`` became true first (the process is then killed),
        ``WorkerDied`` when the process ended without answering, and what ``fn`` raised."""
        try:
            pipe = self._start()
            pipe.send((fn, args))
            while not pipe.poll(POLL_INTERVAL):
                if stop():
                    self.kill()
                    raise WorkerStopped
                if not self._alive():
                    raise EOFError
            ok, value = pipe.recv()
        except (EOFError, OSError) as error:
            if stop():
                raise WorkerStopped from None
            process = self._process
            if process is not None:
                process.join(1)  # the pipe closes a moment before the exit status can be read
            code = process.exitcode if process is not None else None
            self.kill()
            log.error("the %s process ended unexpectedly (%s)", self.name, ended(code))
            raise WorkerDied(f"the {self.name} process ended unexpectedly: {ended(code)}") from error
        if not ok:
            raise value
        return value

    def _alive(self) -> bool:
        process = self._process
        return process is not None and process.is_alive()

    def _start(self) -> Connection:
        with self._lock:
            if self._pipe is not None and self._alive():
                return self._pipe
            context = multiprocessing.get_context("spawn")
            parent, child = context.Pipe()
            process = context.Process(target=serve, args=(child,), name=self.name, daemon=True)
            process.start()
            child.close()
            self._process, self._pipe = process, parent
            log.info("started a %s process (pid %s)", self.name, process.pid)
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


class CodeBleuWorker(ProcessWorker):
    """The daemon's large-lane worker: the CPU stage of one request at a time."""

    def __init__(self) -> None:
        super().__init__("CodeBLEU worker")

    def run(self, request: ScoreRequest, stop: Callable[[], bool]) -> CpuScores | None:
        """The CPU stage's results for ``request``; None when ``stop()`` became true first (the
        process is then killed). A worker that dies (or fails) gives results holding the error."""
        try:
            return self.call(cpu_stage, request, stop=stop)
        except WorkerStopped:
            return None
        except Exception as error:  # noqa: BLE001 - the request's error, never the lane's
            return CpuScores(errors=(f"codebleu: {error}",))


def cpu_stage(request: ScoreRequest) -> CpuScores:
    """The CPU stage of one request (what ``CodeBleuWorker`` runs in its process)."""
    from ..scoring.pipeline import cpu_metrics, prepare

    return cpu_metrics(prepare(request))


def ended(code: int | None) -> str:
    """How a process ended, in words: ``exit code 3``, ``killed by signal 9 (SIGKILL)``."""
    if code is None or code >= 0:
        return f"exit code {code}"
    try:
        name = f" ({signal.Signals(-code).name})"
    except ValueError:
        name = ""
    return f"killed by signal {-code}{name}"


def serve(pipe: Connection) -> None:
    """The worker process: ``fn(*args)`` of each ``(fn, args)`` received, answered ``(True, value)``
    or ``(False, exception)``, until the pipe closes or the parent dies. The cyclic collector is
    paused while a call runs and its answer goes out (the caller waits for both); the young
    generations are collected after each answer, while the caller reads it, and all of them in a
    pause between calls (``full_collection_due``)."""
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="refscore-parent-watch", daemon=True).start()
    since_full = 0
    while True:
        if full_collection_due(since_full, lambda: not _request_within(pipe, IDLE_S)):
            gc.collect()
            since_full = 0
        try:
            fn, args = pipe.recv()
        except (EOFError, OSError):
            return
        with gc_paused():
            if not _answer(pipe, fn, args):
                return
        gc.collect(1)  # a 20,000-line edit's phase spent a fifth of its time in these collections
        since_full += 1


#: Calls after which a full collection is due: made once no request came for ``IDLE_S`` seconds
#: (one takes a third of a second with a 20,000-line file's analyses cached), or at the latest
#: after ``FULL_COLLECTION_FORCED`` calls.
FULL_COLLECTION_EVERY = 20
FULL_COLLECTION_FORCED = 200
IDLE_S = 1.0


def full_collection_due(since_full: int, idle: Callable[[], bool]) -> bool:
    """Whether to collect every generation now, ``since_full`` calls after the last full
    collection; ``idle()`` waits for a pause and says whether there was one."""
    if since_full < FULL_COLLECTION_EVERY:
        return False
    return since_full >= FULL_COLLECTION_FORCED or idle()


def _request_within(pipe: Connection, seconds: float) -> bool:
    """Whether a request (or the pipe's end) arrives within ``seconds``."""
    try:
        return pipe.poll(seconds)
    except (EOFError, OSError):
        return True  # ``recv`` meets it next


def _answer(pipe: Connection, fn: Callable[..., Any], args: tuple) -> bool:
    """Run one call and send its answer; False when the parent went away."""
    try:
        answer: tuple[bool, Any] = (True, fn(*args))
    except Exception as error:  # noqa: BLE001 - the caller's to handle
        answer = (False, error)
    try:
        pipe.send(answer)
    except OSError:  # the parent went away meanwhile
        return False
    except Exception as error:  # noqa: BLE001 - an answer that does not pickle
        pipe.send((False, RuntimeError(f"{type(error).__name__}: {error}")))
    return True


def _exit_with_parent(parent: int) -> None:
    """End this process as soon as its parent is gone (killed mid-request: nobody wants the result)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
