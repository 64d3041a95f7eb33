"""The daemon's client: the same ``Scorer`` interface as ``LocalScorer``, answered by the daemon.

``DaemonClient`` connects lazily, through ``reach.Reach``: the daemon that runs, else (with
``autostart``) one it starts, a daemon older than the client replaced.

Requests are multiplexed over one connection (``connection.Connection``), so a client may have
many requests in flight; ``submit(request, document=...)`` lets a newer request for the same
document supersede an older one.

Every wait is bounded (docs/daemon.md, "Deadlines"): connecting ``reach.CONNECT_TIMEOUT``; the
handshake, ``status``, ``shutdown`` and each liveness ping ``deadline`` (``$REFSCORE_DAEMON_DEADLINE``,
default 10 s); a daemon that does not answer in time gives ``DaemonNotResponding`` ("not
responding (pid N)").

When the connection drops (the daemon was killed, crashed or stopped), the requests in flight fail
with ``DaemonConnectionLost`` and the next call reconnects, starting a fresh daemon if needed.
"""

from __future__ import annotations

import os
import subprocess
import threading
import uuid
from concurrent.futures import Future
from typing import Any, Sequence

from ..scoring.pipeline import CorpusStatistics, with_corpus, without_corpus
from ..scoring.report import ScoreReport, ScoreRequest, request_to_dict
from . import wire
from .connection import (Connection, DaemonConnectionLost, DaemonError, DaemonNotResponding, RemoteError,
                         not_responding)
from .processes import wait_for_exit
from .reach import START_TIMEOUT, Reach

#: Seconds the daemon has to answer the handshake, status, shutdown and each liveness ping.
DEFAULT_DEADLINE = 10.0
DEADLINE_ENV = "REFSCORE_DAEMON_DEADLINE"


def default_deadline() -> float:
    """``$REFSCORE_DAEMON_DEADLINE`` seconds when set to a positive number, else 10."""
    try:
        value = float(os.environ.get(DEADLINE_ENV, ""))
    except ValueError:
        return DEFAULT_DEADLINE
    return value if 0 < value < float("inf") else DEFAULT_DEADLINE


class DaemonDidNotExit(DaemonError):
    """The daemon accepted ``shutdown`` but its process has not exited in time."""

    def __init__(self, pid: Any, timeout: float) -> None:
        super().__init__(f"the scoring daemon (pid {pid}) did not exit within {timeout:.0f} s")
        self.pid = pid


