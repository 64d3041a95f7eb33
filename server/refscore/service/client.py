"""The daemon's client: the same ``Scorer`` interface as ``LocalScorer``, answered by the daemon.

``DaemonClient`` connects lazily. When no daemon answers and ``autostart`` is on, it starts one in
the background (``refscore daemon run`` in a new session, stdio detached) while holding
``start.lock``, so clients racing to start one end up sharing it. It handshakes versions: a daemon
older than the client is asked to shut down and replaced.

Requests are multiplexed over one connection (a reader thread matches responses to futures by id),
so a client may have many requests in flight; ``submit(request, document=...)`` lets a newer
request for the same document supersede an older one that has not run yet.

When the connection drops (the daemon was killed, crashed or stopped), the requests in flight fail
with ``DaemonConnectionLost`` and the next call reconnects, starting a fresh daemon if needed.
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
import uuid
from concurrent.futures import Future
from typing import Any, Sequence

from .. import __version__
from ..errors import RefScoreError
from ..scoring.report import ScoreReport, ScoreRequest, request_to_dict
from . import paths, wire
from .processes import log_tail, reap_in_background, spawn_daemon, startup_log, wait_for_exit

START_TIMEOUT = 60.0
CONNECT_TIMEOUT = 15.0


class DaemonError(RefScoreError):
    """Something went wrong talking to the daemon (exit code 5 when it ends a command)."""


class DaemonUnavailable(DaemonError):
    """No daemon answers and none could be started (or autostart is off)."""


class DaemonConnectionLost(DaemonError):
    """The connection dropped with requests in flight (the daemon died or stopped)."""

    def __init__(self, message: str, orderly: bool = False) -> None:
        super().__init__(message)
        self.orderly = orderly


class RemoteError(DaemonError):
    """The daemon answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class RequestCancelled(RemoteError):
    """The request was superseded by a newer one for the same document, or cancelled."""


class _NotRunning(Exception):
    pass


class _Replaced(_NotRunning):
    """An older daemon was stopped; a new one must be started (whatever ``autostart`` says)."""


