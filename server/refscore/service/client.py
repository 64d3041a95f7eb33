"""The daemon's client: the same ``Scorer`` interface as ``LocalScorer``, answered by the daemon.

``DaemonClient`` connects lazily. When no daemon answers and ``autostart`` is on, it starts one in
the background (``refscore daemon run`` in a new session, stdio detached) while holding
``start.lock``, so clients racing to start one end up sharing it. It handshakes versions: a daemon
older than the client is asked to shut down and replaced.

Requests are multiplexed over one connection (``connection.Connection``), so a client may have
many requests in flight; ``submit(request, document=...)`` lets a newer request for the same
document supersede an older one.

Every wait is bounded (docs/daemon.md, "Deadlines"): connecting ``CONNECT_TIMEOUT``; the handshake,
``status``, ``shutdown`` and each liveness ping ``deadline`` (``$REFSCORE_DAEMON_DEADLINE``, default
10 s). A daemon that holds the lock but does not answer in time (stopped by SIGSTOP, hung) gives
``DaemonNotResponding`` ("not responding (pid N)") at once instead of a new daemon or a hang; a
stopped daemon process is recognised without waiting.

When the connection drops (the daemon was killed, crashed or stopped), the requests in flight fail
with ``DaemonConnectionLost`` and the next call reconnects, starting a fresh daemon if needed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import Future
from typing import Any, Sequence

from .. import __version__
from ..errors import EXIT_INPUT
from ..provision.runtime import bert_runtime
from ..scoring.pipeline import CorpusStatistics, with_corpus, without_corpus
from ..scoring.report import ScoreReport, ScoreRequest, request_to_dict
from . import paths, wire
from .connection import (
    Connection,
    DaemonConnectionLost,
    DaemonError,
    DaemonNotResponding,
    DaemonNotRunning,
    DaemonUnavailable,
    RemoteError,
    not_responding,
)
from .processes import (log_tail, pid_alive, process_stopped, reap_in_background, spawn_daemon, startup_log,
                        startup_log_size, wait_for_exit)

START_TIMEOUT = 60.0
#: Seconds to connect to the socket (a full listen backlog, a firewalled port).
CONNECT_TIMEOUT = 5.0
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


class _NotRunning(Exception):
    pass


class _Replaced(_NotRunning):
    """An older daemon was stopped; a new one must be started (whatever ``autostart`` says)."""


def _lacks_the_bert_runtime_this_has(info: dict[str, Any]) -> bool:
    """Whether the daemon's interpreter lacks CodeBERTScore's runtime (``bert_missing`` in its
    handshake) and this one has it: a daemon started by another installation (a CodeBLEU-only
    ``pip install refscore``, the VS Code bundle) answered every CodeBERTScore request with "not
    installed" to a user who had installed it. Such a daemon is replaced by one of this interpreter."""
    missing = info.get("bert_missing")
    return isinstance(missing, list) and bool(missing) and bert_runtime().ready


