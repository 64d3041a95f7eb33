"""One connection to the daemon, with a bound on every wait, and what can go wrong on it.

A reader thread matches responses to futures by request id, so many requests can be in flight at
once. A watchdog thread bounds how long the client waits on a daemon that has stopped answering
(stopped by SIGSTOP, deadlocked, swapped out):

* while requests are outstanding and the daemon has sent nothing for ``PING_AFTER`` seconds, the
  client sends a ``ping``; any message from the daemon proves it alive (a busy daemon answers at
  once: its work runs off the event loop), so long work is never cut short;
* a ping unanswered for ``deadline`` seconds, or a daemon process found stopped, fails every
  outstanding request with ``DaemonNotResponding`` and closes the connection;
* a send that makes no progress for ``deadline`` seconds (the daemon reads nothing) fails the same
  way (``SO_SNDTIMEO``).
"""

from __future__ import annotations

import itertools
import socket
import struct
import threading
import time
from concurrent.futures import Future
from typing import Any

from ..errors import RefScoreError
from . import wire
from .processes import process_stopped

#: Silence (seconds) with requests outstanding before the client pings the daemon.
PING_AFTER = 2.0
#: How often the watchdog looks.
WATCH_INTERVAL = 0.25


class DaemonError(RefScoreError):
    """Something went wrong talking to the daemon (exit code 5 when it ends a command)."""


class DaemonUnavailable(DaemonError):
    """No daemon answers and none could be started (or autostart is off)."""


class DaemonNotRunning(DaemonUnavailable):
    """No daemon runs and this client may not start one (autostart off, or ``$REFSCORE_NO_DAEMON``):
    the ordinary case, nothing to report."""


class DaemonConnectionLost(DaemonError):
    """The connection dropped with requests in flight (the daemon died or stopped). ``orderly``:
    the daemon said it was exiting; ``unsent``: this request never reached it (its send failed),
    so no daemon can have acted on it."""

    def __init__(self, message: str, orderly: bool = False, unsent: bool = False) -> None:
        super().__init__(message)
        self.orderly = orderly
        self.unsent = unsent


class DaemonNotResponding(DaemonUnavailable, DaemonConnectionLost):
    """A daemon process holds the lock but does not answer within the deadline (stopped, hung)."""

    def __init__(self, pid: Any, detail: str = "") -> None:
        DaemonError.__init__(self, f"the scoring daemon is not responding (pid {pid})"
                             + (f": {detail}" if detail else ""))
        self.orderly = self.unsent = False
        self.pid = pid


def not_responding(pid: Any, deadline: float) -> DaemonNotResponding:
    """The error for daemon ``pid``, saying whether it is stopped and what the user can do."""
    if process_stopped(pid):
        return DaemonNotResponding(pid, f"it is stopped (SIGSTOP); `kill -CONT {pid}` resumes it, "
                                        "`refscore daemon stop` ends it")
    return DaemonNotResponding(pid, f"no answer within {deadline:g} s; `refscore daemon stop` ends it")


class RemoteError(DaemonError):
    """The daemon answered a request with a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class RequestCancelled(RemoteError):
    """The request was superseded by a newer one for the same document, or cancelled."""


class Connection:
    """One socket to the daemon: a reader thread resolving futures by id, and a watchdog."""

    def __init__(self, sock: socket.socket, deadline: float, pid: Any = None) -> None:
        self.sock = sock
        self.deadline = deadline
        self.stream = sock.makefile("rb")
        self.pending: dict[int, Future[Any]] = {}
        self.ids = itertools.count(1)
        self.lock = threading.Lock()
        self.send_lock = threading.Lock()
        self.closed = False
        self.exit_reason: str | None = None
        self.info: dict[str, Any] = {"pid": pid} if pid is not None else {}
        self.last_heard = time.monotonic()
        self._ping: tuple[int, float] | None = None  # (id, sent at) of the ping awaiting an answer
        self._stop = threading.Event()
        seconds = max(1, int(deadline))
        try:  # a send that makes no progress this long raises instead of blocking forever
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", seconds, 0))
        except (OSError, AttributeError, struct.error):  # pragma: no cover - platforms without it
            pass
        self.reader = threading.Thread(target=self._read, name="refscore-daemon-reader", daemon=True)
        self.reader.start()
        self.watchdog = threading.Thread(target=self._watch, name="refscore-daemon-watchdog", daemon=True)
        self.watchdog.start()

    @property
    def pid(self) -> Any:
        return self.info.get("pid")

    def request(self, method: str, params: Any = None) -> tuple[int, Future[Any]]:
        future: Future[Any] = Future()
        with self.lock:
            if self.closed:
                raise DaemonConnectionLost("the connection to the scoring daemon is closed",
                                           orderly=self.exit_reason is not None, unsent=True)
            msg_id = next(self.ids)
            self.pending[msg_id] = future
        try:
            self.send(wire.request(msg_id, method, params))
        except OSError as error:
            if isinstance(error, (BlockingIOError, TimeoutError)):  # SO_SNDTIMEO: the daemon reads nothing
                self._give_up(not_responding(self.pid, self.deadline))
            else:
                reason = f"cannot send to the scoring daemon ({error})"
                with self.lock:
                    self.pending.pop(msg_id, None)
                future.set_exception(DaemonConnectionLost(reason, unsent=True))
                self._give_up(DaemonConnectionLost(reason))
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

    # -- reading --------------------------------------------------------------------------------

    def _read(self) -> None:
        reason = "the scoring daemon closed the connection"
        try:
            while True:
                message = wire.read_message(self.stream, max_message_bytes=1 << 40)
                if message is None:
                    break
                with self.lock:
                    self.last_heard = time.monotonic()
                    self._ping = None  # any message shows the daemon alive
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
        self._fail_all(DaemonConnectionLost(reason, orderly=self.exit_reason is not None))

    # -- the watchdog ---------------------------------------------------------------------------

    def _watch(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL):
            now = time.monotonic()
            with self.lock:
                if self.closed:
                    return
                waiting = bool(self.pending)
                silent = now - self.last_heard
                ping = self._ping
            if not waiting or silent < PING_AFTER:
                continue
            if process_stopped(self.pid) or (ping is not None and now - ping[1] >= self.deadline):
                self._give_up(not_responding(self.pid, self.deadline))
                return
            if ping is None:
                self._send_ping(now)

    def _send_ping(self, now: float) -> None:
        with self.lock:
            msg_id = next(self.ids)
            future: Future[Any] = Future()
            self.pending[msg_id] = future
            self._ping = (msg_id, now)
        try:  # an older daemon answers "unknown method": an answer all the same
            self.send(wire.request(msg_id, "ping", {}))
        except OSError:
            pass  # the deadline above decides

    # -- ending ---------------------------------------------------------------------------------

    def _fail_all(self, error: DaemonError) -> None:
        with self.lock:
            self.closed = True
            pending, self.pending = self.pending, {}
        self._stop.set()
        for future in pending.values():
            if not future.done():
                future.set_exception(error)

    def _give_up(self, error: DaemonError) -> None:
        """Fail everything outstanding and end the reader (a half-sent message spoils the stream)."""
        self._fail_all(error)
        self._shutdown_socket()

    def _shutdown_socket(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def close(self) -> None:
        with self.lock:
            self.closed = True
        self._stop.set()
        self._shutdown_socket()
        self.sock.close()
