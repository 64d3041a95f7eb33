"""How a client reaches a daemon that answers: the one running, else (with ``autostart``) one it
starts in the background (``refscore daemon run`` in a new session, stdio detached) while holding
``start.lock``, so clients racing to start one end up sharing it. The handshake compares versions:
a daemon older than the client, or one without CodeBERTScore's runtime that this interpreter has,
is asked to shut down and replaced.

Every wait is bounded (docs/daemon.md, "Deadlines"): connecting ``CONNECT_TIMEOUT``, the handshake
``deadline``. A daemon that holds the lock but does not answer in time (stopped by SIGSTOP, hung)
gives ``DaemonNotResponding`` ("not responding (pid N)") at once instead of a new daemon or a hang;
a stopped daemon process is recognised without waiting.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from typing import Any, Sequence

from .. import __version__
from ..errors import EXIT_INPUT
from ..provision.runtime import bert_runtime
from . import paths, wire
from .connection import (Connection, DaemonConnectionLost, DaemonNotResponding, DaemonNotRunning, DaemonUnavailable,
                         RemoteError, not_responding)
from .processes import (log_tail, pid_alive, process_stopped, reap_in_background, spawn_daemon, startup_log,
                        startup_log_size, wait_for_exit)

#: Seconds a daemon this client starts has to answer its handshake.
START_TIMEOUT = 60.0
#: Seconds to connect to the socket (a full listen backlog, a firewalled port).
CONNECT_TIMEOUT = 5.0


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


class Reach:
    """A client's way to its daemon: ``open`` gives a connection; ``started_daemon`` and
    ``spawned`` say whether it started the daemon it reached, and which process it spawned last."""

    def __init__(self, *, autostart: bool, start_timeout: float, daemon_args: Sequence[str], deadline: float,
                 client_id: str) -> None:
        self.autostart = autostart
        self.start_timeout = start_timeout
        self.daemon_args = list(daemon_args)
        self.deadline = deadline
        self.client_id = client_id
        self.started_daemon = False  # whether this client started the daemon it talks to
        self.spawned: subprocess.Popen[bytes] | None = None  # the daemon process it spawned last, if any

    def open(self) -> Connection:
        """A connection to a daemon that answers, handshaken (one started first when allowed)."""
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