class _Connection:
    """One socket to the daemon, with a reader thread resolving futures by request id."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.stream = sock.makefile("rb")
        self.pending: dict[int, Future[Any]] = {}
        self.ids = itertools.count(1)
        self.lock = threading.Lock()
        self.send_lock = threading.Lock()
        self.closed = False
        self.exit_reason: str | None = None
        self.info: dict[str, Any] = {}
        self.reader = threading.Thread(target=self._read, name="refscore-daemon-reader", daemon=True)
        self.reader.start()

    def request(self, method: str, params: Any = None) -> tuple[int, Future[Any]]:
        future: Future[Any] = Future()
        with self.lock:
            if self.closed:
                raise DaemonConnectionLost("the connection to the scoring daemon is closed",
                                           orderly=self.exit_reason is not None)
            msg_id = next(self.ids)
            self.pending[msg_id] = future
        try:
            self.send(wire.request(msg_id, method, params))
        except OSError as error:
            self._fail_all(f"cannot send to the scoring daemon ({error})")
        return msg_id, future

    def notify(self, method: str, params: Any = None) -> None:
        try:
            self.send(wire.notification(method, params))
        except OSError:
            pass

    def send(self, message: dict[str, Any]) -> None:
        data = wire.encode(message)
        with self.send_lock:
            self.sock.sendall(data)

    def _read(self) -> None:
        reason = "the scoring daemon closed the connection"
        try:
            while True:
                message = wire.read_message(self.stream, max_message_bytes=1 << 40)
                if message is None:
                    break
                if "id" not in message:
                    if message.get("method") == "$/exit":
                        self.exit_reason = str((message.get("params") or {}).get("reason", "stopping"))
                    continue
                with self.lock:
                    future = self.pending.pop(message.get("id"), None)
                if future is None:
                    continue
                error = message.get("error")
                if error is not None:
                    code = int(error.get("code", wire.INTERNAL_ERROR))
                    cls = RequestCancelled if code == wire.REQUEST_CANCELLED else RemoteError
                    future.set_exception(cls(code, str(error.get("message", "error"))))
                else:
                    future.set_result(message.get("result"))
        except (OSError, ValueError) as error:
            reason = f"the connection to the scoring daemon failed ({error})"
        if self.exit_reason:
            reason = f"the scoring daemon stopped ({self.exit_reason})"
        self._fail_all(reason)

    def _fail_all(self, reason: str) -> None:
        with self.lock:
            self.closed = True
            pending, self.pending = self.pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(DaemonConnectionLost(reason, orderly=self.exit_reason is not None))

    def close(self) -> None:
        with self.lock:
            self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class DaemonClient:
    """A ``Scorer`` whose work is done by the shared daemon (started on demand).

    ``daemon_args`` are passed to ``refscore daemon run`` when this client starts the daemon
    (e.g. ``["--idle-timeout", "60"]``); a daemon that already runs keeps its own settings.
    """

    kind = "daemon"

    def __init__(self, *, autostart: bool = True, start_timeout: float = START_TIMEOUT,
                 daemon_args: Sequence[str] = (), timeout: float | None = None,
                 client_id: str | None = None) -> None:
        self.autostart = autostart
        self.start_timeout = start_timeout
        self.daemon_args = list(daemon_args)
        self.timeout = timeout
        self.client_id = client_id or f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._conn: _Connection | None = None
        self._lock = threading.Lock()
        self.started_daemon = False  # whether this client started the daemon it talks to

    # -- connection -----------------------------------------------------------------------------

    def connect(self) -> dict[str, Any]:
        """Connect now (starting a daemon if allowed); the daemon's handshake answer."""
        return self._connection().info

    @property
    def daemon_pid(self) -> int | None:
        return self._conn.info.get("pid") if self._conn is not None and not self._conn.closed else None

    def _connection(self) -> _Connection:
        with self._lock:
            if self._conn is None or self._conn.closed:
                self._conn = self._open()
            return self._conn

    def _open(self) -> _Connection:
        try:
            return self._connect_and_handshake()
        except _NotRunning as missing:
            if not self.autostart and not isinstance(missing, _Replaced):
                raise DaemonUnavailable("no scoring daemon is running (start one with `refscore daemon start`)") from None
        return self._start_and_connect()

    def _connect_and_handshake(self) -> _Connection:
        conn = _Connection(self._dial())
        try:
            conn.info = self._initialize(conn)
        except (DaemonConnectionLost, OSError, TimeoutError):
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
        return conn

    def _initialize(self, conn: _Connection) -> dict[str, Any]:
        params: dict[str, Any] = {"version": __version__, "protocol": wire.PROTOCOL_VERSION,
                                  "client": self.client_id}
        info = paths.read_info()
        if info and info.get("token"):
            params["token"] = info["token"]
        _, future = conn.request("initialize", params)
        result = future.result(timeout=CONNECT_TIMEOUT)
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
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            sock.connect(target)
        except OSError:
            sock.close()
            raise _NotRunning() from None
        sock.settimeout(None)
        return sock

    def _replace(self, conn: _Connection) -> None:
        """Ask an older daemon to shut down and wait until it has released its lock."""
        old = conn.info
        try:
            conn.request("shutdown", {"reason": f"replaced by a client of version {__version__}"})[1].result(timeout=10)
        except Exception:  # noqa: BLE001 - an old daemon may not understand; it is stopped below
            pass
        conn.close()
        if not wait_for_exit(old.get("pid"), timeout=10):
            raise DaemonUnavailable(f"an older scoring daemon (pid {old.get('pid')}, version {old.get('version')}) "
                                    "does not stop; stop it with `refscore daemon stop`")

    def _start_and_connect(self) -> _Connection:
        directory = paths.ensure_runtime_dir()
        deadline = time.monotonic() + self.start_timeout
        with paths.FileLock(directory / paths.START_LOCK_NAME) as start_lock:
            start_lock.acquire(timeout=self.start_timeout)  # best effort: the daemon lock decides anyway
            try:
                return self._connect_and_handshake()  # another client started it meanwhile
            except _NotRunning:
                pass
            process = spawn_daemon(self.daemon_args)
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
                        raise DaemonUnavailable(f"the scoring daemon exited with status {code} at start-up; "
                                                f"see {startup_log()}{log_tail()}")
                    if not paths.lock_is_held(directory / paths.LOCK_NAME):
                        process = spawn_daemon(self.daemon_args)  # the one holding it has exited since
                if time.monotonic() > deadline:
                    reap_in_background(process)
                    raise DaemonUnavailable(f"the scoring daemon did not answer within {self.start_timeout:.0f} s; "
                                            f"see {startup_log()}{log_tail()}")
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
        """Ask the daemon to drop a submitted request that has not started."""
        conn = getattr(future, "connection", None)
        if conn is not None and not conn.closed:
            conn.notify("$/cancelRequest", {"id": future.request_id})  # type: ignore[attr-defined]

    def score(self, request: ScoreRequest) -> ScoreReport:
        return self.score_many([request])[0]

    def score_many(self, requests: Sequence[ScoreRequest]) -> list[ScoreReport]:
        """Score all requests (sent at once, answered as the daemon batches them).

        A daemon that stops in an orderly way (idle exit, replaced) with some of them unanswered
        gets them resent once to a fresh daemon; one that dies raises ``DaemonConnectionLost``."""
        results: list[ScoreReport | None] = [None] * len(requests)
        todo = list(range(len(requests)))
        for attempt in (1, 2):
            retry = []
            futures = []
            for i in todo:
                try:
                    futures.append((i, self.submit(requests[i])))
                except DaemonConnectionLost as error:
                    if not error.orderly or attempt == 2:
                        raise
                    retry.append(i)
            for i, future in futures:
                try:
                    results[i] = future.result(timeout=self.timeout)
                except (DaemonConnectionLost, RemoteError) as error:
                    if attempt == 2 or not _resendable(error):
                        raise
                    retry.append(i)
            if not retry:
                break
            todo = sorted(retry)
        return results  # type: ignore[return-value]

    def status(self) -> dict[str, Any]:
        return self.call("status", {}, timeout=30)

    def shutdown(self, wait: bool = True, timeout: float = 15.0) -> int | None:
        """Stop the daemon (never starting one to do so); its pid. With ``wait``, return once it
        has exited."""
        autostart, self.autostart = self.autostart, False
        try:
            conn = self._connection()
        finally:
            self.autostart = autostart
        pid = conn.info.get("pid")
        try:
            conn.request("shutdown", {})[1].result(timeout=timeout)
        except DaemonConnectionLost:
            pass
        self.close()
        if wait and not wait_for_exit(pid, timeout):
            raise DaemonError(f"the scoring daemon (pid {pid}) did not exit within {timeout:.0f} s")
        return pid


def _resendable(error: DaemonError) -> bool:
    """Unanswered because the daemon was exiting in an orderly way (not because it died)."""
    if isinstance(error, DaemonConnectionLost):
        return error.orderly
    return isinstance(error, RemoteError) and error.code == wire.SHUTTING_DOWN