class DaemonClient:
    """A ``Scorer`` whose work is done by the shared daemon (started on demand).

    ``daemon_args`` are passed to ``refscore daemon run`` when this client starts the daemon
    (e.g. ``["--idle-timeout", "60"]``); a daemon that already runs keeps its own settings.
    """

    kind = "daemon"

    def __init__(self, *, autostart: bool = True, start_timeout: float = START_TIMEOUT,
                 daemon_args: Sequence[str] = (), timeout: float | None = None,
                 client_id: str | None = None, deadline: float | None = None) -> None:
        self.autostart = autostart
        self.start_timeout = start_timeout
        self.daemon_args = list(daemon_args)
        self.timeout = timeout
        self.deadline = deadline if deadline is not None else default_deadline()
        self.client_id = client_id or f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._conn: Connection | None = None
        self._lock = threading.Lock()
        self.started_daemon = False  # whether this client started the daemon it talks to
        self.spawned: subprocess.Popen[bytes] | None = None  # the daemon process it spawned last, if any

    # -- connection -----------------------------------------------------------------------------

    def connect(self) -> dict[str, Any]:
        """Connect now (starting a daemon if allowed); the daemon's handshake answer."""
        return self._connection().info

    @property
    def daemon_pid(self) -> int | None:
        return self._conn.info.get("pid") if self._conn is not None and not self._conn.closed else None

    def _connection(self) -> Connection:
        with self._lock:
            if self._conn is None or self._conn.closed:
                self._conn = self._open()
            return self._conn

    def _open(self) -> Connection:
        try:
            if paths.existing_runtime_dir() is None:
                raise _NotRunning()
            self._refuse_stopped_daemon()
            return self._connect_and_handshake()
        except _NotRunning as missing:
            if not self.autostart and not isinstance(missing, _Replaced):
                raise DaemonNotRunning("no scoring daemon is running (start one with `refscore daemon start`)") from None
        return self._start_and_connect()

    def _live_daemon_pid(self) -> Any:
        """The pid in ``daemon.json`` when a daemon holds the lock (alive, answering or not)."""
        if not paths.lock_is_held(paths.runtime_dir() / paths.LOCK_NAME):
            return None
        pid = (paths.read_info() or {}).get("pid")
        return pid if isinstance(pid, int) and pid_alive(pid) else "unknown"

    def _refuse_stopped_daemon(self) -> None:
        """``DaemonNotResponding`` at once for a daemon process stopped by a signal."""
        pid = (paths.read_info() or {}).get("pid")
        if process_stopped(pid) and self._live_daemon_pid() == pid:
            raise not_responding(pid, self.deadline)

    def _connect_and_handshake(self) -> Connection:
        conn = Connection(self._dial(), self.deadline, pid=(paths.read_info() or {}).get("pid"))
        try:
            conn.info = self._initialize(conn)
        except DaemonNotResponding:
            conn.close()
            raise
        except TimeoutError:
            conn.close()
            pid = self._live_daemon_pid()
            if pid is not None:  # the lock holder lives but does not answer: never start a second one
                raise not_responding(pid, self.deadline) from None
            raise _NotRunning() from None
        except (DaemonConnectionLost, OSError):
            conn.close()
            raise _NotRunning() from None  # accepted, then dropped: the daemon is exiting
        except RemoteError as error:
            conn.close()
            raise DaemonUnavailable(f"the scoring daemon refused this client: {error}") from None
        if wire.version_tuple(str(conn.info.get("version", "0"))) < wire.version_tuple(__version__):
            self._replace(conn)
            raise _Replaced()
        if conn.info.get("protocol") != wire.PROTOCOL_VERSION:
            conn.close()
            raise DaemonUnavailable(
                f"the running scoring daemon ({conn.info.get('version')}) speaks protocol {conn.info.get('protocol')}, "
                f"this client {wire.PROTOCOL_VERSION}; stop it with `refscore daemon stop`")
        if self.autostart and _lacks_the_bert_runtime_this_has(conn.info):  # not for status or stop
            self._replace(conn, f"replaced: it runs without CodeBERTScore's runtime "
                                f"({', '.join(conn.info['bert_missing'])}), {sys.executable} has it")
            raise _Replaced()
        return conn

    def _initialize(self, conn: Connection) -> dict[str, Any]:
        params: dict[str, Any] = {"version": __version__, "protocol": wire.PROTOCOL_VERSION,
                                  "client": self.client_id}
        info = paths.read_info()
        if info and info.get("token"):
            params["token"] = info["token"]
        _, future = conn.request("initialize", params)
        result = future.result(timeout=self.deadline)
        return result if isinstance(result, dict) else {}

    def _dial(self) -> socket.socket:
        info = paths.read_info() or {}
        if info.get("transport") == "tcp" or not paths.unix_sockets_usable():
            address = str(info.get("address", ""))
            host, _, port = address.rpartition(":")
            if info.get("transport") != "tcp" or not port.isdigit():
                raise _NotRunning()
            family, target = socket.AF_INET, (host, int(port))
        else:
            family, target = socket.AF_UNIX, str(paths.socket_path())
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(min(CONNECT_TIMEOUT, self.deadline))
        try:
            sock.connect(target)
        except OSError:
            sock.close()
            raise _NotRunning() from None
        sock.settimeout(None)
        return sock

    def _replace(self, conn: Connection, reason: str = f"replaced by a client of version {__version__}") -> None:
        """Ask an older (or less able) daemon to shut down and wait until it has released its lock."""
        old = conn.info
        try:
            conn.request("shutdown", {"reason": reason})[1].result(timeout=self.deadline)
        except Exception:  # noqa: BLE001 - an old daemon may not understand; it is stopped below
            pass
        conn.close()
        if not wait_for_exit(old.get("pid"), timeout=10):
            raise DaemonUnavailable(f"an older scoring daemon (pid {old.get('pid')}, version {old.get('version')}) "
                                    "does not stop; stop it with `refscore daemon stop`")

    def _start_and_connect(self) -> Connection:
        directory = paths.ensure_runtime_dir()
        deadline = time.monotonic() + self.start_timeout
        with paths.FileLock(directory / paths.START_LOCK_NAME) as start_lock:
            start_lock.acquire(timeout=self.start_timeout)  # best effort: the daemon lock decides anyway
            try:
                return self._connect_and_handshake()  # another client started it meanwhile
            except _NotRunning:
                pass
            log_start = startup_log_size()  # what this start writes to daemon.stderr begins here
            process = self.spawned = spawn_daemon(self.daemon_args)
            while True:
                try:
                    conn = self._connect_and_handshake()
                    self.started_daemon = conn.info.get("pid") == process.pid
                    reap_in_background(process)
                    return conn
                except _NotRunning:
                    pass
                code = process.poll()
                if code is not None:
                    if code != wire.EXIT_ALREADY_RUNNING:
                        failed = DaemonUnavailable(f"the scoring daemon exited with status {code} at start-up; "
                                                   f"see {startup_log()}{log_tail(since=log_start)}")
                        if code == EXIT_INPUT:  # a file in the way of its socket: the user's to move
                            failed.exit_code = code
                        raise failed
                    if not paths.lock_is_held(directory / paths.LOCK_NAME):
                        log_start = startup_log_size()
                        process = self.spawned = spawn_daemon(self.daemon_args)  # the lock holder has exited since
                self._refuse_stopped_daemon()
                if time.monotonic() > deadline:
                    reap_in_background(process)
                    raise DaemonUnavailable(f"the scoring daemon did not answer within {self.start_timeout:.0f} s; "
                                            f"see {startup_log()}{log_tail(since=log_start)}")
                time.sleep(0.03)

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
        gets them resent once to a fresh daemon; one that dies raises ``DaemonConnectionLost``."""
        results: list[ScoreReport | None] = [None] * len(requests)
        todo = list(range(len(requests)))
        for attempt in (1, 2):
            retry = []
            futures = []
            for i in todo:
                try:
                    futures.append((i, self.submit(without_corpus(requests[i]))))
                except DaemonConnectionLost as error:
                    if not error.orderly or attempt == 2:
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
        autostart, self.autostart = self.autostart, False
        try:
            pid = self._connection().info.get("pid")
        finally:
            self.autostart = autostart
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
    """Unanswered because the daemon was exiting in an orderly way (not because it died)."""
    if isinstance(error, DaemonConnectionLost):
        return error.orderly
    return isinstance(error, RemoteError) and error.code == wire.SHUTTING_DOWN