class DaemonClient:
    """A ``Scorer`` whose work is done by the shared daemon (started on demand).

    ``daemon_args`` are passed to ``refscore daemon run`` when this client starts the daemon
    (e.g. ``["--idle-timeout", "60"]``); a daemon that already runs keeps its own settings.
    """

    kind = "daemon"

    def __init__(self, *, autostart: bool = True, start_timeout: float = START_TIMEOUT,
                 daemon_args: Sequence[str] = (), timeout: float | None = None,
                 client_id: str | None = None, deadline: float | None = None) -> None:
        self.timeout = timeout
        self.deadline = deadline if deadline is not None else default_deadline()
        self.client_id = client_id or f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.reach = Reach(autostart=autostart, start_timeout=start_timeout, daemon_args=daemon_args,
                           deadline=self.deadline, client_id=self.client_id)
        self._conn: Connection | None = None
        self._lock = threading.Lock()

    # -- connection -----------------------------------------------------------------------------

    def connect(self) -> dict[str, Any]:
        """Connect now (starting a daemon if allowed); the daemon's handshake answer."""
        return self._connection().info

    @property
    def started_daemon(self) -> bool:
        """Whether this client started the daemon it talks to."""
        return self.reach.started_daemon

    @property
    def spawned(self) -> subprocess.Popen[bytes] | None:
        """The daemon process this client spawned last, if any."""
        return self.reach.spawned

    @property
    def daemon_pid(self) -> int | None:
        return self._conn.info.get("pid") if self._conn is not None and not self._conn.closed else None

    def _connection(self) -> Connection:
        with self._lock:
            if self._conn is None or self._conn.closed:
                self._conn = self.reach.open()
            return self._conn

    def close(self) -> None:
        """Close the connection (the daemon keeps running)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> "DaemonClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls ----------------------------------------------------------------------------------

    def call(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """One request, waited for."""
        _, future = self._connection().request(method, params)
        return future.result(timeout=timeout if timeout is not None else self.timeout)

    def submit(self, request: ScoreRequest, document: str | None = None) -> Future[ScoreReport]:
        """Send ``request`` now; the future gives its report. With ``document``, a later
        ``submit`` for the same document supersedes this one if it has not started
        (this future then fails with ``RequestCancelled``)."""
        conn = self._connection()
        params: dict[str, Any] = {"request": request_to_dict(request)}
        if document is not None:
            params.update(document=document, client=self.client_id)
        msg_id, raw = conn.request("score", params)
        out: Future[ScoreReport] = Future()
        out.request_id = msg_id  # type: ignore[attr-defined]
        out.connection = conn  # type: ignore[attr-defined]

        def done(f: Future[Any]) -> None:
            error = f.exception()
            if error is not None:
                out.set_exception(error)
                return
            try:
                out.set_result(ScoreReport.from_dict(f.result()))
            except Exception as bad:  # noqa: BLE001
                out.set_exception(DaemonError(f"unreadable report from the daemon: {bad}"))

        raw.add_done_callback(done)
        return out

    def cancel(self, future: Future[ScoreReport]) -> None:
        """Ask the daemon to drop a submitted request (a large one that runs is stopped)."""
        conn = getattr(future, "connection", None)
        if conn is not None and not conn.closed:
            conn.notify("$/cancelRequest", {"id": future.request_id})  # type: ignore[attr-defined]

    def score(self, request: ScoreRequest) -> ScoreReport:
        return self.score_many([request])[0]

    def score_many(self, requests: Sequence[ScoreRequest],
                   statistics: CorpusStatistics | None = None) -> list[ScoreReport]:
        """Score all requests (sent at once, answered as the daemon batches them); the daemon
        runs every stage but the corpus stage, which runs here against ``statistics``.

        A daemon that stops in an orderly way (idle exit, replaced) with some of them unanswered
        gets them resent once to a fresh daemon, as does a request whose send failed (it reached
        no daemon); one that dies with a request raises ``DaemonConnectionLost``."""
        results: list[ScoreReport | None] = [None] * len(requests)
        todo = list(range(len(requests)))
        for attempt in (1, 2):
            retry = []
            futures = []
            for i in todo:
                try:
                    futures.append((i, self.submit(without_corpus(requests[i]))))
                except DaemonConnectionLost as error:
                    if attempt == 2 or not _resendable(error):
                        raise
                    retry.append(i)
            try:
                for i, future in futures:
                    try:
                        results[i] = future.result(timeout=self.timeout)
                    except (DaemonConnectionLost, RemoteError) as error:
                        if attempt == 2 or not _resendable(error):
                            raise
                        retry.append(i)
            except BaseException:  # given up (timeout, interrupt, failure): the daemon drops the rest
                for _, future in futures:
                    if not future.done():
                        self.cancel(future)
                raise
            if not retry:
                break
            todo = sorted(retry)
        return with_corpus(requests, results, statistics)  # type: ignore[arg-type]

    def _prompt(self, method: str, params: Any = None) -> Any:
        """A call the daemon answers at once (its event loop is never busy): ``DaemonNotResponding``
        after ``deadline`` seconds without the answer."""
        conn = self._connection()
        _, future = conn.request(method, params)
        try:
            return future.result(timeout=self.deadline)
        except TimeoutError:
            self.close()
            raise not_responding(conn.pid, self.deadline) from None

    def status(self) -> dict[str, Any]:
        return self._prompt("status", {})

    def shutdown(self, wait: bool = True, timeout: float = 15.0) -> int | None:
        """Stop the daemon (never starting one to do so); its pid. With ``wait``, return once it
        has exited (``DaemonError`` after ``timeout`` seconds). ``DaemonNotResponding`` when it
        does not answer (``processes.terminate`` ends such a one)."""
        autostart, self.reach.autostart = self.reach.autostart, False
        try:
            pid = self._connection().info.get("pid")
        finally:
            self.reach.autostart = autostart
        try:
            self._prompt("shutdown", {})
        except DaemonNotResponding:
            raise
        except DaemonConnectionLost:
            pass
        self.close()
        if wait and not wait_for_exit(pid, timeout):
            raise DaemonDidNotExit(pid, timeout)
        return pid


def _resendable(error: DaemonError) -> bool:
    """Unanswered because the daemon was exiting in an orderly way (not because it died), or never
    sent (the daemon had gone before it: an idle exit the reader had not seen yet)."""
    if isinstance(error, DaemonConnectionLost):
        return error.orderly or error.unsent
    return isinstance(error, RemoteError) and error.code == wire.SHUTTING_DOWN
